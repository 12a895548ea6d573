"""The player's personas: files first, one default per account, `{{user}}` and the persona's
description reach the model through a real turn."""

from __future__ import annotations

import json

import pytest

from chat.play.turn import turn_run
from chat.services.index import reindex_all
from chat.services.instance_settings import instance_update
from chat.services.instances import instance_create
from library.avatars import AVATAR_MAX_BYTES
from library.character_services import character_save
from library.errors import LibraryConflict, LibraryError, LibraryForbidden, LibraryNotFound
from library.models import Persona
from library.personas.services import (
    persona_avatar_remove,
    persona_avatar_save,
    persona_create,
    persona_default_set,
    persona_delete,
    persona_update,
)
from library.selectors import persona_effective, personas_visible_to
from tests.png_files import PNG_1PX

pytestmark = pytest.mark.django_db(transaction=True)


async def _turn(store, instance_id, text="Hello"):
    async def emit(event):
        pass

    return await turn_run(store, instance_id=instance_id, user_text=text, emit=emit)


def test_the_first_persona_is_the_default_and_lives_in_its_file(store, alice):
    first = persona_create(store, owner=alice, data={"name": "Mira",
                                                     "description": "A courier."})
    second = persona_create(store, owner=alice, data={"name": "Kael"})
    saved = json.loads((store.persona_dir(first) / "persona.json").read_text())
    assert saved["owner"] == "alice" and saved["default"] is True
    assert saved["description"] == "A courier." and saved["visibility"] == "private"
    assert store.persona_read(second)["default"] is False

    persona_default_set(store, actor=alice, persona_id=second)
    assert store.persona_read(first)["default"] is False
    assert list(Persona.objects.filter(is_default=True).values_list("persona_id", flat=True)) \
        == [second]


def test_reindex_restores_personas_with_owner_and_default(store, alice):
    persona_id = persona_create(store, owner=alice, data={"name": "Mira"})
    Persona.objects.all().delete()
    counts = reindex_all(store)
    row = Persona.objects.get(persona_id=persona_id)
    assert counts["personas"] == 1
    assert row.owner == alice and row.is_default and row.name == "Mira"


def test_create_never_overwrites_and_bad_fields_are_named(store, alice):
    persona_create(store, owner=alice, data={"name": "Mira", "persona_id": "mira"})
    with pytest.raises(LibraryConflict):
        persona_create(store, owner=alice, data={"name": "Other", "persona_id": "mira"})
    with pytest.raises(LibraryError) as error:
        persona_create(store, owner=alice, data={"name": " "})
    assert error.value.field_errors == {"name": "required"}
    with pytest.raises(LibraryError) as error:
        persona_create(store, owner=alice, data={"name": "X", "visibility": "public"})
    assert "visibility" in error.value.field_errors
    assert store.persona_read("mira")["name"] == "Mira"


def test_two_creates_at_once_never_share_an_id(store, alice, bob, monkeypatch):
    """Each create took the first slug free in a list of personas read before it wrote: two at
    once (12 parallel creates of one name by two accounts left 4 personas) got one id, and the
    later write replaced the other account's persona. Here every create reads the list as if
    the other's file were not written yet."""
    monkeypatch.setattr(store, "persona_ids", lambda: [])
    hers = persona_create(store, owner=alice, data={"name": "Racer", "description": "HERS"})
    his = persona_create(store, owner=bob, data={"name": "Racer", "description": "HIS"})
    assert his != hers
    assert (store.persona_read(hers)["owner"], store.persona_read(hers)["description"]) == (
        "alice", "HERS")
    assert Persona.objects.get(persona_id=hers).owner == alice
    # an id asked for that another account's private persona holds gets a suffix of its own
    asked = persona_create(store, owner=bob, data={"name": "Racer", "persona_id": hers})
    assert asked not in (hers, his) and store.persona_read(hers)["owner"] == "alice"


def test_only_the_owner_changes_a_persona_and_private_ones_stay_private(store, alice, bob):
    private = persona_create(store, owner=alice, data={"name": "Mira"})
    shared = persona_create(store, owner=alice, data={"name": "Guide",
                                                      "visibility": "shared"})
    assert {p.persona_id for p in personas_visible_to(user=bob)} == {shared}
    with pytest.raises(LibraryForbidden):
        persona_update(store, actor=bob, persona_id=shared, data={"name": "Mine"})
    with pytest.raises(LibraryForbidden):
        persona_delete(store, actor=bob, persona_id=private)
    assert store.persona_read(shared)["name"] == "Guide"


def test_update_keeps_fields_it_does_not_name(store, alice):
    persona_id = persona_create(store, owner=alice, data={"name": "Mira",
                                                          "description": "Courier."})
    store.persona_write(persona_id, {**store.persona_read(persona_id), "x_extension": {"a": 1}})
    persona_update(store, actor=alice, persona_id=persona_id, data={"name": "Mira V."})
    saved = store.persona_read(persona_id)
    assert saved["name"] == "Mira V." and saved["description"] == "Courier."
    assert saved["x_extension"] == {"a": 1}


def test_avatar_upload_checks_type_and_size(store, alice):
    persona_id = persona_create(store, owner=alice, data={"name": "Mira"})
    assert persona_avatar_save(store, actor=alice, persona_id=persona_id,
                               data=PNG_1PX) == "avatar.png"
    assert (store.persona_dir(persona_id) / "avatar.png").read_bytes() == PNG_1PX
    with pytest.raises(LibraryError) as error:
        persona_avatar_save(store, actor=alice, persona_id=persona_id,
                            data=b"<svg onload=alert(1)>")
    assert "avatar" in error.value.field_errors
    with pytest.raises(LibraryError):
        persona_avatar_save(store, actor=alice, persona_id=persona_id,
                            data=PNG_1PX + b"\0" * AVATAR_MAX_BYTES)
    assert store.persona_read(persona_id)["avatar"] == "avatar.png"


def test_deleting_the_picked_persona_falls_back_to_the_default(store, alice, instance):
    default = persona_create(store, owner=alice, data={"name": "Mira"})
    other = persona_create(store, owner=alice, data={"name": "Kael"})
    instance_update(store, user=alice, instance_id=instance, persona_id=other)
    assert persona_effective(store, owner="alice", persona_id=other)["name"] == "Kael"
    persona_delete(store, actor=alice, persona_id=other)
    assert not (store.persona_dir(other) / "persona.json").exists()
    assert persona_effective(store, owner="alice", persona_id=other)["persona_id"] == default


def test_an_instance_cannot_pick_someone_elses_private_persona(store, alice, bob, character):
    hidden = persona_create(store, owner=bob, data={"name": "Bob's"})
    with pytest.raises(LibraryNotFound):
        instance_create(store, owner=alice, character_id=character, persona_id=hidden)


async def test_the_model_sees_the_persona_name_and_description(store, alice, character,
                                                               use_stub):
    from asgiref.sync import sync_to_async

    await sync_to_async(persona_create)(
        store, owner=alice, data={"name": "Mira", "description": "A courier with a limp."})
    kael = await sync_to_async(persona_create)(
        store, owner=alice, data={"name": "Kael", "description": "A retired duelist."})
    instance_id = await sync_to_async(instance_create)(store, owner=alice,
                                                       character_id=character)
    await _turn(store, instance_id)
    system = use_stub.requests[-1]["messages"][0]["content"]
    assert "A courier with a limp." in system and "A retired duelist." not in system

    await sync_to_async(instance_update)(store, user=alice, instance_id=instance_id,
                                         persona_id=kael)
    await _turn(store, instance_id, "Again")
    system = use_stub.requests[-1]["messages"][0]["content"]
    assert "A retired duelist." in system and "A courier with a limp." not in system
    state = store.instance_state_read(instance_id)
    assert state["persona_id"] == kael


async def test_user_macro_in_card_text_is_the_persona_name(store, alice, use_stub):
    from asgiref.sync import sync_to_async

    character_id = await sync_to_async(character_save)(
        store, data={"name": "Alserqi", "base_persona": "Alserqi distrusts {{user}}."})
    await sync_to_async(persona_create)(store, owner=alice, data={"name": "Mira"})
    instance_id = await sync_to_async(instance_create)(store, owner=alice,
                                                       character_id=character_id)
    await _turn(store, instance_id)
    assert "Alserqi distrusts Mira." in use_stub.requests[-1]["messages"][0]["content"]


async def test_macros_in_the_persona_description_are_replaced(store, alice, character,
                                                              use_stub):
    from asgiref.sync import sync_to_async

    await sync_to_async(persona_create)(
        store, owner=alice, data={"name": "Mira", "description": "{{user}} owes {{char}} money."})
    instance_id = await sync_to_async(instance_create)(store, owner=alice,
                                                       character_id=character)
    await _turn(store, instance_id)
    assert "Mira owes Alserqi money." in use_stub.requests[-1]["messages"][0]["content"]



def test_persona_page_creates_with_avatar_and_only_the_owner_sees_it(client, store, alice, bob):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(alice)
    response = client.post("/library/personas/", {
        "name": "Mira", "description": "A courier.", "visibility": "private",
        "default": "on",  # the page ticks the box for a first persona
        "avatar": SimpleUploadedFile("me.png", PNG_1PX, content_type="image/png")})
    assert response.status_code == 302
    persona_id = Persona.objects.get(name="Mira").persona_id
    page = client.get("/library/personas/").content.decode()
    assert "Mira" in page and "★" in page
    avatar = client.get(f"/library/personas/{persona_id}/avatar")
    assert avatar["Content-Type"] == "image/png" and b"".join(avatar.streaming_content) == PNG_1PX

    client.force_login(bob)
    assert client.get(f"/library/personas/{persona_id}/").status_code == 404
    assert client.get(f"/library/personas/{persona_id}/avatar").status_code == 404
    assert "Mira" not in client.get("/library/personas/").content.decode()
    assert client.post(f"/library/personas/{persona_id}/delete").status_code == 404
    assert store.persona_read(persona_id)["name"] == "Mira"


def test_a_persona_picture_can_be_removed_in_its_editor_by_its_owner_only(client, store, alice,
                                                                         bob):
    persona_id = persona_create(store, owner=alice, data={"name": "Mira"})
    persona_avatar_save(store, actor=alice, persona_id=persona_id, data=PNG_1PX)
    client.force_login(alice)
    editor = client.get(f"/library/personas/{persona_id}/").content.decode()
    assert 'name="avatar_remove"' in editor and "Remove the picture" in editor

    with pytest.raises((LibraryForbidden, LibraryNotFound)):
        persona_avatar_remove(store, actor=bob, persona_id=persona_id)
    assert store.persona_read(persona_id)["avatar"]

    response = client.post(f"/library/personas/{persona_id}/", {
        "name": "Mira", "description": "", "visibility": "private", "avatar_remove": "1"})
    assert response.status_code == 302
    assert store.persona_read(persona_id)["avatar"] is None
    assert not list(store.persona_dir(persona_id).glob("avatar.*"))
    assert client.get(f"/library/personas/{persona_id}/avatar").status_code == 404
    editor = client.get(f"/library/personas/{persona_id}/").content.decode()
    assert 'name="avatar_remove"' not in editor


def test_persona_page_refuses_a_fake_image_and_names_the_field(client, store, alice):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(alice)
    persona_id = persona_create(store, owner=alice, data={"name": "Mira"})
    response = client.post(f"/library/personas/{persona_id}/", {
        "name": "Mira", "description": "kept", "visibility": "private",
        "avatar": SimpleUploadedFile("x.png", b"<html>", content_type="image/png")})
    assert response.status_code == 400
    assert "PNG, JPEG, GIF or WebP" in response.content.decode()
    assert store.persona_read(persona_id)["avatar"] is None


def test_the_chat_page_picks_a_persona_for_the_instance(client, store, alice, instance):
    client.force_login(alice)
    persona_create(store, owner=alice, data={"name": "Mira"})
    kael = persona_create(store, owner=alice, data={"name": "Kael"})
    page = client.get(f"/instances/{instance}/").content.decode()
    assert "my default: Mira" in page
    client.post(f"/instances/{instance}/persona", {"persona_id": kael})
    assert store.instance_state_read(instance)["persona_id"] == kael
    client.post(f"/instances/{instance}/persona", {"persona_id": ""})
    assert store.instance_state_read(instance)["persona_id"] is None


def test_the_chat_page_shows_the_persona_name_for_user_lines_and_macros(client, store, alice,
                                                                        character):
    from chat.services.instances import instance_create

    client.force_login(alice)
    persona_create(store, owner=alice, data={"name": "Mira"})
    instance_id = instance_create(store, owner=alice, character_id=character)
    state = store.instance_state_read(instance_id)
    store.session_append(instance_id, state["current_session_id"], {
        "role": "user", "content": "I am {{user}}.", "turn": 1, "timestamp": "t"})
    page = client.get(f"/instances/{instance_id}/").content.decode()
    assert "I am Mira." in page and "<strong><bdi>Mira</bdi></strong>" in page


def test_the_chat_page_refuses_someone_elses_private_persona(client, store, alice, bob,
                                                             instance):
    hidden = persona_create(store, owner=bob, data={"name": "Bob's"})
    client.force_login(alice)
    page = client.post(f"/instances/{instance}/persona", {"persona_id": hidden}, follow=True)
    assert "not found" in page.content.decode()
    assert store.instance_state_read(instance)["persona_id"] is None


def test_persona_page_starts_depth_at_its_default_and_an_empty_box_is_the_default(client, store,
                                                                                   alice):
    """A newcomer's first persona: the form as the browser sends it, placement untouched (the
    Depth box once started empty and its empty value was refused)."""
    client.force_login(alice)
    page = client.get("/library/personas/").content.decode()
    assert 'name="description_depth" type="number" min="0" max="999" value="2"' in page
    response = client.post("/library/personas/", {
        "name": "Mira", "description": "A courier.", "visibility": "private",
        "description_position": "prompt", "description_depth": "", "description_role": "system"})
    assert response.status_code == 302
    persona = store.persona_read(Persona.objects.get(name="Mira").persona_id)
    assert persona["description_depth"] == 2
