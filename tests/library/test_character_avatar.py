"""A character gets a picture from its editor or the API (not only from a card import): kept as
it came, refused with a sentence when it is not a picture, and never for another account."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.models import ApiToken
from tests.png_files import png_bytes, png_size

pytestmark = pytest.mark.django_db


def _body(response) -> bytes:
    return (b"".join(response.streaming_content) if response.streaming else response.content)


def test_the_editor_saves_a_picture_and_the_card_carries_it(alice_client, store, character):
    picture = png_bytes(40, 60)
    page = alice_client.get(f"/library/characters/{character}/").content.decode()
    assert 'name="avatar"' in page and 'enctype="multipart/form-data"' in page
    response = alice_client.post(f"/library/characters/{character}/", {
        "name": "Alserqi", "base_persona": "A scout.",
        "avatar": SimpleUploadedFile("me.png", picture, content_type="image/png")})
    assert response.status_code == 302, response.content.decode()[:500]
    served = alice_client.get(f"/library/characters/{character}/avatar.png")
    assert served.status_code == 200 and _body(served) == picture
    card = alice_client.get(f"/api/v1/characters/{character}/card.png")
    assert png_size(_body(card)) == (40, 60)


def test_the_editor_removes_a_characters_picture(alice_client, store, character):
    """A picture could only be replaced (issue 33 item 5): "Remove the picture" takes it away,
    the chat shows the initial again; a card export still works."""
    alice_client.post(f"/library/characters/{character}/", {
        "name": "Alserqi", "base_persona": "A scout.",
        "avatar": SimpleUploadedFile("me.png", png_bytes(40, 60), content_type="image/png")})
    page = alice_client.get(f"/library/characters/{character}/").content.decode()
    assert 'name="avatar_remove"' in page
    response = alice_client.post(f"/library/characters/{character}/", {
        "name": "Alserqi", "base_persona": "A scout.", "avatar_remove": "1"})
    assert response.status_code == 302, response.content.decode()[:500]
    assert alice_client.get(f"/library/characters/{character}/avatar.png").status_code == 404
    assert list(store.character_dir(character).glob("avatar.*")) == []
    assert alice_client.get(f"/api/v1/characters/{character}/card.png").status_code == 200


def test_a_file_that_is_not_a_picture_is_refused_before_a_new_character_is_made(
        alice_client, store):
    before = len(list(store.character_dir("x").parent.iterdir())) if store.character_dir("x").parent.exists() else 0
    response = alice_client.post("/library/characters/new", {
        "name": "Nobody", "base_persona": "x",
        "avatar": SimpleUploadedFile("evil.png", b"<script>alert(1)</script>")})
    assert response.status_code == 400
    assert "PNG, JPEG, GIF or WebP" in response.content.decode()
    after = len(list(store.character_dir("x").parent.iterdir())) if store.character_dir("x").parent.exists() else 0
    assert after == before


def test_the_api_sets_a_picture_only_on_your_own_character(client, alice, bob, character):
    url = f"/api/v1/characters/{character}/avatar"
    theirs = client.post(url, {"file": SimpleUploadedFile("a.png", png_bytes(2, 3))},
                         HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(bob)}")
    assert theirs.status_code in (403, 404)
    mine = client.post(url, {"file": SimpleUploadedFile("a.png", png_bytes(2, 3))},
                       HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert mine.status_code == 200, mine.content
    bad = client.post(url, {"file": SimpleUploadedFile("a.png", b"GIF8" + b"x" * 10)},
                      HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert bad.status_code == 400 and "avatar" in bad.json()["error"]["fields"]


@pytest.mark.parametrize("page,field,said", [
    ("/library/characters/new", "avatar", "头像必须是 PNG、JPEG、GIF 或 WebP 图片"),
    ("/library/personas/", "avatar", "头像必须是 PNG、JPEG、GIF 或 WebP 图片"),
    ("/library/backgrounds/new", "picture", "图片必须是 PNG、JPEG、GIF 或 WebP 格式")])
def test_a_refused_picture_is_said_in_the_pages_language(alice_client, page, field, said):
    """The character, persona and background pages said "avatar (picture) must be a PNG, JPEG,
    GIF or WebP image" in English to a Chinese reader; the API keeps the English sentence."""
    response = alice_client.post(page, {
        "name": "无名", "base_persona": "x",
        field: SimpleUploadedFile("notes.png", b"just text")}, HTTP_ACCEPT_LANGUAGE="zh-CN")
    body = response.content.decode()
    assert response.status_code == 400
    assert said in body and "must be a PNG" not in body
