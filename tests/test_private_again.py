"""A character or background another author shared and then made private again (or deleted):
the chats of other accounts keep the last version they could read, never the author's later
private text."""

from __future__ import annotations

import json

import pytest

from chat.models import ApiToken


def _call(client, user, method, url, body=None):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}
    data = json.dumps(body) if body is not None else ""
    return getattr(client, method)(url, data, content_type="application/json", **auth)


@pytest.fixture
def shared_pair(store, client, alice):
    """Alice's shared character and background, as a client creates them."""
    character = _call(client, alice, "post", "/api/v1/characters", {
        "name": "Mira", "base_persona": "A lighthouse keeper.", "visibility": "shared",
        "pinned_prompt": "PIN-FIRST-PUBLIC"})
    background = _call(client, alice, "post", "/api/v1/backgrounds", {
        "name": "Coast", "world_setting": "WORLD-FIRST-PUBLIC", "visibility": "shared"})
    assert character.status_code == 201 and background.status_code == 201
    return character.json()["character_id"], background.json()["background_id"]


@pytest.fixture
def bobs_chat(client, bob, shared_pair):
    character_id, background_id = shared_pair
    response = _call(client, bob, "post", "/api/v1/instances",
                     {"character_id": character_id, "background_id": background_id})
    assert response.status_code == 201
    return response.json()["instance_id"]


def _turn(client, user, chat):
    return _call(client, user, "post", "/api/v1/chat", {"instance_id": chat, "query": "hello"})


def _trace_text(client, user, chat) -> str:
    response = _turn(client, user, chat)
    assert response.status_code == 200, response.content
    trace_id = response.json()["trace_id"]
    return json.dumps(_call(client, user, "get", f"/api/v1/traces/{trace_id}").json(),
                      ensure_ascii=False)


def _edit(client, alice, kind, item_id, body):
    response = _call(client, alice, "put", f"/api/v1/{kind}/{item_id}", body)
    assert response.status_code == 200, response.content


@pytest.mark.django_db(transaction=True)
def test_a_private_edit_never_reaches_another_accounts_chat_and_sharing_again_brings_it(
        client, alice, bob, shared_pair, bobs_chat, store):
    character_id, background_id = shared_pair
    _edit(client, alice, "characters", character_id, {"pinned_prompt": "PIN-EDITED-WHILE-SHARED"})
    _edit(client, alice, "backgrounds", background_id,
          {"name": "Coast", "world_setting": "WORLD-EDITED-WHILE-SHARED"})
    seen = _trace_text(client, bob, bobs_chat)
    assert "PIN-EDITED-WHILE-SHARED" in seen and "WORLD-EDITED-WHILE-SHARED" in seen

    _edit(client, alice, "characters", character_id, {"visibility": "private"})
    _edit(client, alice, "backgrounds", background_id,
          {"name": "Coast", "visibility": "private"})
    _edit(client, alice, "characters", character_id, {"pinned_prompt": "PIN-SECRET"})
    _edit(client, alice, "backgrounds", background_id,
          {"name": "Coast", "world_setting": "WORLD-SECRET"})
    seen = _trace_text(client, bob, bobs_chat)
    assert "PIN-SECRET" not in seen and "WORLD-SECRET" not in seen
    assert "PIN-EDITED-WHILE-SHARED" in seen and "WORLD-EDITED-WHILE-SHARED" in seen
    kept = store.instance_dir(bobs_chat) / "kept"
    assert json.loads((kept / "characters" / f"{character_id}.json").read_text())[
        "pinned_prompt"] == "PIN-EDITED-WHILE-SHARED"
    assert (kept / "backgrounds" / f"{background_id}.json").is_file()

    # The author's own chat plays the private file as it is now.
    own = _call(client, alice, "post", "/api/v1/instances",
                {"character_id": character_id, "background_id": background_id}).json()
    assert "PIN-SECRET" in _trace_text(client, alice, own["instance_id"])

    _edit(client, alice, "characters", character_id, {"visibility": "shared"})
    _edit(client, alice, "backgrounds", background_id, {"name": "Coast", "visibility": "shared"})
    seen = _trace_text(client, bob, bobs_chat)
    assert "PIN-SECRET" in seen and "WORLD-SECRET" in seen


@pytest.mark.django_db(transaction=True)
def test_staff_chats_follow_the_authors_file(client, alice, staff, shared_pair):
    character_id, _ = shared_pair
    chat = _call(client, staff, "post", "/api/v1/instances",
                 {"character_id": character_id}).json()["instance_id"]
    _edit(client, alice, "characters", character_id, {"visibility": "private"})
    _edit(client, alice, "characters", character_id, {"pinned_prompt": "PIN-SECRET"})
    assert "PIN-SECRET" in _trace_text(client, staff, chat)


@pytest.mark.django_db(transaction=True)
def test_a_deleted_character_still_plays_in_another_accounts_chat_from_its_copy(
        client, alice, bob, shared_pair, bobs_chat):
    character_id, background_id = shared_pair
    assert _call(client, alice, "delete", f"/api/v1/characters/{character_id}").status_code \
        in (200, 204)
    assert _call(client, alice, "delete", f"/api/v1/backgrounds/{background_id}").status_code \
        in (200, 204)
    seen = _trace_text(client, bob, bobs_chat)
    assert "PIN-FIRST-PUBLIC" in seen and "WORLD-FIRST-PUBLIC" in seen


@pytest.mark.django_db(transaction=True)
def test_a_character_still_in_the_authors_own_chat_is_not_deleted(client, alice, shared_pair):
    character_id, _ = shared_pair
    _call(client, alice, "post", "/api/v1/instances", {"character_id": character_id})
    response = _call(client, alice, "delete", f"/api/v1/characters/{character_id}")
    assert response.status_code == 409


@pytest.mark.django_db(transaction=True)
def test_a_chat_with_neither_the_file_nor_a_copy_is_refused_naming_the_character(
        client, alice, bob, shared_pair, bobs_chat, store):
    character_id, _ = shared_pair
    _edit(client, alice, "characters", character_id, {"visibility": "private"})
    # a chat from before copies were kept
    (store.instance_dir(bobs_chat) / "kept" / "characters" / f"{character_id}.json").unlink()
    session = store.instance_state_read(bobs_chat)["current_session_id"]
    before = store.session_path(bobs_chat, session).read_bytes()

    response = _turn(client, bob, bobs_chat)
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "made_private"
    assert character_id in error["message"] and "made it private" in error["message"]
    assert store.session_path(bobs_chat, session).read_bytes() == before



@pytest.mark.django_db(transaction=True)
def test_another_accounts_private_edit_shows_on_no_page_or_endpoint_of_the_chat(
        client, alice, bob, shared_pair, bobs_chat, store):
    character_id, _ = shared_pair
    _turn(client, bob, bobs_chat)
    _edit(client, alice, "characters", character_id, {"visibility": "private"})
    _edit(client, alice, "characters", character_id,
          {"name": "SECRET-NAME", "pinned_prompt": "PIN-SECRET"})
    seen = _trace_text(client, bob, bobs_chat)
    session = store.instance_state_read(bobs_chat)["current_session_id"]
    client.force_login(bob)
    pages = [seen,
             _call(client, bob, "get", f"/api/v1/instances/{bobs_chat}").content.decode(),
             _call(client, bob, "get", f"/api/v1/instances/{bobs_chat}/sessions/{session}"
                   "/export?format=md").content.decode(),
             _call(client, bob, "get", f"/api/v1/instances/{bobs_chat}/members/changes")
             .content.decode(),
             client.get(f"/instances/{bobs_chat}/").content.decode()]
    for text in pages:
        assert "SECRET-NAME" not in text and "PIN-SECRET" not in text
    assert "Mira" in seen
    assert _call(client, bob, "get", f"/api/v1/characters/{character_id}").status_code == 404
