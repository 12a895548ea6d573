"""Lorebooks over REST (SPEC §10): import and export SillyTavern world info without loss,
CRUD with owners, card export with every linked book."""

from __future__ import annotations

import copy
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.library.browser_forms import lorebook_form_fields, lorebook_form_submit

pytestmark = pytest.mark.django_db


def st_world() -> dict:
    """A world-info file as SillyTavern writes it (built from its documented format)."""
    return {"name": "Wasteland", "originalData": {"kept": True}, "entries": {
        "0": {"uid": 0, "key": ["/ha{2,}/i", "laugh, loud"], "keysecondary": [], "comment": "laugh",
              "content": "Someone laughs.", "constant": False, "vectorized": False,
              "selective": True, "selectiveLogic": 0, "addMemo": True, "order": 100,
              "position": 4, "disable": False, "excludeRecursion": False,
              "preventRecursion": True, "delayUntilRecursion": False, "probability": 100,
              "useProbability": True, "depth": 2, "group": "mood", "groupOverride": False,
              "groupWeight": 100, "scanDepth": None, "caseSensitive": True,
              "matchWholeWords": None, "useGroupScoring": None, "automationId": "",
              "role": 1, "sticky": 0, "cooldown": 0, "delay": 0, "displayIndex": 0,
              "triggers": [], "characterFilter": {"isExclude": False, "names": []}},
        "1": {"uid": 1, "key": ["*hug*"], "keysecondary": ["x"], "comment": "", "content": "Hug.",
              "constant": True, "selective": False, "selectiveLogic": 3, "order": 5,
              "position": 2, "disable": True, "probability": 0, "useProbability": True,
              "role": None, "extraField": {"a": [1, 2]}}}}


def upload(client, data: dict, name: str = "world.json"):
    file = SimpleUploadedFile(name, json.dumps(data).encode(), content_type="application/json")
    return client.post("/api/v1/lorebooks/import", {"file": file})


def test_sillytavern_world_info_imports_and_exports_unchanged(alice_client):
    response = upload(alice_client, st_world())
    assert response.status_code == 201, response.content
    lorebook = response.json()
    assert lorebook["entries"][1]["position"] == "an_top"
    assert lorebook["entries"][0]["role"] == "user"
    assert lorebook["entries"][0]["keys"][0] == "/ha{2,}/i"
    exported = alice_client.get(f"/api/v1/lorebooks/{lorebook['lorebook_id']}/export?format=st")
    assert exported.status_code == 200
    assert exported.json() == st_world()


def test_sillytavern_secondary_keys_stay_in_force_after_import(alice_client):
    world = st_world()
    world["entries"]["0"]["keysecondary"] = ["cove", "tide"]
    world["entries"]["0"]["selectiveLogic"] = 1
    lorebook = upload(alice_client, world).json()
    laugh, hug = lorebook["entries"]
    assert laugh["secondary_keys"] == ["cove", "tide"] and laugh["selective_logic"] == "not_all"
    assert hug["secondary_keys"] == []  # `selective: false`: SillyTavern ignores its "x"
    exported = alice_client.get(f"/api/v1/lorebooks/{lorebook['lorebook_id']}/export?format=st")
    assert exported.json() == world


def test_a_card_book_with_use_regex_and_a_bad_regex_imports(alice_client):
    book = {"name": "Card book", "entries": [
        {"id": 3, "keys": ["*hug*"], "content": "hug", "use_regex": True, "enabled": True,
         "insertion_order": 10, "extensions": {"position": 1, "probability": 50}}]}
    response = upload(alice_client, {"spec": "chara_card_v3", "data": {"character_book": book}})
    assert response.status_code == 201, response.content
    card = alice_client.get(f"/api/v1/lorebooks/{response.json()['lorebook_id']}/export"
                            "?format=card").json()
    assert card["entries"][0]["keys"] == ["*hug*"]
    assert card["entries"][0]["extensions"] == {"position": 1, "probability": 50}
    assert "token_budget" not in card


def test_import_refusals_name_the_file(alice_client):
    response = alice_client.post("/api/v1/lorebooks/import", {
        "file": SimpleUploadedFile("x.json", b"{not json")})
    assert response.status_code == 400 and "file" in response.json()["error"]["fields"]
    response = upload(alice_client, {"hello": 1})
    assert response.status_code == 400 and "file" in response.json()["error"]["fields"]


def test_crud_with_owner_checks_and_no_overwrite(client, alice, bob, store):
    client.force_login(alice)
    created = client.post("/api/v1/lorebooks", {"lorebook_id": "lore_x", "name": "X", "entries": [
        {"keys": ["a"], "content": "A", "custom": {"kept": 1}}]}, content_type="application/json")
    assert created.status_code == 201 and created.json()["owner"] == "alice"
    again = client.post("/api/v1/lorebooks", {"lorebook_id": "lore_x", "name": "Y"},
                        content_type="application/json")
    assert again.status_code == 409
    bad = client.put("/api/v1/lorebooks/lore_x", {"name": "X", "entries": [
        {"keys": ["a"], "probability": 300}]}, content_type="application/json")
    assert bad.status_code == 400
    assert "entries[0].probability" in bad.json()["error"]["fields"]
    assert store.lorebook_read("lore_x")["entries"][0]["custom"] == {"kept": 1}

    client.force_login(bob)
    assert client.get("/api/v1/lorebooks/lore_x").status_code == 404
    assert "lore_x" not in json.dumps(client.get("/api/v1/lorebooks").json())
    client.force_login(alice)
    shared = client.put("/api/v1/lorebooks/lore_x", {**store.lorebook_read("lore_x"),
                                                     "visibility": "shared"},
                        content_type="application/json")
    assert shared.status_code == 200 and shared.json()["owner"] == "alice"
    client.force_login(bob)
    assert client.get("/api/v1/lorebooks/lore_x").status_code == 200
    assert client.delete("/api/v1/lorebooks/lore_x").status_code == 403
    client.force_login(alice)
    assert client.delete("/api/v1/lorebooks/lore_x").status_code == 204
    assert client.get("/api/v1/lorebooks/lore_x").status_code == 404


def test_use_as_my_own_copies_a_shared_book_and_never_a_private_one(client, alice, bob, store):
    client.force_login(alice)
    for book_id, visibility in (("lore_open", "shared"), ("lore_mine", "private")):
        created = client.post("/api/v1/lorebooks", {
            "lorebook_id": book_id, "name": book_id, "visibility": visibility,
            "entries": [{"keys": ["/ha{2,}/i"], "content": "A", "custom": {"kept": 1}}]},
            content_type="application/json")
        assert created.status_code == 201, created.content
    client.force_login(bob)
    assert client.post("/api/v1/lorebooks/lore_mine/copy").status_code == 404
    copied = client.post("/api/v1/lorebooks/lore_open/copy")
    assert copied.status_code == 201, copied.content
    copy_id = copied.json()["lorebook_id"]
    assert copy_id != "lore_open" and copied.json()["copied_from"] == "lore_open"
    assert copied.json()["owner"] == "bob" and copied.json()["visibility"] == "private"
    assert copied.json()["entries"] == store.lorebook_read("lore_open")["entries"]
    changed = client.put(f"/api/v1/lorebooks/{copy_id}", {
        **store.lorebook_read(copy_id), "name": "Bob's"}, content_type="application/json")
    assert changed.status_code == 200 and changed.json()["name"] == "Bob's"
    assert store.lorebook_read("lore_open")["name"] == "lore_open"
    client.force_login(alice)
    assert client.get(f"/api/v1/lorebooks/{copy_id}").status_code == 404


def test_card_export_merges_every_linked_book(alice_client, store, character):
    from library.character_services import character_save

    first = upload(alice_client, st_world()).json()["lorebook_id"]
    second = alice_client.post("/api/v1/lorebooks", {"name": "More", "entries": [
        {"uid": 0, "keys": ["b"], "content": "B"}]}, content_type="application/json")
    definition = store.character_read(character)
    character_save(store, data={**definition,
                                "lorebook_ids": [first, second.json()["lorebook_id"]]},
                   character_id=character)
    card = alice_client.get(f"/api/v1/characters/{character}/card.json").json()
    contents = [e["content"] for e in card["data"]["character_book"]["entries"]]
    assert contents == ["Someone laughs.", "Hug.", "B"]
    ids = [e["id"] for e in card["data"]["character_book"]["entries"]]
    assert len(set(ids)) == 3


def test_import_then_an_unchanged_web_form_save_then_export_is_equal(alice_client, store):
    lorebook = upload(alice_client, st_world()).json()
    lorebook_id = lorebook["lorebook_id"]
    before = store.lorebook_read(lorebook_id)
    response = lorebook_form_submit(alice_client, f"/library/lorebooks/{lorebook_id}/")
    assert response.status_code == 302, response.content.decode()[:2000]
    assert store.lorebook_read(lorebook_id) == before
    exported = alice_client.get(f"/api/v1/lorebooks/{lorebook_id}/export?format=st").json()
    assert exported == st_world()


def test_a_web_form_edit_keeps_commas_and_regex_braces_and_every_unshown_field(
        alice_client, store):
    lorebook_id = upload(alice_client, st_world()).json()["lorebook_id"]
    lorebook_form_submit(alice_client, f"/library/lorebooks/{lorebook_id}/",
                         e0_keys="/ha{2,}/i\nlaugh, loud\nnew key", e0_probability="40")
    exported = alice_client.get(f"/api/v1/lorebooks/{lorebook_id}/export?format=st").json()
    expected = copy.deepcopy(st_world())
    expected["entries"]["0"].update(key=["/ha{2,}/i", "laugh, loud", "new key"], probability=40)
    assert exported == expected


def test_the_web_form_shows_and_edits_an_outlet_and_the_books_scan_settings(alice_client, store):
    world = st_world()
    world["entries"]["2"] = {"uid": 2, "key": ["storm"], "keysecondary": [], "comment": "",
                             "content": "Rain.", "constant": False, "selective": True,
                             "order": 100, "position": 7, "outletName": "Weather",
                             "disable": False}
    lorebook_id = upload(alice_client, world).json()["lorebook_id"]
    before = store.lorebook_read(lorebook_id)
    page = alice_client.get(f"/library/lorebooks/{lorebook_id}/").content.decode()
    assert 'name="e2_outlet_name" value="Weather"' in page
    response = lorebook_form_submit(alice_client, f"/library/lorebooks/{lorebook_id}/")
    assert response.status_code == 302
    assert store.lorebook_read(lorebook_id) == before  # shown, not written back
    lorebook_form_submit(alice_client, f"/library/lorebooks/{lorebook_id}/", e2_outlet_name="Sky",
                         min_activations="2", min_activations_depth_max="10",
                         use_group_scoring="true")
    book = store.lorebook_read(lorebook_id)
    assert (book["min_activations"], book["min_activations_depth_max"],
            book["use_group_scoring"]) == (2, 10, True)
    exported = alice_client.get(f"/api/v1/lorebooks/{lorebook_id}/export?format=st").json()
    expected = copy.deepcopy(world)
    expected["entries"]["2"]["outletName"] = "Sky"
    assert exported == expected
    bad = lorebook_form_submit(alice_client, f"/library/lorebooks/{lorebook_id}/",
                               min_activations="-1")
    assert bad.status_code == 400 and "min_activations" in bad.content.decode()


OTHER_APP_BOOKS = {
    "sillytavern_list": {"name": "Old world", "entries": [
        {"uid": 4, "key": ["tower"], "keysecondary": [], "content": "The tower is flooded.",
         "comment": "tower", "order": 7, "position": 0, "disable": False}]},
    "agnai": {"kind": "memory", "name": "Old world", "entries": [
        {"name": "tower", "entry": "The tower is flooded.", "keywords": ["tower"],
         "priority": 7, "weight": 5, "enabled": True}]},
    "risu": {"type": "risu", "ver": 1, "data": [
        {"key": "tower, spire", "secondkey": "", "insertorder": 7, "comment": "tower",
         "content": "The tower is flooded.", "mode": "normal", "alwaysActive": False,
         "selective": False, "useRegex": False}]},
    "novelai": {"lorebookVersion": 5, "entries": [
        {"text": "The tower is flooded.", "keys": ["tower"], "displayName": "tower",
         "enabled": True, "contextConfig": {"budgetPriority": 400}}]},
}


@pytest.mark.parametrize("app", OTHER_APP_BOOKS)
def test_a_lorebook_of_another_app_imports_with_its_keys_and_text(alice_client, app):
    response = upload(alice_client, OTHER_APP_BOOKS[app])
    assert response.status_code == 201, response.content
    entry = response.json()["entries"][0]
    assert entry["keys"][0] == "tower" and entry["content"] == "The tower is flooded."
    assert entry["comment"] == "tower"
    # As SillyTavern's converters: before the character, Agnai's order its weight, NovelAI's
    # its budget priority, RisuAI's its insert order.
    assert entry["position"] == "before_char"
    assert entry["priority"] == {"sillytavern_list": 7, "agnai": 5, "risu": 7, "novelai": 400}[app]


def test_other_apps_entries_keep_sillytaverns_reading_of_their_switches(alice_client):
    risu = copy.deepcopy(OTHER_APP_BOOKS["risu"])
    risu["data"][0]["activationPercent"] = 30
    novelai = copy.deepcopy(OTHER_APP_BOOKS["novelai"])
    novelai["entries"][0].pop("enabled")
    entry = upload(alice_client, risu).json()["entries"][0]
    assert entry["extensions"]["probability"] == 30
    assert upload(alice_client, novelai).json()["entries"][0]["enabled"] is False


def test_a_long_lorebook_name_and_many_tags_fit_the_index_and_stay_whole_in_the_files(
        alice_client, store):
    from library.models import Character, Lorebook

    long_name = "世界" * 5000
    lorebook_id = upload(alice_client, {"name": long_name, "entries": []}).json()["lorebook_id"]
    assert store.lorebook_read(lorebook_id)["name"] == long_name
    assert len(Lorebook.objects.get(lorebook_id=lorebook_id).name) == 200
    card = {"spec": "chara_card_v2", "data": {"name": "Tagged",
                                              "tags": [f"tag number {i} " + "x" * 60
                                                       for i in range(200)]}}
    file = SimpleUploadedFile("card.json", json.dumps(card).encode())
    character_id = alice_client.post("/api/v1/characters/import",
                                     {"file": file}).json()["character_id"]
    # SillyTavern's default tag import keeps a card's first 15 (card_formats/values.py);
    # they run past the index's 500 characters and stay whole in the file.
    assert len(store.character_read(character_id)["tags"]) == 15
    assert len(Character.objects.get(character_id=character_id).tags) == 500


def test_a_lorebook_name_written_over_rest_is_capped_as_a_characters_and_an_imported_one_stays(
        alice_client, store):
    body = {"name": "x" * 200_000, "entries": [{"keys": ["a"], "content": "A"}]}
    refused = alice_client.post("/api/v1/lorebooks", body, content_type="application/json")
    assert refused.status_code == 400
    assert refused.json()["error"]["fields"] == {"name": "at most 200 characters"}
    assert store.lorebook_ids() == []
    created = alice_client.post("/api/v1/lorebooks", {**body, "name": "n" * 200},
                                content_type="application/json")
    assert created.status_code == 201
    lorebook_id = created.json()["lorebook_id"]
    renamed = alice_client.put(f"/api/v1/lorebooks/{lorebook_id}", {**body, "name": "n" * 201},
                               content_type="application/json")
    assert renamed.status_code == 400 and "name" in renamed.json()["error"]["fields"]
    assert store.lorebook_read(lorebook_id)["name"] == "n" * 200

    imported = upload(alice_client, {"name": "世界" * 5000, "entries": []}).json()["lorebook_id"]
    edited = alice_client.put(f"/api/v1/lorebooks/{imported}", {
        **store.lorebook_read(imported), "entries": [{"keys": ["b"], "content": "B"}]},
        content_type="application/json")
    assert edited.status_code == 200, edited.content  # its own long name left as it was
    assert store.lorebook_read(imported)["entries"][0]["content"] == "B"


def test_the_web_form_shows_an_imported_entrys_own_settings_and_an_unchanged_save_keeps_them(
        alice_client, store):
    """A SillyTavern entry keeps its probability, group, sticky, scan depth and whole-word
    setting in the card's extensions; the editor showed them as empty ("book default")."""
    world = st_world()
    world["entries"]["0"].update(probability=50, matchWholeWords=True, sticky=2, scanDepth=3)
    lorebook_id = upload(alice_client, world).json()["lorebook_id"]
    before = store.lorebook_read(lorebook_id)
    page = alice_client.get(f"/library/lorebooks/{lorebook_id}/").content.decode()
    for name, value in (("probability", "50"), ("group", "mood"), ("sticky", "2"),
                        ("scan_depth", "3")):
        assert f'name="e0_{name}" value="{value}"' in page, name
    whole = page.split('name="e0_match_whole_words"')[1].split("</select>")[0]
    assert '<option value="true" selected>' in whole
    response = lorebook_form_submit(alice_client, f"/library/lorebooks/{lorebook_id}/")
    assert response.status_code == 302
    assert store.lorebook_read(lorebook_id) == before
    lorebook_form_submit(alice_client, f"/library/lorebooks/{lorebook_id}/", e0_probability="25")
    exported = alice_client.get(f"/api/v1/lorebooks/{lorebook_id}/export?format=st").json()
    world["entries"]["0"]["probability"] = 25
    assert exported == world


def test_a_hundred_entry_book_saves_from_the_web_form(alice_client, store):
    # ~30 fields per entry: Django's default field limit (1,000) refused this with a bare 400.
    entries = {str(uid): {"uid": uid, "key": [f"key{uid}"], "content": f"Lore {uid}.",
                          "comment": f"Entry {uid}", "order": 100, "position": 0,
                          "disable": False} for uid in range(100)}
    lorebook_id = upload(alice_client, {"entries": entries}).json()["lorebook_id"]
    response = lorebook_form_submit(alice_client, f"/library/lorebooks/{lorebook_id}/")
    assert response.status_code == 302, response.content.decode()[:500]
    reader_page = alice_client.get(f"/library/lorebooks/{lorebook_id}/").content.decode()
    assert reader_page.count('data-testid="lore-row"') == 100
    fields: dict[str, list[str]] = {}
    for name, value in lorebook_form_fields(reader_page):
        if name != "e42_enabled":  # its box unticked
            fields.setdefault(name, []).append(value)
    assert alice_client.post(f"/library/lorebooks/{lorebook_id}/", fields).status_code == 302
    saved = store.lorebook_read(lorebook_id)["entries"]
    assert [e["uid"] for e in saved if not e["enabled"]] == [42] and len(saved) == 100
