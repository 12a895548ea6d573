"""A background gets a picture from its editor or the API, shown behind the chat and in the
library: kept as it came, refused with a sentence (before anything is written) when it is not a
picture, and never set on another account's background."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.models import ApiToken
from library.background_picture import background_picture_save
from library.background_services import background_save
from tests.png_files import png_bytes

pytestmark = pytest.mark.django_db


def _picture(store, background_id):
    return sorted(p.name for p in store.background_dir(background_id).glob("avatar.*"))


def test_the_editor_saves_a_picture_shown_behind_the_chat_and_in_the_library(
        alice_client, store, background, instance):
    page = alice_client.get(f"/library/backgrounds/{background}/").content.decode()
    assert 'name="picture"' in page and 'enctype="multipart/form-data"' in page
    assert 'data-crop-ratio="1.7778"' in page
    picture = png_bytes(32, 18)
    response = alice_client.post(f"/library/backgrounds/{background}/", {
        "name": "废土复仇记", "world_setting": "2087年。", "visibility": "shared",
        "picture": SimpleUploadedFile("wide.png", picture, content_type="image/png")})
    assert response.status_code == 302, response.content.decode()[:500]
    served = alice_client.get(f"/library/backgrounds/{background}/picture")
    assert served.status_code == 200 and served.content == picture
    assert served["Content-Type"] == "image/png"
    chat = alice_client.get(f"/instances/{instance}/").content.decode()
    assert (f'<img class="chat-backdrop" data-testid="chat-backdrop" '
            f'src="/library/backgrounds/{background}/picture" alt="">') in chat
    library = alice_client.get("/library/").content.decode()
    assert f'class="background-thumb" src="/library/backgrounds/{background}/picture"' in library


def test_a_file_that_is_not_a_picture_is_refused_before_the_background_changes(
        alice_client, store, background):
    response = alice_client.post(f"/library/backgrounds/{background}/", {
        "name": "Renamed", "world_setting": "x", "visibility": "shared",
        "picture": SimpleUploadedFile("evil.png", b"<script>alert(1)</script>")})
    assert response.status_code == 400
    assert "picture must be a PNG, JPEG, GIF or WebP image" in response.content.decode()
    assert store.background_read(background)["name"] == "废土复仇记"
    assert _picture(store, background) == []


def test_the_api_sets_a_picture_only_on_your_own_background(client, store, alice, bob,
                                                            background):
    url = f"/api/v1/backgrounds/{background}/picture"
    theirs = client.post(url, {"file": SimpleUploadedFile("a.png", png_bytes(16, 9))},
                         HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(bob)}")
    assert theirs.status_code == 403 and _picture(store, background) == []
    bad = client.post(url, {"file": SimpleUploadedFile("a.png", b"GIF8" + b"x" * 10)},
                      HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert bad.status_code == 400 and "picture" in bad.json()["error"]["fields"]
    assert _picture(store, background) == []
    big = client.post(url, {"file": SimpleUploadedFile("a.png", png_bytes(1, 1) + b"\0" * (2 << 20))},
                      HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert big.status_code == 400 and "2 MB" in big.json()["error"]["message"]
    mine = client.post(url, {"file": SimpleUploadedFile("a.png", png_bytes(16, 9))},
                       HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert mine.status_code == 200, mine.content
    assert mine.json()["picture_url"] == f"/library/backgrounds/{background}/picture"
    assert _picture(store, background) == ["avatar.png"]


def test_a_private_backgrounds_picture_is_not_shown_to_another_account(client, store, alice,
                                                                       bob):
    private = background_save(store, user=alice, data={"name": "Secret", "visibility": "private"})
    background_picture_save(store, actor=alice, background_id=private, data=png_bytes(16, 9))
    client.force_login(bob)
    assert client.get(f"/library/backgrounds/{private}/picture").status_code == 404


def test_a_picture_can_be_removed_in_the_editor_and_through_the_api(client, alice_client, store,
                                                                    alice, bob, background,
                                                                    instance):
    """A picture could only be replaced (issue 33 item 5): the editor's "Remove the picture"
    and `DELETE /api/v1/backgrounds/{id}/picture` take it away; nobody else may."""
    background_picture_save(store, actor=alice, background_id=background, data=png_bytes(32, 18))
    page = alice_client.get(f"/library/backgrounds/{background}/").content.decode()
    assert 'name="picture_remove"' in page
    response = alice_client.post(f"/library/backgrounds/{background}/", {
        "name": "废土复仇记", "world_setting": "2087年。", "visibility": "shared",
        "picture_remove": "1"})
    assert response.status_code == 302
    assert _picture(store, background) == []
    assert 'data-testid="chat-backdrop"' not in alice_client.get(
        f"/instances/{instance}/").content.decode()
    assert alice_client.get(f"/library/backgrounds/{background}/picture").status_code == 404
    background_picture_save(store, actor=alice, background_id=background, data=png_bytes(32, 18))
    url = f"/api/v1/backgrounds/{background}/picture"
    theirs = client.delete(url, HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(bob)}")
    assert theirs.status_code == 403 and _picture(store, background) == ["avatar.png"]
    gone = client.delete(url, HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert gone.status_code == 200, gone.content
    assert gone.json()["name"] == "废土复仇记" and "picture_url" not in gone.json()
    assert _picture(store, background) == []
