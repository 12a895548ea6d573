"""Personas over REST: /api/v1/personas and persona_id on instance create."""

from __future__ import annotations

import json

import pytest

from chat.models import ApiToken
from tests.png_files import PNG_1PX

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def call(client):
    def as_user(user, method, url, body=None):
        token = ApiToken.issue(user)
        return getattr(client, method)(url, data=json.dumps(body) if body is not None else None,
                                       content_type="application/json",
                                       HTTP_AUTHORIZATION=f"Bearer {token}")
    return as_user


def test_another_accounts_shared_default_persona_is_not_the_readers_default(call, alice, bob):
    # bob's list said "default": true of alice's shared default persona (whose it was told
    # him her choice, and a client taking the list's default played as her).
    shared = call(alice, "post", "/api/v1/personas", {"name": "Mira", "description": "",
                                                      "visibility": "shared"}).json()
    assert shared["default"] is True
    listed = call(bob, "get", "/api/v1/personas").json()["personas"]
    assert [p["default"] for p in listed if p["persona_id"] == shared["persona_id"]] == [False]
    assert call(bob, "get", f"/api/v1/personas/{shared['persona_id']}").json()["default"] is False


def test_create_read_update_delete_a_persona(call, store, alice):
    created = call(alice, "post", "/api/v1/personas",
                   {"name": "Mira", "description": "A courier."})
    assert created.status_code == 201
    persona = created.json()
    assert persona["default"] is True and persona["owner"] == "alice"
    persona_id = persona["persona_id"]
    assert store.persona_read(persona_id)["description"] == "A courier."

    changed = call(alice, "put", f"/api/v1/personas/{persona_id}", {"description": "Retired."})
    assert changed.json()["description"] == "Retired." and changed.json()["name"] == "Mira"
    listed = call(alice, "get", "/api/v1/personas").json()["personas"]
    assert [p["persona_id"] for p in listed] == [persona_id]

    assert call(alice, "delete", f"/api/v1/personas/{persona_id}").status_code == 204
    assert call(alice, "get", f"/api/v1/personas/{persona_id}").status_code == 404
    assert persona_id not in store.persona_ids()


def test_errors_name_the_field_and_create_never_overwrites(call, store, alice):
    bad = call(alice, "post", "/api/v1/personas", {"name": "", "visibility": "public"})
    assert bad.status_code == 400 and "visibility" in bad.json()["error"]["fields"]
    empty = call(alice, "post", "/api/v1/personas", {"name": "   "})
    assert empty.status_code == 400 and empty.json()["error"]["fields"] == {"name": "required"}
    call(alice, "post", "/api/v1/personas", {"name": "Mira", "persona_id": "mira"})
    again = call(alice, "post", "/api/v1/personas", {"name": "Other", "persona_id": "mira"})
    assert again.status_code == 409 and store.persona_read("mira")["name"] == "Mira"


def test_another_account_cannot_see_or_change_a_private_persona(call, store, alice, bob):
    private = call(alice, "post", "/api/v1/personas", {"name": "Mira"}).json()["persona_id"]
    shared = call(alice, "post", "/api/v1/personas",
                  {"name": "Guide", "visibility": "shared"}).json()["persona_id"]
    assert call(bob, "get", f"/api/v1/personas/{private}").status_code == 404
    assert call(bob, "put", f"/api/v1/personas/{private}", {"name": "x"}).status_code == 404
    assert call(bob, "delete", f"/api/v1/personas/{private}").status_code == 404
    assert call(bob, "put", f"/api/v1/personas/{shared}", {"name": "x"}).status_code == 403
    assert [p["name"] for p in call(bob, "get", "/api/v1/personas").json()["personas"]] == \
        ["Guide"]
    assert store.persona_read(shared)["name"] == "Guide"


def test_avatar_upload_over_rest(client, store, alice):
    token = ApiToken.issue(alice)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    persona_id = client.post("/api/v1/personas", data=json.dumps({"name": "Mira"}),
                             content_type="application/json", **auth).json()["persona_id"]
    from django.core.files.uploadedfile import SimpleUploadedFile

    ok = client.post(f"/api/v1/personas/{persona_id}/avatar",
                     {"file": SimpleUploadedFile("a.png", PNG_1PX, "image/png")}, **auth)
    assert ok.status_code == 200 and ok.json()["avatar_url"].endswith("/avatar")
    bad = client.post(f"/api/v1/personas/{persona_id}/avatar",
                      {"file": SimpleUploadedFile("a.png", b"GIF", "image/png")}, **auth)
    assert bad.status_code == 400 and "avatar" in bad.json()["error"]["fields"]


def test_instance_create_takes_a_persona_id(call, store, alice, bob, character):
    kael = call(alice, "post", "/api/v1/personas", {"name": "Kael"}).json()["persona_id"]
    hidden = call(bob, "post", "/api/v1/personas", {"name": "Bob's"}).json()["persona_id"]
    created = call(alice, "post", "/api/v1/instances",
                   {"character_id": character, "persona_id": kael})
    assert created.status_code == 201
    assert store.instance_state_read(created.json()["instance_id"])["persona_id"] == kael
    refused = call(alice, "post", "/api/v1/instances",
                   {"character_id": character, "persona_id": hidden})
    assert refused.status_code == 404


def test_default_false_makes_a_persona_no_longer_the_default(call, store, alice, instance):
    from library.selectors import persona_effective

    mira = call(alice, "post", "/api/v1/personas", {"name": "Mira"}).json()
    assert persona_effective(store, owner="alice", persona_id=None)["name"] == "Mira"
    changed = call(alice, "put", f"/api/v1/personas/{mira['persona_id']}", {"default": False})
    assert changed.status_code == 200 and changed.json()["default"] is False
    assert store.persona_read(mira["persona_id"])["default"] is False
    assert persona_effective(store, owner="alice", persona_id=None)["persona_id"] is None
    shown = call(alice, "get", f"/api/v1/personas/{mira['persona_id']}").json()
    assert call(alice, "put", f"/api/v1/personas/{mira['persona_id']}",
                {**shown, "default": True}).json()["default"] is True
    assert persona_effective(store, owner="alice", persona_id=None)["name"] == "Mira"
