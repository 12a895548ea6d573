"""Authors own what they write (issue 12 item 4, SPEC §10 "Ownership"). Each test is an attack
by bob on what alice wrote, through the REST API or the pages, and what he gets instead."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from chat.models import ApiToken
from library.character_services import character_save
from library.lore.services import lorebook_save
from library.models import Character

pytestmark = pytest.mark.django_db


class Api:
    def __init__(self, client, user):
        self.client, self.auth = client, {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}

    def __call__(self, method, url, body=None):
        call = getattr(self.client, method)
        if body is None:
            return call(f"/api/v1/{url}", **self.auth)
        return call(f"/api/v1/{url}", data=json.dumps(body), content_type="application/json",
                    **self.auth)


@pytest.fixture
def as_alice(client, alice):
    return Api(client, alice)


@pytest.fixture
def as_bob(client, bob):
    return Api(client, bob)


@pytest.fixture
def secret_character(store, alice):
    return character_save(store, user=alice, data={
        "name": "Alice's secret", "base_persona": "nobody else may read this persona"})


def _file(store, character_id):
    return (store.character_dir(character_id) / "definition.json").read_bytes()


def test_create_with_an_existing_id_is_409_and_the_file_is_untouched(store, as_bob, character):
    before = _file(store, character)
    response = as_bob("post", "characters", {"character_id": character, "name": "Replaced"})
    assert response.status_code == 409
    assert response.json()["error"]["fields"] == {"character_id": "already exists"}
    assert _file(store, character) == before
    background = as_bob("post", "backgrounds", {"background_id": "bg_x", "name": "mine"})
    assert background.status_code == 201
    again = as_bob("post", "backgrounds", {"background_id": "bg_x", "name": "mine again"})
    assert again.status_code == 409


def test_bob_cannot_change_or_delete_alices_shared_character(store, as_bob, character):
    before = _file(store, character)
    changed = as_bob("put", f"characters/{character}", {"base_persona": "hijacked"})
    assert changed.status_code == 403
    assert "only its owner or staff" in changed.json()["error"]["message"]
    assert as_bob("delete", f"characters/{character}").status_code == 403
    assert _file(store, character) == before
    assert as_bob("get", f"characters/{character}").status_code == 200  # shared: he may read


def test_bob_cannot_change_alices_background_or_its_outline(client, bob, store, background):
    api = Api(client, bob)
    assert api("put", f"backgrounds/{background}", {"story_outline": []}).status_code == 403
    client.force_login(bob)
    response = client.post(f"/library/backgrounds/{background}/outline",
                           {"action": "delete", "position": "1"})
    assert response.status_code == 403
    assert len(store.background_read(background)["story_outline"]) == 5


def test_a_private_character_does_not_exist_for_bob(store, client, bob, as_bob, secret_character):
    assert as_bob("get", f"characters/{secret_character}").status_code == 404
    assert as_bob("put", f"characters/{secret_character}", {"name": "x"}).status_code == 404
    assert as_bob("get", f"characters/{secret_character}/card.json").status_code == 404
    assert as_bob("post", f"characters/{secret_character}/copy").status_code == 404
    started = as_bob("post", "instances", {"character_id": secret_character})
    assert started.status_code == 404
    listing = as_bob("get", "characters")
    assert "nobody else may read" not in listing.content.decode()
    client.force_login(bob)
    assert client.get(f"/library/characters/{secret_character}/").status_code == 404
    for page in ("/library/", "/"):
        assert secret_character not in client.get(page).content.decode()


def test_owner_and_staff_can_change_and_the_owner_sees_the_private_item(
        store, client, staff, as_alice, secret_character):
    assert as_alice("get", f"characters/{secret_character}").status_code == 200
    assert as_alice("put", f"characters/{secret_character}",
                    {"greeting": "hi"}).status_code == 200
    staff_api = Api(client, staff)
    assert staff_api("put", f"characters/{secret_character}",
                     {"greeting": "checked"}).status_code == 200
    definition = store.character_read(secret_character)
    assert definition["greeting"] == "checked" and definition["owner"] == "alice"


def test_every_change_keeps_the_previous_file(store, as_alice, secret_character):
    first = _file(store, secret_character)
    as_alice("put", f"characters/{secret_character}", {"base_persona": "second version"})
    as_alice("put", f"characters/{secret_character}", {"base_persona": "third version"})
    kept = sorted((store.character_dir(secret_character) / "history").glob("definition.*.json"))
    assert len(kept) == 2 and kept[0].read_bytes() == first
    assert json.loads(kept[1].read_text())["base_persona"] == "second version"
    assert store.character_read(secret_character)["base_persona"] == "third version"


@pytest.mark.parametrize("value, field_message", [
    (5, "must be a list of lorebook ids"),
    (["lore_missing"], "no lorebook 'lore_missing'"),
    (["lore_" + "x" * 100_000], "no lorebook 'lore_" + "x" * 74 + "…'"),  # no id is that long
    ([7], "must be a list of lorebook ids"),
])
def test_lorebook_ids_must_be_a_list_of_existing_ids(store, as_alice, value, field_message):
    response = as_alice("post", "characters", {"name": "Linked", "lorebook_ids": value})
    assert response.status_code == 400
    assert response.json()["error"]["fields"]["lorebook_ids"] == field_message
    assert not any(store.character_read(c).get("name") == "Linked" for c in store.character_ids())


def test_text_fields_of_the_wrong_type_name_the_field(as_alice, character):
    response = as_alice("post", "characters", {"name": "Typed", "base_persona": {"x": 1}})
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"base_persona": "must be text"}
    wrong = as_alice("put", f"characters/{character}", {"visibility": "everyone"})
    assert wrong.status_code == 400 and "visibility" in wrong.json()["error"]["fields"]


def test_bob_cannot_link_alices_private_lorebook(store, alice, as_bob):
    lorebook_id = lorebook_save(store, user=alice, data={"name": "Alice's lore", "entries": []})
    response = as_bob("post", "characters", {"name": "Thief", "lorebook_ids": [lorebook_id]})
    assert response.status_code == 400 and "lorebook_ids" in response.json()["error"]["fields"]


def test_use_as_my_own_copies_a_shared_character_to_bob(store, client, bob, as_bob, character):
    copied = as_bob("post", f"characters/{character}/copy")
    assert copied.status_code == 201
    new_id = copied.json()["character_id"]
    assert new_id != character
    definition = store.character_read(new_id)
    assert definition["owner"] == "bob" and definition["visibility"] == "private"
    assert definition["base_persona"] == store.character_read(character)["base_persona"]
    assert as_bob("put", f"characters/{new_id}", {"base_persona": "my take"}).status_code == 200
    client.force_login(bob)
    page = client.get(f"/library/characters/{character}/")
    assert 'data-testid="copy"' in page.content.decode()
    response = client.post(f"/library/characters/{character}/copy")
    assert response.status_code == 302
    assert Character.objects.filter(owner=bob).count() == 2


def test_the_pages_refuse_bob_with_a_sentence(store, client, bob, character, background):
    client.force_login(bob)
    before = _file(store, character)
    response = client.post(f"/library/characters/{character}/", {"name": "Hijacked"})
    assert response.status_code == 403 and "only its owner or staff" in response.content.decode()
    assert client.post(f"/library/characters/{character}/delete").status_code == 403
    assert client.post(f"/library/backgrounds/{background}/delete").status_code == 403
    assert _file(store, character) == before


def test_bob_cannot_switch_his_instance_to_alices_private_background(store, alice, bob, as_bob,
                                                                     character):
    from chat.services.instances import instance_create
    from library.background_services import background_save

    bobs = background_save(store, user=bob, data={"name": "Bob's own"})
    alices = background_save(store, user=alice, data={"name": "Alice only"})
    mine = instance_create(store, owner=bob, character_id=character)
    response = as_bob("post", f"instances/{mine}/background", {"background_id": alices})
    assert response.status_code == 404
    assert store.instance_state_read(mine)["background_id"] is None
    assert as_bob("post", f"instances/{mine}/background",
                  {"background_id": bobs}).status_code == 200


def test_reindex_restores_owner_and_visibility(store, alice, secret_character, character):
    Character.objects.all().delete()
    call_command("reindex")
    row = Character.objects.get(character_id=secret_character)
    assert row.owner == alice and row.visibility == "private"
    assert Character.objects.get(character_id=character).visibility == "shared"


def test_items_without_an_owner_are_shared_and_only_staff_change_them(store, client, bob, staff):
    legacy = character_save(store, data={"name": "Old"})  # written before owners existed
    assert Api(client, bob)("get", f"characters/{legacy}").status_code == 200
    assert Api(client, bob)("put", f"characters/{legacy}", {"name": "x"}).status_code == 403
    assert Api(client, staff)("put", f"characters/{legacy}", {"name": "New"}).status_code == 200


def test_a_refused_delete_does_not_name_another_accounts_instances(store, client, alice, bob,
                                                                   character, instance):
    from chat.services.instances import instance_create

    own = instance_create(store, owner=alice, character_id=character)
    instance_create(store, owner=bob, character_id=character)
    response = Api(client, alice)("delete", f"characters/{character}")
    assert response.status_code == 409
    error = response.json()["error"]
    message = error["message"]
    # bob's chat does not hold the delete back: it keeps its own copy of the character
    assert error["instance_ids"] == sorted([instance, own])
    assert message.count("the chat with Alserqi") == 2 and "other accounts" not in message
    assert "inst_" not in message


def test_the_admin_lists_owner_and_visibility(client, django_user_model, character):
    admin = django_user_model.objects.create_superuser("root", password="root-password")
    client.force_login(admin)
    page = client.get("/admin/library/character/?visibility=shared")
    assert page.status_code == 200
    body = page.content.decode()
    assert "alice" in body and character in body
