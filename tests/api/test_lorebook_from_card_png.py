"""A card picture dropped on "Import a lorebook" imports its character_book, as SillyTavern's
world-info import reads one; it was refused with Python's "'utf-8' codec can't decode byte
0x89" (the PNG read as JSON text). A card without a book says so."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.png_files import text_chunk, tiny_png

pytestmark = pytest.mark.django_db

BOOK = {"name": "Aster Lore", "entries": [
    {"id": 0, "keys": ["Low Docks"], "content": "A lawless market.", "enabled": True,
     "insertion_order": 100, "extensions": {}}]}


def _card_png(book: dict | None) -> bytes:
    data = {"name": "Mira", "description": "A captain.", "first_mes": "Hi."}
    if book is not None:
        data["character_book"] = book
    return tiny_png(text_chunk("chara", {"spec": "chara_card_v2", "spec_version": "2.0",
                                         "data": data}))


def _import(client, png: bytes):
    file = SimpleUploadedFile("mira.png", png, content_type="image/png")
    return client.post("/api/v1/lorebooks/import", {"file": file})


def test_a_card_png_imports_its_character_book(alice_client):
    response = _import(alice_client, _card_png(BOOK))
    assert response.status_code == 201, response.content
    lorebook = response.json()
    assert lorebook["name"] == "Aster Lore"
    assert [(e["keys"], e["content"]) for e in lorebook["entries"]] == [
        (["Low Docks"], "A lawless market.")]


def test_a_card_png_without_a_book_says_it_has_none(alice_client):
    response = _import(alice_client, _card_png(None))
    assert response.status_code == 400
    assert "no lorebook" in response.json()["error"]["message"]


def test_the_library_page_offers_card_pictures_for_a_lorebook(alice_client):
    page = alice_client.get("/library/").content.decode()
    form = page[page.index('id="lorebook-import"'):]
    assert 'accept=".json,.png,' in form[:form.index("</form>")]
