"""A lorebook import past the entries cap is refused as it is read: a 520 KB card PNG holding a
100,000-entry character_book (or a world-info file of as many) was converted entry by entry
(20 s, 300 MB) before the cap refused it; a character import did the same with a card's book.
And, as a card's, the import waits for one of the account's import slots: a few uploads at once
no longer multiply that work."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from personalab.lib.busy import busy_slot
from tests.png_files import text_chunk, tiny_png

pytestmark = pytest.mark.django_db

ENTRIES = [{"id": i, "keys": [f"k{i}"], "content": "c"} for i in range(6)]


def _card_png() -> bytes:
    return tiny_png(text_chunk("chara", {"spec": "chara_card_v2", "data": {
        "name": "Mira", "character_book": {"entries": ENTRIES}}}))


FILES = {
    "card.png": _card_png(),
    "world.json": json.dumps({"entries": {str(e["id"]): {**e, "key": e["keys"], "uid": e["id"]}
                                          for e in ENTRIES}}).encode(),
    "book.json": json.dumps({"entries": ENTRIES}).encode(),
    "risu.json": json.dumps({"type": "risu", "data": [
        {"key": "k", "content": "c"} for _ in ENTRIES]}).encode(),
}


def _import(client, name: str):
    file = SimpleUploadedFile(name, FILES[name], content_type="application/octet-stream")
    return client.post("/api/v1/lorebooks/import", {"file": file})


@pytest.mark.parametrize("name", FILES)
def test_a_book_past_the_cap_is_refused_before_any_entry_is_converted(
        alice_client, store, settings, monkeypatch, name):
    settings.PERSONALAB_LORE_ENTRIES_MAX = 5

    def converted(*args, **kwargs):
        raise AssertionError("a book past the cap was converted")

    monkeypatch.setattr("library.lore.services.lorebook_file_read", converted)
    response = _import(alice_client, name)
    assert response.status_code == 422, response.content
    assert "at most 5" in response.json()["error"]["message"]
    assert store.lorebook_ids() == []


def test_a_lorebook_import_waits_for_one_of_the_accounts_import_slots(
        alice_client, store, settings):
    settings.PERSONALAB_IMPORTS_PER_ACCOUNT = 1
    with busy_slot(store.root / "busy", account="alice", action="import", slots=1, what="x"):
        assert _import(alice_client, "book.json").status_code == 429
    assert _import(alice_client, "book.json").status_code == 201


def test_a_card_whose_book_is_past_the_cap_is_refused_before_it_is_converted(
        alice_client, store, settings, monkeypatch):
    settings.PERSONALAB_LORE_ENTRIES_MAX = 5

    def converted(*args, **kwargs):
        raise AssertionError("a card whose book is past the cap was converted")

    monkeypatch.setattr("library.card_formats.card_import.card_to_definition", converted)
    file = SimpleUploadedFile("mira.png", FILES["card.png"], content_type="image/png")
    response = alice_client.post("/api/v1/characters/import", {"file": file})
    assert response.status_code == 422, response.content
    assert store.character_ids() == [] and store.lorebook_ids() == []
