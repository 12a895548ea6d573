"""`DELETE /api/v1/characters/{id}/picture` and `DELETE /api/v1/personas/{id}/picture` take a
picture away as the background's endpoint does (issue 33): the owner (or staff) only, another
account gets the error model's 403/404 and the picture stays; both are in the OpenAPI schema."""

from __future__ import annotations

import pytest

from chat.models import ApiToken
from library.character_services import character_avatar_save
from library.personas.services import persona_avatar_save, persona_create
from tests.png_files import png_bytes

pytestmark = pytest.mark.django_db


def _auth(user) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}


def test_a_characters_picture_is_removed_by_its_owner_only(client, store, alice, bob, character):
    character_avatar_save(store, actor=alice, character_id=character, data=png_bytes(2, 3))
    url = f"/api/v1/characters/{character}/picture"
    theirs = client.delete(url, **_auth(bob))
    assert theirs.status_code in (403, 404) and "error" in theirs.json()
    assert list(store.character_dir(character).glob("avatar.*"))
    gone = client.delete(url, **_auth(alice))
    assert gone.status_code == 200, gone.content
    assert gone.json()["character_id"] == character
    assert not list(store.character_dir(character).glob("avatar.*"))
    assert client.delete(url, **_auth(alice)).status_code == 200  # nothing left: no error
    missing = client.delete("/api/v1/characters/char_nobody/picture", **_auth(alice))
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_a_personas_picture_is_removed_by_its_owner_only(client, store, alice, bob):
    persona_id = persona_create(store, owner=alice, data={"name": "Mira",
                                                          "visibility": "shared"})
    persona_avatar_save(store, actor=alice, persona_id=persona_id, data=png_bytes(2, 3))
    url = f"/api/v1/personas/{persona_id}/picture"
    theirs = client.delete(url, **_auth(bob))
    assert theirs.status_code in (403, 404) and "error" in theirs.json()
    assert store.persona_read(persona_id)["avatar"]
    gone = client.delete(url, **_auth(alice))
    assert gone.status_code == 200, gone.content
    assert gone.json()["name"] == "Mira" and gone.json()["avatar_url"] is None
    assert store.persona_read(persona_id)["avatar"] is None
    assert not list(store.persona_dir(persona_id).glob("avatar.*"))


def test_both_endpoints_are_in_the_openapi_schema(client, alice):
    paths = client.get("/api/v1/openapi.json", **_auth(alice)).json()["paths"]
    assert "delete" in paths["/api/v1/characters/{character_id}/picture"]
    assert "delete" in paths["/api/v1/personas/{persona_id}/picture"]
