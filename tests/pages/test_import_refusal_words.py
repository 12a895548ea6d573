"""An import refused on the library page says why in the reader's language; the API keeps the
importer's English sentence word for word."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from library.refusal_words import refusal_words

pytestmark = pytest.mark.django_db


def _refusal(client, url: str, name: str, data: bytes, language: str) -> str:
    response = client.post(url, {"file": SimpleUploadedFile(name, data)},
                           HTTP_ACCEPT_LANGUAGE=language, follow=True)
    return response.content.decode()


def test_a_broken_card_is_refused_in_chinese_on_a_chinese_page(alice_client):
    page = _refusal(alice_client, "/library/cards/upload", "bad.json", b'{"name": "A" "x"}',
                    "zh-CN")
    assert "无法导入 bad.json：角色卡的 JSON 无效：file: Expecting" in page
    assert "card JSON is invalid" not in page


def test_a_card_without_a_book_imported_as_a_lorebook_says_so_in_chinese(alice_client):
    card = b'{"spec": "chara_card_v2", "data": {"name": "Mira"}}'
    page = _refusal(alice_client, "/library/lorebooks/upload", "mira.json", card, "zh-CN")
    assert "这张角色卡没有可导入的世界书（character_book）" in page


def test_the_english_page_and_nested_sentences():
    assert refusal_words("card JSON is invalid: field 'tags' must be a list of text") == (
        "the card's JSON is invalid: the field “tags” must be a list of text")
    assert refusal_words("something else entirely") == "something else entirely"
