"""History manager over REST: the page's edit / delete / undo / swipe / branch / archive, each
refused to another account exactly as the page refuses it (404, nothing changed)."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.rest_client import bearer_caller

pytestmark = pytest.mark.django_db


@pytest.fixture
def chatted(store, instance):
    for turn in (1, 2):
        store.session_append(instance, "sess_001", {"role": "user", "content": f"question {turn}",
                                                    "turn": turn, "timestamp": "2025-01-01"})
        store.session_append(instance, "sess_001", {
            "role": "assistant", "content": f"answer {turn}", "turn": turn,
            "timestamp": "2025-01-01", "alternatives": [{"content": f"other answer {turn}"}]})
    return instance


def _rows(call, instance, session="sess_001"):
    response = call("get", f"/api/v1/instances/{instance}/sessions/{session}/messages")
    assert response.status_code == 200
    return {row["content"]: row for row in response.json()["rows"]}


def _file(store, instance, session="sess_001"):
    return store.session_path(instance, session).read_bytes()


def test_edit_then_undo_restores_the_file(as_alice, store, chatted):
    before = _file(store, chatted)
    row = _rows(as_alice, chatted)["answer 1"]
    url = f"/api/v1/instances/{chatted}/sessions/sess_001/messages/{row['index']}"
    edited = as_alice("put", url, {"fingerprint": row["fingerprint"], "text": "answer one"})
    assert edited.status_code == 200 and edited.json()["line"]["content"] == "answer one"
    assert "answer one" in _rows(as_alice, chatted)
    undone = as_alice("post", f"/api/v1/instances/{chatted}/history/undo",
                      {"token": edited.json()["undo_token"]})
    assert undone.status_code == 200 and undone.json()["undone"] == "edit"
    assert _file(store, chatted) == before


def test_delete_removes_the_line_and_a_stale_fingerprint_is_409(as_alice, store, chatted):
    row = _rows(as_alice, chatted)["question 2"]
    url = f"/api/v1/instances/{chatted}/sessions/sess_001/messages/{row['index']}"
    assert as_alice("delete", f"{url}?fingerprint={row['fingerprint']}").status_code == 200
    assert "question 2" not in _rows(as_alice, chatted)
    stale = as_alice("delete", f"{url}?fingerprint={row['fingerprint']}")
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "history_refused"


def test_an_edit_without_text_is_400_naming_the_field(as_alice, store, chatted):
    before = _file(store, chatted)
    row = _rows(as_alice, chatted)["answer 1"]
    response = as_alice("put", f"/api/v1/instances/{chatted}/sessions/sess_001/messages/"
                               f"{row['index']}", {"fingerprint": row["fingerprint"]})
    assert response.status_code == 400 and "text" in response.json()["error"]["fields"]
    assert _file(store, chatted) == before


def test_swipe_shows_another_version_of_the_latest_reply(as_alice, store, chatted):
    response = as_alice("post", f"/api/v1/instances/{chatted}/sessions/sess_001/swipe",
                        {"turn": 2, "alternative": 0})
    assert response.status_code == 200 and response.json()["version"] == 1
    assert store.session_read(chatted, "sess_001").messages[-1]["content"] == "other answer 2"
    refused = as_alice("post", f"/api/v1/instances/{chatted}/sessions/sess_001/swipe",
                       {"turn": 1, "alternative": 0})
    assert refused.status_code == 409


def test_branch_makes_a_new_current_session_and_keeps_the_old(as_alice, store, chatted):
    before = _file(store, chatted)
    row = _rows(as_alice, chatted)["answer 1"]
    response = as_alice("post", f"/api/v1/instances/{chatted}/sessions/sess_001/branch",
                        {"index": row["index"], "fingerprint": row["fingerprint"]})
    assert response.status_code == 201 and response.json()["session_id"] == "sess_002"
    assert list(_rows(as_alice, chatted, "sess_002")) == ["question 1", "answer 1"]
    assert response.json()["message_count"] == len(_rows(as_alice, chatted, "sess_002"))
    assert _file(store, chatted) == before
    detail = as_alice("get", f"/api/v1/instances/{chatted}").json()
    assert detail["current_session_id"] == "sess_002"


def test_the_history_page_branches_an_older_session_the_way_back_to_it(as_alice, alice_client,
                                                                      store, chatted):
    """After a branch the old session could be read, not gone on with: its rows now have
    Branch too, which makes the old line the chat's current one again."""
    row = _rows(as_alice, chatted)["answer 1"]
    as_alice("post", f"/api/v1/instances/{chatted}/sessions/sess_001/branch",
             {"index": row["index"], "fingerprint": row["fingerprint"]})
    page = alice_client.get(f"/instances/{chatted}/history/?session=sess_001").content.decode()
    last = _rows(as_alice, chatted)["answer 2"]
    branch = (f'<form method="post" action="/instances/{chatted}/messages/change" '
              f'data-api="branch" data-url="/api/v1/instances/{chatted}/sessions/'
              f'sess_001/branch" data-index="{last["index"]}" '
              f'data-fingerprint="{last["fingerprint"]}" data-chat="/instances/{chatted}/">')
    assert branch in page
    response = as_alice("post", f"/api/v1/instances/{chatted}/sessions/sess_001/branch",
                        {"index": last["index"], "fingerprint": last["fingerprint"]})
    assert response.status_code == 201 and response.json()["session_id"] == "sess_003"
    detail = as_alice("get", f"/api/v1/instances/{chatted}").json()
    assert detail["current_session_id"] == "sess_003"
    assert list(_rows(as_alice, chatted, "sess_003")) == list(_rows(as_alice, chatted))


def test_an_older_sessions_versions_flip_there_and_leave_the_current_chat_alone(
        as_alice, alice_client, store, chatted):
    """History's ‹ › on an older (not current, not archived) conversation's last reply: that
    conversation is not read-only (Edit, Delete and Branch are offered there too), and the
    version chosen is what a branch from it goes on with; the chat and its story stay put."""
    row = _rows(as_alice, chatted)["answer 1"]
    as_alice("post", f"/api/v1/instances/{chatted}/sessions/sess_001/branch",
             {"index": row["index"], "fingerprint": row["fingerprint"]})
    state = store.instance_state_read(chatted)
    current = _file(store, chatted, "sess_002")
    page = alice_client.get(f"/instances/{chatted}/history/rows",
                            {"session": "sess_001"}).content.decode()
    assert 'data-api="swipe"' in page and "2/2" in page
    response = as_alice("post", f"/api/v1/instances/{chatted}/sessions/sess_001/swipe",
                        {"turn": 2, "alternative": 0})
    assert response.status_code == 200 and response.json()["director_reapplied"] is False
    assert store.session_read(chatted, "sess_001").messages[-1]["content"] == "other answer 2"
    assert store.instance_state_read(chatted) == state
    assert _file(store, chatted, "sess_002") == current


def test_archive_moves_the_session_and_starts_a_fresh_one(as_alice, store, chatted):
    response = as_alice("post", f"/api/v1/instances/{chatted}/sessions/sess_001/archive")
    assert response.status_code == 200 and response.json()["current_session_id"] == "sess_002"
    sessions = as_alice("get", f"/api/v1/instances/{chatted}/sessions").json()["sessions"]
    archived = [row for row in sessions if row["archived"]]
    assert [row["session_id"] for row in archived] == ["sess_001"]
    # An archived session stays readable by its key, and read-only.
    assert "answer 1" in _rows(as_alice, chatted, archived[0]["key"])


def test_another_account_gets_404_for_every_history_route_and_nothing_changes(
        as_alice, as_bob, store, chatted):
    row = _rows(as_alice, chatted)["answer 1"]
    token = as_alice("put", f"/api/v1/instances/{chatted}/sessions/sess_001/messages/"
                            f"{row['index']}",
                     {"fingerprint": row["fingerprint"], "text": "mine"}).json()["undo_token"]
    row = _rows(as_alice, chatted)["mine"]
    before = _file(store, chatted)
    base = f"/api/v1/instances/{chatted}"
    session = f"{base}/sessions/sess_001"
    attacks = [("get", f"{base}/sessions", None), ("get", f"{session}/messages", None),
               ("put", f"{session}/messages/{row['index']}",
                {"fingerprint": row["fingerprint"], "text": "bob was here"}),
               ("delete", f"{session}/messages/{row['index']}?fingerprint={row['fingerprint']}",
                None),
               ("post", f"{base}/history/undo", {"token": token}),
               ("post", f"{session}/swipe", {"turn": 2, "alternative": 0}),
               ("post", f"{session}/branch",
                {"index": row["index"], "fingerprint": row["fingerprint"]}),
               ("post", f"{session}/archive", None)]
    for method, url, body in attacks:
        response = as_bob(method, url, body)
        assert response.status_code == 404, (method, url, response.status_code)
        assert "mine" not in response.content.decode()
    assert _file(store, chatted) == before and store.session_ids(chatted) == ["sess_001"]


def test_chat_import_and_export_are_refused_to_another_account(client, bob, alice, store,
                                                               chatted):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from chat.models import ApiToken

    line = '{"name": "you", "is_user": true, "mes": "bob writes into alice"}\n'
    bob_auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(bob)}"}
    imported = client.post(f"/api/v1/instances/{chatted}/import_chat",
                           {"file": SimpleUploadedFile("chat.jsonl", line.encode())}, **bob_auth)
    assert imported.status_code == 404 and store.session_ids(chatted) == ["sess_001"]
    exported = client.get(f"/api/v1/instances/{chatted}/sessions/sess_001/export", **bob_auth)
    assert exported.status_code == 404 and b"answer 1" not in exported.content
    alice_auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    mine = client.get(f"/api/v1/instances/{chatted}/sessions/sess_001/export?format=md",
                      **alice_auth)
    assert mine.status_code == 200 and "answer 1" in mine.content.decode()
    # titled as the player knows the chat, not by its ids (newcomer round)
    assert mine.content.decode().splitlines()[0] == "# Alserqi · conversation 1"
    bad = client.get(f"/api/v1/instances/{chatted}/sessions/sess_001/export?format=pdf",
                     **alice_auth)
    assert bad.status_code == 400 and "format" in bad.json()["error"]["fields"]


@pytest.mark.parametrize("method, path", [
    ("get", "current_response"), ("get", "export?format=md"), ("post", "archive"),
    ("post", "regroup")])
def test_every_session_route_answers_an_unknown_or_archived_session_alike(
        as_alice, store, chatted, method, path):
    base = f"/api/v1/instances/{chatted}/sessions"
    missing = as_alice(method, f"{base}/sess_404/{path}")
    assert missing.status_code == 404, missing.content
    assert missing.json()["error"] == {"code": "not_found", "fields": {},
                                       "message": "session 'sess_404' not found"}
    malformed = as_alice(method, f"{base}/Sess.404/{path}")
    assert malformed.status_code == 400, malformed.content
    store.session_archive(chatted, "sess_001")
    archived = as_alice(method, f"{base}/sess_001/{path}")
    assert archived.status_code == 404
    assert archived.json()["error"]["message"] == "session 'sess_001' not found"


def _call(client, user, method, url, body=None):
    return bearer_caller(client, user)(method, url, body)


def _sse_events(response) -> list[tuple[str, dict]]:
    async def read() -> bytes:
        return b"".join([chunk async for chunk in response.streaming_content])

    body = asyncio.run(read()).decode()
    events, name = [], None
    for line in body.splitlines():
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            events.append((name, json.loads(line[5:])))
    return events


@pytest.mark.django_db(transaction=True)
def test_regenerate_and_continue_have_rest_endpoints_like_the_pages_buttons(
        client, alice, bob, instance, store, use_stub):
    """SPEC §10: every page action has a REST endpoint with the same permission checks; ↻ and →
    were WebSocket-only."""
    from tests.stub_llm import Reply

    use_stub.script(Reply("first"), Reply("second"), Reply(" and more"))
    _call(client, alice, "post", "/api/v1/chat", {"instance_id": instance, "query": "hi"})
    assert _call(client, bob, "post",
                 f"/api/v1/instances/{instance}/regenerate").status_code == 404
    regenerated = _call(client, alice, "post", f"/api/v1/instances/{instance}/regenerate")
    assert regenerated.status_code == 200
    assert regenerated.json()["answer_text"] == "second"
    assert regenerated.json()["trace_id"].startswith("trc_")
    events = _sse_events(_call(client, alice, "post",
                               f"/api/v1/instances/{instance}/continue?stream=true"))
    assert events[-1][0] == "done" and any(name == "token" for name, _ in events)
    last = store.session_read(instance, "sess_001").messages[-1]
    assert last["content"].startswith("second") and last["content"].endswith("and more")
    assert [a["content"] for a in last.get("alternatives", [])] == ["first"]


@pytest.mark.django_db(transaction=True)
def test_regenerate_when_the_chat_ends_with_the_players_line_asks_for_the_missing_reply(
        client, alice, instance, store, use_stub):
    from tests.stub_llm import Reply

    use_stub.script(Reply("at last"))
    store.session_append(instance, "sess_001", {"role": "user", "content": "anyone?", "turn": 1})
    response = _call(client, alice, "post", f"/api/v1/instances/{instance}/regenerate")
    assert response.status_code == 200 and response.json()["answer_text"] == "at last"
    assert [m["content"] for m in store.session_read(instance, "sess_001").messages[-2:]] == [
        "anyone?", "at last"]


@pytest.mark.django_db(transaction=True)
def test_the_reply_asked_for_after_a_deleted_one_answers_the_players_turn(
        client, alice, instance, store, use_stub):
    """The missing reply was written under the next turn number: the player's turn stayed
    "pending" for ever and the reply answered no turn (long-chat probe)."""
    from tests.stub_llm import Reply

    use_stub.script(Reply("one"), Reply("two"), Reply("two again"), Reply("three"))
    for text in ("first", "second"):
        assert _call(client, alice, "post", "/api/v1/chat",
                     {"instance_id": instance, "query": text}).status_code == 200
    session = f"/api/v1/instances/{instance}/sessions/sess_001"
    row = _call(client, alice, "get", f"{session}/messages").json()["rows"][-1]
    assert row["content"] == "two"
    deleted = _call(client, alice, "delete",
                    f"{session}/messages/{row['index']}?fingerprint={row['fingerprint']}")
    assert deleted.status_code == 200, deleted.content
    response = _call(client, alice, "post", f"/api/v1/instances/{instance}/regenerate")
    assert response.status_code == 200 and response.json()["turn"] == 2
    assert response.json()["speaker"] is None  # one character: no group's member named
    assert "speaker" not in store.session_read(instance, "sess_001").messages[-1]
    messages = store.session_read(instance, "sess_001").messages
    assert [(m["role"], m["turn"]) for m in messages[-2:]] == [("user", 2), ("assistant", 2)]
    current = _call(client, alice, "get", f"{session}/current_response?turn=2").json()
    assert (current["status"], current["content"]) == ("complete", "two again")
    assert _call(client, alice, "post", "/api/v1/chat",
                 {"instance_id": instance, "query": "third"}).json()["turn"] == 3
