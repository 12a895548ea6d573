"""A character or background another author shared and then made private again (or deleted):
the chats of other accounts keep the last version they could read, never the author's later
private text."""

from __future__ import annotations

import base64
import errno
import json

import pytest
from django.urls import reverse

from chat.models import ApiToken
from library.card_formats.charx import charx_read
from library.card_formats.png import png_card_texts, png_chunks
from personalab.lib.filestore.store import FileStore
from tests.socket_tabs import tab_connect
from tests.stub_llm import Reply


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


@pytest.fixture
def made_private_without_copy(client, alice, shared_pair, bobs_chat, store) -> str:
    """Alice's character made private while bob's chat kept no copy (a chat from before copies
    were kept)."""
    character_id, _ = shared_pair
    _edit(client, alice, "characters", character_id, {"visibility": "private"})
    (store.instance_dir(bobs_chat) / "kept" / "characters" / f"{character_id}.json").unlink()
    return character_id


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
def test_another_accounts_chat_is_still_listed_and_read_after_the_author_deletes_the_card(
        client, alice, bob, shared_pair, bobs_chat):
    # The index row lost its character (SET_NULL): bob's list and chat answered 500.
    character_id, background_id = shared_pair
    for kind, item_id in (("characters", character_id), ("backgrounds", background_id)):
        assert _call(client, alice, "delete", f"/api/v1/{kind}/{item_id}").status_code \
            in (200, 204)
    listed = _call(client, bob, "get", "/api/v1/instances")
    detail = _call(client, bob, "get", f"/api/v1/instances/{bobs_chat}")
    assert listed.status_code == 200 and detail.status_code == 200, detail.content[:300]
    assert [(row["instance_id"], row["character_id"], row["background_id"])
            for row in listed.json()["instances"]] == [(bobs_chat, character_id, background_id)]
    assert detail.json()["character_id"] == character_id


@pytest.mark.django_db(transaction=True)
def test_a_character_still_in_the_authors_own_chat_is_not_deleted(client, alice, shared_pair):
    character_id, _ = shared_pair
    _call(client, alice, "post", "/api/v1/instances", {"character_id": character_id})
    response = _call(client, alice, "delete", f"/api/v1/characters/{character_id}")
    assert response.status_code == 409


@pytest.mark.django_db(transaction=True)
def test_a_chat_with_neither_the_file_nor_a_copy_is_refused_naming_the_character(
        client, bob, bobs_chat, store, made_private_without_copy):
    character_id = made_private_without_copy
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
             client.get(f"/instances/{bobs_chat}/").content.decode(),
             _page(client, bob, reverse("persona", args=[bobs_chat])),
             _page(client, bob, reverse("history", args=[bobs_chat])),
             _page(client, bob, "/")]
    for text in pages:
        assert "SECRET-NAME" not in text and "PIN-SECRET" not in text
    assert "Mira" in seen
    assert _call(client, bob, "get", f"/api/v1/characters/{character_id}").status_code == 404


def _page(client, user, url: str) -> str:
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_background_made_private_shows_its_kept_outline_and_name_never_the_new_ones(
        client, alice, bob, shared_pair, bobs_chat):
    _, background_id = shared_pair
    _edit(client, alice, "backgrounds", background_id,
          {"name": "Coast", "story_outline": ["OUTLINE-SHARED-ONE", "OUTLINE-SHARED-TWO"]})
    _edit(client, alice, "backgrounds", background_id, {"name": "Coast", "visibility": "private"})
    _edit(client, alice, "backgrounds", background_id,
          {"name": "SECRET-COAST", "story_outline": ["OUTLINE-SECRET"]})

    detail = _call(client, bob, "get", f"/api/v1/instances/{bobs_chat}").content.decode()
    shown = [detail, _page(client, bob, f"/instances/{bobs_chat}/"), _page(client, bob, "/"),
             _trace_text(client, bob, bobs_chat)]
    for text in shown:
        assert "OUTLINE-SECRET" not in text and "SECRET-COAST" not in text
    assert "OUTLINE-SHARED-TWO" in detail and "OUTLINE-SHARED-TWO" in shown[1]
    assert "Coast" in shown[2]


@pytest.mark.django_db(transaction=True)
def test_a_group_member_made_private_plays_and_shows_its_kept_version(
        client, alice, bob, shared_pair):
    character_id, _ = shared_pair
    own = _call(client, bob, "post", "/api/v1/characters",
                {"name": "Tomas", "base_persona": "A fisherman."}).json()["character_id"]
    group = _call(client, bob, "post", "/api/v1/instances",
                  {"character_ids": [character_id, own]}).json()["instance_id"]
    _edit(client, alice, "characters", character_id, {"visibility": "private"})
    _edit(client, alice, "characters", character_id,
          {"name": "SECRET-NAME", "base_persona": "PERSONA-SECRET", "pinned_prompt": "PIN-SECRET"})

    def trace_of(speaker: str) -> str:
        response = _call(client, bob, "post", "/api/v1/chat",
                         {"instance_id": group, "query": "hello", "speaker": speaker})
        assert response.status_code == 200, response.content
        return json.dumps(_call(client, bob, "get",
                                f"/api/v1/traces/{response.json()['trace_id']}").json(),
                          ensure_ascii=False)

    as_member, beside_member = trace_of(character_id), trace_of(own)
    page = _page(client, bob, f"/instances/{group}/")  # the members drawer is in it
    for text in (as_member, beside_member, page):
        assert "SECRET" not in text
    assert "PIN-FIRST-PUBLIC" in as_member and "Mira" in beside_member
    assert 'data-testid="members-card"' in page and "Mira" in page


@pytest.mark.django_db(transaction=True)
def test_the_copys_private_lorebook_stops_being_read_once_the_card_is_made_private(
        client, alice, bob, store):
    book = _call(client, alice, "post", "/api/v1/lorebooks", {
        "name": "Lighthouse lore", "visibility": "shared",
        "entries": [{"uid": 1, "keys": ["hello"], "content": "LORE-WHILE-SHARED"}]}).json()
    character_id = _call(client, alice, "post", "/api/v1/characters", {
        "name": "Mira", "visibility": "shared",
        "lorebook_ids": [book["lorebook_id"]]}).json()["character_id"]
    chat = _call(client, bob, "post", "/api/v1/instances",
                 {"character_id": character_id}).json()["instance_id"]
    assert "LORE-WHILE-SHARED" in _trace_text(client, bob, chat)  # the card's shared book

    _edit(client, alice, "characters", character_id, {"visibility": "private"})
    entries = [{"uid": 1, "keys": ["hello"], "content": "LORE-SECRET"}]
    _edit(client, alice, "lorebooks", book["lorebook_id"],
          {**store.lorebook_read(book["lorebook_id"]), "entries": entries,
           "visibility": "private"})
    seen = _trace_text(client, bob, chat)
    assert "LORE-SECRET" not in seen and "LORE-WHILE-SHARED" not in seen


@pytest.mark.django_db(transaction=True)
def test_a_copy_that_cannot_be_written_refuses_the_change_and_loses_nothing(
        client, alice, bob, shared_pair, bobs_chat, store, monkeypatch):
    character_id, _ = shared_pair

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(FileStore, "kept_copy_write", full_disk)
    deleted = _call(client, alice, "delete", f"/api/v1/characters/{character_id}")
    private = _call(client, alice, "put", f"/api/v1/characters/{character_id}",
                    {"visibility": "private", "pinned_prompt": "PIN-SECRET"})
    assert deleted.status_code == 507 and private.status_code == 507
    for refused in (deleted, private):
        message = refused.json()["error"]["message"]
        assert "could not keep its copy" in message and "nothing was changed" in message
        assert bobs_chat not in message  # another account's chat is not named
    client.force_login(alice)
    page = client.post(f"/library/characters/{character_id}/delete", follow=True)
    assert "could not keep its copy" in page.content.decode()
    definition = store.character_read(character_id)
    assert definition["visibility"] == "shared" and definition["pinned_prompt"] == "PIN-FIRST-PUBLIC"
    assert "PIN-FIRST-PUBLIC" in _trace_text(client, bob, bobs_chat)


@pytest.mark.django_db(transaction=True)
def test_a_chat_without_a_copy_says_so_on_its_page_and_in_an_aside_and_holds_back_the_delete(
        client, alice, bob, bobs_chat, store, made_private_without_copy):
    character_id = made_private_without_copy
    page = _page(client, bob, f"/instances/{bobs_chat}/")
    assert 'data-testid="made-private"' in page and character_id in page
    aside = _call(client, bob, "post", "/api/v1/chat",
                  {"instance_id": bobs_chat, "query": "hello", "mode": "aside"})
    assert aside.status_code == 403 and aside.json()["error"]["code"] == "made_private"

    refused = _call(client, alice, "delete", f"/api/v1/characters/{character_id}")
    assert refused.status_code == 409
    assert "1 of other accounts" in refused.json()["error"]["message"]
    assert bobs_chat not in refused.json()["error"]["message"]
    assert store.character_read(character_id)["owner"] == alice.username


@pytest.mark.django_db(transaction=True)
def test_a_memory_update_after_the_character_is_made_private_names_the_kept_version(
        client, alice, bob, shared_pair, bobs_chat, use_stub):
    character_id, _ = shared_pair
    use_stub.script(Reply("Hello there."))
    assert _turn(client, bob, bobs_chat).status_code == 200
    _edit(client, alice, "characters", character_id, {"visibility": "private"})
    _edit(client, alice, "characters", character_id, {"name": "SECRET-NAME"})

    use_stub.script(Reply("Mira warms to the player."))
    response = _call(client, bob, "post", f"/api/v1/instances/{bobs_chat}/update_memory")
    assert response.status_code == 200, response.content
    sent = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "SECRET-NAME" not in sent and "Mira" in sent


@pytest.mark.django_db(transaction=True)
async def test_the_websocket_names_the_character_made_private_for_a_turn_and_a_suggestion(
        bob, bobs_chat, made_private_without_copy):
    character_id = made_private_without_copy
    communicator, connected = await tab_connect(bob, bobs_chat)
    assert connected
    await communicator.send_json_to({"type": "send", "content": "hello"})
    refused = await communicator.receive_json_from(timeout=10)
    await communicator.send_json_to({"type": "impersonate"})
    suggestion = await communicator.receive_json_from(timeout=10)
    await communicator.disconnect()
    assert refused["type"] == "error" and refused["code"] == "made_private"
    assert character_id in refused["message"]
    assert suggestion == {**suggestion, "type": "impersonate_error", "code": "made_private"}


@pytest.mark.django_db(transaction=True)
def test_a_lorebook_made_private_again_no_longer_reaches_another_accounts_chat(
        client, alice, bob, character):
    book = _call(client, alice, "post", "/api/v1/lorebooks", {
        "name": "Alice's secrets", "visibility": "shared",
        "entries": [{"keys": [], "constant": True, "content": "THE-VAULT-CODE-IS-7731",
                     "enabled": True}]}).json()
    lorebook_id = book.get("lorebook_id") or book["id"]
    chat = _call(client, bob, "post", "/api/v1/instances",
                 {"character_id": character}).json()["instance_id"]
    assert _call(client, bob, "put", f"/api/v1/instances/{chat}",
                 {"lorebook_ids": [lorebook_id]}).status_code == 200

    def prompt_of_a_turn() -> str:
        trace_id = _call(client, bob, "post", "/api/v1/chat",
                         {"instance_id": chat, "query": "hello"}).json()["trace_id"]
        return json.dumps(_call(client, bob, "get", f"/api/v1/traces/{trace_id}").json())

    assert "THE-VAULT-CODE-IS-7731" in prompt_of_a_turn()  # shared: bob's chat reads it
    assert _call(client, alice, "put", f"/api/v1/lorebooks/{lorebook_id}",
                 {**book, "visibility": "private"}).status_code == 200
    assert "THE-VAULT-CODE-IS-7731" not in prompt_of_a_turn()


@pytest.mark.django_db(transaction=True)
def test_a_private_book_a_shared_card_links_stays_with_its_author(client, alice, bob, store):
    """Alice shares Mira, who links Alice's private book: the book's text reaches neither
    Bob's prompt (nor so his prompt inspector) nor the card Bob downloads; Alice's own chat
    and download keep it, and sharing the book brings it to Bob."""
    book = _call(client, alice, "post", "/api/v1/lorebooks", {
        "name": "Alice's notes", "visibility": "private",
        "entries": [{"uid": 1, "keys": ["hello"], "content": "LORE-PRIVATE-7731"}]}).json()
    character_id = _call(client, alice, "post", "/api/v1/characters", {
        "name": "Mira", "visibility": "shared",
        "lorebook_ids": [book["lorebook_id"]]}).json()["character_id"]
    chats = {user: _call(client, user, "post", "/api/v1/instances",
                         {"character_id": character_id}).json()["instance_id"]
             for user in (alice, bob)}

    def cards(user) -> list[str]:
        """The card's text as each download carries it: JSON, the PNG's chunks, CHARX's."""
        def body(fmt):
            return _call(client, user, "get", f"/api/v1/characters/{character_id}/card.{fmt}"
                         ).content
        png = png_card_texts(png_chunks(body("png")))
        return [body("json").decode(), *(base64.b64decode(text).decode() for text in png.values()),
                json.dumps(charx_read(body("charx")).card)]

    assert "LORE-PRIVATE-7731" not in _trace_text(client, bob, chats[bob])
    assert [card for card in cards(bob) if "LORE-PRIVATE-7731" in card] == []
    assert "LORE-PRIVATE-7731" in _trace_text(client, alice, chats[alice])
    assert all("LORE-PRIVATE-7731" in card for card in cards(alice))

    _edit(client, alice, "lorebooks", book["lorebook_id"],
          {**store.lorebook_read(book["lorebook_id"]), "visibility": "shared"})
    assert "LORE-PRIVATE-7731" in _trace_text(client, bob, chats[bob])


@pytest.mark.django_db(transaction=True)
def test_a_shared_card_or_background_does_not_name_its_authors_private_book(client, alice, bob,
                                                                            store):
    """A book's id is its name's slug: a shared Mira and a shared background linking Alice's
    private "Diary of Bea" showed Bob `lorebook_ids: ["lore_diary_of_bea"]` (its name) over
    REST, in each item and in the lists. Alice still sees her link; sharing the book shows it."""
    book = _call(client, alice, "post", "/api/v1/lorebooks", {
        "name": "Diary of Bea", "visibility": "private",
        "entries": [{"uid": 1, "keys": ["x"], "content": "y"}]}).json()["lorebook_id"]
    made = {kind: _call(client, alice, "post", f"/api/v1/{kind}s", {
        "name": f"Open {kind}", "visibility": "shared", "lorebook_ids": [book]}).json()[
        f"{kind}_id"] for kind in ("character", "background")}

    def links(user) -> list[str]:
        return [_call(client, user, "get", url).content.decode() for kind, item_id in made.items()
                for url in (f"/api/v1/{kind}s/{item_id}", f"/api/v1/{kind}s")]

    assert [text for text in links(bob) if "diary_of_bea" in text] == []
    assert all(book in text for text in links(alice))
    _edit(client, alice, "lorebooks", book, {**store.lorebook_read(book), "visibility": "shared"})
    assert all(book in text for text in links(bob))
