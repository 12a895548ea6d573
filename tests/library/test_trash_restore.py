"""Nothing deleted is lost: a character, background, lorebook or persona its owner deleted is
listed and restored (REST and pages, one service: library/trash.py), as it was, under its id;
never another account's, and never over a live one."""

from __future__ import annotations

import pytest
from django.test import Client

from library.models import Background, Lorebook, Persona
from tests.rest_client import bearer_auth

pytestmark = pytest.mark.django_db

BODIES = {"characters": {"base_persona": "A medic."},
          "backgrounds": {"world_setting": "Drowned cities."},
          "lorebooks": {"entries": [{"uid": 1, "keys": ["harbour"], "content": "Old."}]},
          "personas": {"description": "A traveller."}}


def _made_and_deleted(call, kinds: str, name: str = "Mira") -> str:
    made = call("post", f"/api/v1/{kinds}", {"name": name, **BODIES[kinds]})
    item_id = made.json()[f"{kinds[:-1]}_id"]
    assert call("delete", f"/api/v1/{kinds}/{item_id}").status_code in (200, 204)
    return item_id


@pytest.mark.parametrize("kinds", list(BODIES))
def test_the_owner_lists_and_restores_what_they_deleted_and_bob_cannot(as_alice, as_bob, kinds):
    item_id = _made_and_deleted(as_alice, kinds)
    assert as_alice("get", f"/api/v1/{kinds}/{item_id}").status_code == 404
    listed = as_alice("get", f"/api/v1/trash?kind={kinds[:-1]}").json()["items"]
    assert [(i["kind"], i["id"], i["name"]) for i in listed] == [(kinds[:-1], item_id, "Mira")]
    assert listed[0]["deleted_at"]
    assert as_bob("get", "/api/v1/trash").json()["items"] == []
    assert as_bob("post", f"/api/v1/{kinds}/{item_id}/restore").status_code == 404
    restored = as_alice("post", f"/api/v1/{kinds}/{item_id}/restore")
    assert restored.status_code == 200, restored.content
    assert restored.json() == {"kind": kinds[:-1], "id": item_id, "name": "Mira"}
    shown = as_alice("get", f"/api/v1/{kinds}/{item_id}").json()
    assert shown["name"] == "Mira"
    assert as_alice("get", "/api/v1/trash").json()["items"] == []
    again = as_alice("post", f"/api/v1/{kinds}/{item_id}/restore")
    assert again.status_code == 404 and again.json()["error"]["code"] == "not_found"


def test_a_restored_book_is_listed_again_with_its_entries(as_alice, store):
    book = _made_and_deleted(as_alice, "lorebooks")
    assert not Lorebook.objects.filter(lorebook_id=book).exists()
    as_alice("post", f"/api/v1/lorebooks/{book}/restore")
    assert Lorebook.objects.get(lorebook_id=book).entry_count == 1
    assert store.lorebook_read(book)["entries"][0]["content"] == "Old."


def test_a_live_item_in_the_way_is_not_replaced(client, alice, as_alice, store):
    background = _made_and_deleted(as_alice, "backgrounds")
    store.background_write(background, {"name": "Put back by hand", "owner": "alice"})
    refused = as_alice("post", f"/api/v1/backgrounds/{background}/restore")
    assert refused.status_code == 409
    assert refused.json()["error"]["message"] == (
        f"A background with the id '{background}' is live again (restored already?): the "
        "deleted one stays in the trash.")
    assert store.background_read(background)["name"] == "Put back by hand"
    chinese = client.post(f"/api/v1/backgrounds/{background}/restore",
                          HTTP_ACCEPT_LANGUAGE="zh-hans", **bearer_auth(alice))
    assert chinese.json()["error"]["message"] == (
        f"编号为 '{background}' 的背景已经存在（已经恢复过了？）：删除的那份仍留在回收站里。")


def test_a_persona_whose_name_is_taken_again_waits_and_says_so_in_chinese(client, alice,
                                                                           as_alice):
    persona = _made_and_deleted(as_alice, "personas")
    as_alice("post", "/api/v1/personas", {"name": "Mira"})
    refused = as_alice("post", f"/api/v1/personas/{persona}/restore")
    assert refused.status_code == 409
    assert refused.json()["error"]["message"].startswith("You already have a persona named “Mira”")
    client.force_login(alice)
    client.cookies["django_language"] = "zh-hans"
    page = client.post(f"/library/personas/{persona}/restore", follow=True,
                       HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "你已有名为“Mira”的人设" in page.content.decode()
    assert Persona.objects.filter(owner=alice).count() == 1


def test_a_default_persona_comes_back_beside_the_default_chosen_since(as_alice, alice):
    first = _made_and_deleted(as_alice, "personas", name="Ann")  # her first: her default
    as_alice("post", "/api/v1/personas", {"name": "Bea", "default": True})
    assert as_alice("post", f"/api/v1/personas/{first}/restore").status_code == 200
    assert list(Persona.objects.filter(owner=alice, is_default=True).values_list(
        "name", flat=True)) == ["Bea"]


def test_the_pages_offer_list_and_restore_a_deleted_background_only_to_its_owner(
        alice_client, bob, background, store):
    page = alice_client.post(f"/library/backgrounds/{background}/delete", follow=True)
    assert not Background.objects.filter(background_id=background).exists()
    assert "Deleted 废土复仇记 by mistake?" in page.content.decode()
    assert "废土复仇记" in alice_client.get("/library/trash/").content.decode()
    bob_client = Client()
    bob_client.force_login(bob)
    assert "by mistake" not in bob_client.get(page.wsgi_request.get_full_path()).content.decode()
    assert "废土复仇记" not in bob_client.get("/library/trash/").content.decode()
    assert bob_client.post(f"/library/backgrounds/{background}/restore").status_code == 404
    restored = alice_client.post(f"/library/backgrounds/{background}/restore", follow=True)
    assert restored.redirect_chain[-1][0] == f"/library/backgrounds/{background}/"
    assert "Background 废土复仇记 restored." in restored.content.decode()
    assert Background.objects.filter(background_id=background).exists()
    assert len(store.background_read(background)["story_outline"]) == 5


def test_a_deleted_persona_is_offered_back_on_the_personas_page(alice_client, alice, store):
    alice_client.post("/library/personas/", {"name": "Mira", "description": "A traveller."})
    (persona,) = Persona.objects.filter(owner=alice).values_list("persona_id", flat=True)
    page = alice_client.post(f"/library/personas/{persona}/delete", follow=True).content.decode()
    assert "Deleted Mira by mistake?" in page and 'data-testid="persona-restore"' in page
    trash = alice_client.get("/library/trash/").content.decode()
    assert 'data-kind="persona"' in trash and "Mira" in trash
    restored = alice_client.post(f"/library/personas/{persona}/restore", follow=True)
    assert restored.redirect_chain[-1][0] == f"/library/personas/{persona}/"
    assert "Persona Mira restored." in restored.content.decode()
    assert store.persona_read(persona)["description"] == "A traveller."
    assert "trash-empty" in alice_client.get("/library/trash/").content.decode()


def test_bob_restores_nothing_of_alices_by_any_spelling_of_its_id(as_alice, as_bob, bob,
                                                                   store):
    """Red team (2026-12-02): the kept copy's folder name, case, glob and dot tricks."""
    item_id = _made_and_deleted(as_alice, "characters")
    (kept,) = (store.root / "trash" / "characters").glob(f"{item_id}.*")
    bob_client = Client()
    bob_client.force_login(bob)
    for spelled in (item_id, kept.name, item_id.upper(), f"{item_id}*", "char_*", "..",
                    "%2e%2e", f"{item_id}%2f..", f"{item_id}%00"):
        assert as_bob("post", f"/api/v1/characters/{spelled}/restore").status_code in (400, 404)
        assert bob_client.post(f"/library/characters/{spelled}/restore").status_code == 404
    assert as_alice("post", f"/api/v1/characters/{kept.name}/restore").status_code == 400
    assert kept.is_dir()


def test_a_deleted_items_markup_name_stays_text_in_the_list_and_the_flash(alice_client,
                                                                          as_alice):
    name = "<img src=x onerror=alert(1)>"
    item_id = _made_and_deleted(as_alice, "characters", name=name)
    for language in ("en", "zh-hans"):
        alice_client.cookies["django_language"] = language
        page = alice_client.get("/library/trash/").content.decode()
        assert "<bdi>&lt;img src=x onerror=alert(1)&gt;</bdi>" in page and name not in page
    restored = alice_client.post(f"/library/characters/{item_id}/restore", follow=True)
    assert "角色 &lt;img src=x onerror=alert(1)&gt; 已恢复。" in restored.content.decode()


def test_a_restore_without_its_csrf_token_is_refused(alice, as_alice):
    item_id = _made_and_deleted(as_alice, "characters")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    assert browser.post(f"/library/characters/{item_id}/restore").status_code == 403
    assert browser.post(f"/api/v1/characters/{item_id}/restore").status_code == 403
    assert [i["id"] for i in as_alice("get", "/api/v1/trash").json()["items"]] == [item_id]
