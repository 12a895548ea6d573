"""SillyTavern tag ids in world-info character filters (library/lore/st_tags.py): named from
its settings.json at import, so "only for" / "not for" a tag work as in SillyTavern; ids left
without a name are said at import and in the lorebook editor."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import translation

from chat.inspector.reasons import lore_reason_named
from library.lore.activation import lorebook_match
from library.lore.st_tag_list import st_tags_merged
from library.lore.st_tags import MAX_TAGS, lorebook_tags_named

pytestmark = pytest.mark.django_db

FANTASY = "1700000000123"
UUID_TAG = "5b1c7f2e-8d9a-4c1b-9f3e-2a6d8c4b1e07"
ST_TAGS = {"tags": [{"id": FANTASY, "name": "fantasy", "create_date": 1700000000123},
                    {"id": "1700000000999", "name": "sci-fi"}],
           "tag_map": {"Mira Vale.png": [FANTASY]}}


def _tag_world(*tags: str) -> dict:
    """Two entries as SillyTavern's editor writes them: only for, and not for, the tags."""
    def entry(uid: int, content: str, exclude: bool) -> dict:
        return {"uid": uid, "key": ["kettle"], "keysecondary": [], "comment": content,
                "content": content, "order": 100, "position": 1, "disable": False,
                "characterFilter": {"isExclude": exclude, "names": [], "tags": list(tags)}}
    return {"name": "Tagfilter Lore", "entries": {
        "0": entry(0, "ONLY_FANTASY", False), "1": entry(1, "NOT_FANTASY", True)}}


def _file(name: str, data) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, json.dumps(data).encode(), content_type="application/json")


def _import(client, world: dict, settings=None):
    form = {"file": _file("tagfilter.json", world)}
    if settings is not None:
        form["settings"] = _file("settings.json", settings)
    return client.post("/api/v1/lorebooks/import", form)


def _fired(book: dict, speaker_tags: list[str]) -> list[str]:
    match = lorebook_match([book], messages=["the kettle whistles"], count_tokens=len,
                           speaker={"name": "Mira", "id": "c1", "tags": speaker_tags})
    return sorted(item["content"] for item in match.fired)


def test_tag_ids_named_by_settings_json_filter_as_in_sillytavern(alice_client, store):
    response = _import(alice_client, _tag_world(FANTASY), {"theme": "x", **ST_TAGS})
    assert response.status_code == 201, response.content
    assert response.json()["warnings"] == [] and response.json()["unnamed_tag_ids"] == []
    book_id = response.json()["lorebook_id"]
    book = {**store.lorebook_read(book_id), "lorebook_id": book_id}
    assert _fired(book, ["Fantasy"]) == ["ONLY_FANTASY"]
    assert _fired(book, ["horror"]) == ["NOT_FANTASY"]
    # The ids stay beside the names, so the exported book still filters in SillyTavern.
    exported = alice_client.get(f"/api/v1/lorebooks/{book_id}/export?format=st").json()
    assert exported["entries"]["0"]["characterFilter"]["tags"] == [FANTASY, "fantasy"]


def test_the_tags_list_alone_names_the_ids_too(alice_client, store):
    response = _import(alice_client, _tag_world(FANTASY), ST_TAGS["tags"])
    book_id = response.json()["lorebook_id"]
    assert _fired({**store.lorebook_read(book_id), "lorebook_id": book_id},
                  ["fantasy"]) == ["ONLY_FANTASY"]


def test_tag_ids_with_no_name_are_warned_about_entry_by_entry(alice_client):
    response = _import(alice_client, _tag_world(FANTASY, UUID_TAG))
    assert response.status_code == 201
    assert response.json()["unnamed_tag_ids"] == [
        {"uid": 0, "comment": "ONLY_FANTASY", "tag_ids": [FANTASY, UUID_TAG]},
        {"uid": 1, "comment": "NOT_FANTASY", "tag_ids": [FANTASY, UUID_TAG]}]
    warnings = response.json()["warnings"]
    assert "Entry 0 “ONLY_FANTASY”" in warnings[0] and UUID_TAG in warnings[0]
    assert "settings.json" in warnings[-1]


def test_an_id_the_settings_json_lacks_is_named_in_the_warning(alice_client):
    response = _import(alice_client, _tag_world(FANTASY, UUID_TAG), ST_TAGS)
    assert [one["tag_ids"] for one in response.json()["unnamed_tag_ids"]] == [[UUID_TAG]] * 2
    assert "does not name these tags" in response.json()["warnings"][-1]


def test_a_settings_file_without_tags_is_refused_and_nothing_imported(alice_client, store):
    response = _import(alice_client, _tag_world(FANTASY), {"world_info_settings": {}})
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"tags": "no tags list"}
    assert alice_client.get("/api/v1/lorebooks").json()["lorebooks"] == []


def test_the_import_page_names_the_ids_or_warns_and_the_editor_says_so(alice_client):
    warned = alice_client.post("/library/lorebooks/upload", {
        "file": _file("tagfilter.json", _tag_world(FANTASY))}, follow=True)
    page = warned.content.decode()
    assert "Entry 0 “ONLY_FANTASY”" in page and FANTASY in page
    assert page.count('data-testid="lore-tag-ids"') == 2 and 'data-testid="lore-tag-names"' in page
    named = alice_client.post("/library/lorebooks/upload", {
        "file": _file("tagfilter.json", _tag_world(FANTASY)),
        "settings": _file("settings.json", ST_TAGS)}, follow=True).content.decode()
    assert "Imported tagfilter.json" in named and "lore-tag-ids" not in named
    assert "lore-tag-names" not in named


def test_a_book_imported_without_settings_is_named_later_on_its_page(alice_client, store):
    book_id = _import(alice_client, _tag_world(FANTASY, UUID_TAG)).json()["lorebook_id"]
    page = alice_client.post(f"/library/lorebooks/{book_id}/tag_names", {
        "settings": _file("settings.json", ST_TAGS)}, follow=True).content.decode()
    assert UUID_TAG in page and "does not name these tags" in page  # the one left unnamed
    book = {**store.lorebook_read(book_id), "lorebook_id": book_id}
    assert _fired(book, ["fantasy"]) == ["ONLY_FANTASY"]
    # The unnamed id might be "horror": neither filter is sure, so neither is applied.
    assert _fired(book, ["horror"]) == ["NOT_FANTASY", "ONLY_FANTASY"]


def test_the_rest_names_a_stored_books_ids_and_only_its_owner_may(alice_client, bob):
    book_id = _import(alice_client, _tag_world(FANTASY)).json()["lorebook_id"]
    bob_client = Client()
    bob_client.force_login(bob)
    refused = bob_client.post(f"/api/v1/lorebooks/{book_id}/tag_names",
                              {"settings": _file("settings.json", ST_TAGS)})
    assert refused.status_code in (403, 404)
    named = alice_client.post(f"/api/v1/lorebooks/{book_id}/tag_names",
                              {"settings": _file("settings.json", ST_TAGS)})
    assert named.status_code == 200 and named.json()["unnamed_tag_ids"] == []
    assert named.json()["entries"][1]["extensions"]["character_filter"]["tags"] == [
        FANTASY, "fantasy"]


def _card(world: dict) -> dict:
    """A card whose book is `world`'s entries, as SillyTavern exports a card."""
    book = {"name": "Card book", "entries": [
        {"id": raw["uid"], "keys": raw["key"], "content": raw["content"],
         "comment": raw["comment"], "enabled": True, "insertion_order": 100,
         "extensions": {"character_filter": raw["characterFilter"]}}
        for raw in world["entries"].values()]}
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Mira", "description": "", "personality": "", "scenario": "",
        "first_mes": "Hi", "mes_example": "", "tags": ["fantasy"], "character_book": book}}


def test_a_cards_book_with_tag_ids_is_warned_about_at_the_cards_import(alice_client):
    card = _card(_tag_world(FANTASY))
    response = alice_client.post("/api/v1/characters/import",
                                 {"file": _file("mira.json", card)})
    assert response.status_code == 201, response.content
    warnings = response.json()["warnings"]
    assert "Entry 0 “ONLY_FANTASY”" in warnings[0] and FANTASY in warnings[0]
    assert "Name the SillyTavern tags" in warnings[-1]
    page = alice_client.post("/library/cards/upload", {
        "file": _file("mira.json", card)}, follow=True).content.decode()
    assert "Entry 1 “NOT_FANTASY”" in page


def test_a_long_tag_name_repeated_by_many_entries_is_refused_and_nothing_written(alice_client):
    # Each filter gets its name copied: 300 entries x a 4,000-character name wrote 1.2 MB of
    # names (a 200 KB name and 500 entries: a 100 MB book that could not be read back).
    world = {"name": "Many", "entries": {str(uid): {
        "uid": uid, "key": ["k"], "content": "c",
        "characterFilter": {"isExclude": False, "names": [], "tags": [FANTASY]}}
        for uid in range(300)}}
    response = _import(alice_client, world, {"tags": [{"id": FANTASY, "name": "N" * 4000}]})
    assert response.status_code == 400, response.content[:200]
    assert "characters of tag names" in response.json()["error"]["fields"]["settings"]
    assert alice_client.get("/api/v1/lorebooks").json()["lorebooks"] == []


class _NoScan(list):
    def __contains__(self, item):
        raise AssertionError("a filter's tags were scanned for each id")


def test_naming_looks_each_id_up_once_not_through_the_filters_list():
    # Scanning the filter for each of its ids: 10,000 ids took 1.3 s of CPU per entry.
    ids = [str(1700000000000 + n) for n in range(50)]
    rule = {"tags": _NoScan(ids)}
    book = {"entries": [{"uid": 0, "extensions": {"character_filter": rule}}]}
    assert lorebook_tags_named(book, {tag: f"t{tag}" for tag in ids}).unnamed == []
    assert rule["tags"][:2] == [ids[0], f"t{ids[0]}"]


def _shared_with_bob(alice_client, bob) -> tuple[str, Client]:
    """Alice's book with a tag-id filter, shared; bob's client, logged in."""
    book_id = _import(alice_client, _tag_world(FANTASY)).json()["lorebook_id"]
    book = alice_client.get(f"/api/v1/lorebooks/{book_id}").json()
    alice_client.put(f"/api/v1/lorebooks/{book_id}", {**book, "visibility": "shared"},
                     content_type="application/json")
    bob_client = Client()
    bob_client.force_login(bob)
    return book_id, bob_client


def test_another_accounts_shared_book_is_refused_for_its_owner_not_its_file(alice_client, bob,
                                                                             store):
    book_id, bob_client = _shared_with_bob(alice_client, bob)
    page = bob_client.post(f"/library/lorebooks/{book_id}/tag_names", {
        "settings": _file("settings.json", ST_TAGS)}, follow=True).content.decode()
    assert "belongs to alice" in page and "Could not read" not in page
    assert store.lorebook_read(book_id)["entries"][0]["extensions"]["character_filter"][
        "tags"] == [FANTASY]


def test_the_rest_refuses_another_accounts_shared_book_before_reading_the_file(alice_client,
                                                                               bob):
    book_id, bob_client = _shared_with_bob(alice_client, bob)
    refused = bob_client.post(f"/api/v1/lorebooks/{book_id}/tag_names",
                              {"settings": SimpleUploadedFile("settings.json", b"{ not json")})
    assert refused.status_code == 403, refused.content


def test_the_tags_an_account_gave_name_its_later_books_and_no_one_elses(alice_client, bob,
                                                                       store):
    _import(alice_client, _tag_world(UUID_TAG), {"tags": [{"id": FANTASY, "name": "fantasy"}]})
    later = _import(alice_client, _tag_world(FANTASY, UUID_TAG)).json()
    assert later["named_from_kept"] == {FANTASY: "fantasy"}
    assert [one["tag_ids"] for one in later["unnamed_tag_ids"]] == [[UUID_TAG]] * 2
    book = {**store.lorebook_read(later["lorebook_id"]), "lorebook_id": later["lorebook_id"]}
    assert _fired(book, ["fantasy"]) == ["ONLY_FANTASY"]
    bob_client = Client()
    bob_client.force_login(bob)
    bobs = _import(bob_client, _tag_world(FANTASY)).json()
    assert bobs["named_from_kept"] == {} and bobs["unnamed_tag_ids"][0]["tag_ids"] == [FANTASY]
    named = bob_client.post(f"/api/v1/lorebooks/{bobs['lorebook_id']}/tag_names").json()
    assert named["named_from_kept"] == {} and len(named["unnamed_tag_ids"]) == 2


def test_a_new_settings_file_merges_over_the_kept_tags_and_names_a_stored_book(alice_client,
                                                                              store):
    book_id = _import(alice_client, _tag_world(FANTASY, UUID_TAG)).json()["lorebook_id"]
    _import(alice_client, _tag_world(FANTASY), {"tags": [{"id": FANTASY, "name": "old"},
                                                         {"id": UUID_TAG, "name": "noir"}]})
    _import(alice_client, _tag_world(FANTASY), {"tags": [{"id": FANTASY, "name": "fantasy"}]})
    named = alice_client.post(f"/api/v1/lorebooks/{book_id}/tag_names")  # no file
    assert named.status_code == 200, named.content
    assert named.json()["named_from_kept"] == {FANTASY: "fantasy", UUID_TAG: "noir"}
    assert named.json()["unnamed_tag_ids"] == []
    assert store.lorebook_read(book_id)["entries"][0]["extensions"]["character_filter"][
        "tags"] == [FANTASY, "fantasy", UUID_TAG, "noir"]
    again = alice_client.post(f"/api/v1/lorebooks/{book_id}/tag_names").json()
    assert again["named_from_kept"] == {}  # named before: nothing added twice


def test_the_kept_list_is_bounded_and_keeps_the_newest():
    kept = {str(1700000000000 + n): f"t{n}" for n in range(MAX_TAGS)}
    merged = st_tags_merged(kept, {"1700000000000": "renamed", UUID_TAG: "new"})
    assert len(merged) == MAX_TAGS and merged[UUID_TAG] == "new"
    assert merged["1700000000000"] == "renamed" and "1700000000001" not in merged


def test_the_lorebook_page_names_tags_from_the_kept_list_without_a_file(alice_client):
    _import(alice_client, _tag_world(UUID_TAG), {"tags": [{"id": FANTASY, "name": "fantasy"}]})
    book_id = _import(alice_client, _tag_world(FANTASY, UUID_TAG)).json()["lorebook_id"]
    # FANTASY was named at the import; UUID_TAG is still unnamed, so the form shows.
    page = alice_client.get(f"/library/lorebooks/{book_id}/").content.decode()
    assert 'data-testid="lore-tags-kept"' in page and "keeps 1 SillyTavern tag name" in page
    imported = alice_client.post("/library/lorebooks/upload", {
        "file": _file("tagfilter.json", _tag_world(FANTASY))}, follow=True).content.decode()
    assert f"Named from the SillyTavern tags you gave before: {FANTASY} (fantasy)." in imported
    done = alice_client.post(f"/library/lorebooks/{book_id}/tag_names", follow=True)
    assert UUID_TAG in done.content.decode() and "Choose your" not in done.content.decode()


def _mixed_world(*tags: str) -> dict:
    return {"lorebook_id": "lb_mixed", "entries": [
        {"uid": uid, "keys": ["kettle"], "content": content,
         "character_filter": {"names": [], "tags": list(tags), "isExclude": exclude}}
        for uid, content, exclude in ((0, "ONLY", False), (1, "NOT", True))]}


def _reasons(book: dict, speaker_tags: list[str]) -> tuple[dict, dict]:
    match = lorebook_match([book], messages=["the kettle whistles"], count_tokens=len,
                           speaker={"name": "Mira", "id": "c1", "tags": speaker_tags})
    return ({item["content"]: item["reason"] for item in match.fired},
            {item["content"]: item["reason"] for item in match.dropped})


def test_a_filter_mixing_a_named_and_an_unnamed_id_is_unsure_only_where_the_id_decides():
    book = _mixed_world(FANTASY, "fantasy", UUID_TAG)
    fired, dropped = _reasons(book, ["Fantasy"])  # the name decides: as SillyTavern
    assert list(fired) == ["ONLY"] and "unsure" not in fired["ONLY"]
    assert dropped["NOT"].startswith("character filter: not for tags")
    fired, dropped = _reasons(book, ["horror"])  # the unnamed id might be "horror"
    assert sorted(fired) == ["NOT", "ONLY"] and not dropped
    assert all(f"unsure, not applied: its SillyTavern tag ids {UUID_TAG}" in reason
               for reason in fired.values())
    fired, dropped = _reasons(book, [])  # no tags: no id can be one of them
    assert list(fired) == ["NOT"] and "unsure" not in fired["NOT"]
    assert dropped["ONLY"].startswith("character filter: only for tags")
    fired, _ = _reasons(_mixed_world(UUID_TAG, FANTASY, "fantasy"), ["horror"])
    assert sorted(fired) == ["NOT", "ONLY"]  # the name stands after its own id only
    with translation.override("zh-hans"):
        worded = lore_reason_named(fired["NOT"])
    assert "排除标签" in worded and "无法确定" in worded and UUID_TAG in worded, worded


def test_a_cards_book_is_named_from_the_kept_tags_at_its_import(alice_client, store):
    _import(alice_client, _tag_world(UUID_TAG), ST_TAGS)
    response = alice_client.post("/api/v1/characters/import",
                                 {"file": _file("mira.json", _card(_tag_world(FANTASY)))})
    assert response.status_code == 201, response.content
    assert response.json()["named_from_kept"] == {FANTASY: "fantasy"}
    assert response.json()["warnings"] == []
    book_id = store.character_read(response.json()["character_id"])["lorebook_ids"][0]
    assert store.lorebook_read(book_id)["entries"][0]["extensions"]["character_filter"][
        "tags"] == [FANTASY, "fantasy"]
