"""Summarize and update memory on a chat longer than the context window (issue 30: a long chat
never stops): the session is asked in parts that each fit the window, the story so far carried
from part to part; update memory takes the newest turns that fit. Real turns' client against
the stub model, through the REST API."""

from __future__ import annotations

import json

import pytest

from chat.services.session_import import session_import
from personalab.lib.tokens import count_tokens
from tests.stub_llm import Fail, Reply

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("model_lengths_forgotten")]

WORDS = "the lantern swings over the wet cobbles while the tide comes in slowly"
WINDOW = 2048


@pytest.fixture
def long_chat(client, auth, store, instance, use_stub):
    """400 messages (~10,000 tokens) in a chat whose window is 2,048 tokens."""
    put = client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": WINDOW}},
                     content_type="application/json", **auth)
    assert put.status_code == 200
    records = [{"user_name": "Ann", "character_name": "Mira", "create_date": "2024-5-12",
                "chat_metadata": {}}]
    for n in range(400):
        records.append({"name": "Ann" if n % 2 == 0 else "Mira", "is_user": n % 2 == 0,
                        "is_system": False, "send_date": "May 12, 2024 5:41pm",
                        "mes": f"msg {n}: {WORDS}", "extra": {}})
    session_import(store, instance_id=instance,
                   data="".join(json.dumps(r) + "\n" for r in records).encode())
    return instance


def _events(*summaries: str) -> Reply:
    return Reply(json.dumps({"events": [{"summary": s, "plot": "1"} for s in summaries]}))


def _tokens(request: dict) -> int:
    return sum(count_tokens(m["content"]) + 4 for m in request["messages"]) + 3


def _sent(request: dict) -> str:
    return "\n".join(m["content"] for m in request["messages"])


def test_summarize_of_a_chat_longer_than_the_window_asks_in_parts_that_fit(
        client, auth, store, long_chat, use_stub):
    use_stub.script(*[_events(f"Part {n} happened.") for n in range(1, 40)])

    response = client.post(f"/api/v1/instances/{long_chat}/summarize", **auth)

    assert response.status_code == 200, response.content
    asked = [r for r in use_stub.requests if "msg " in _sent(r)]
    assert len(asked) >= 5  # ~10,000 tokens through a 2,048-token window
    for request in asked:
        assert _tokens(request) <= WINDOW - 512  # the window less the reply share
        # What the window leaves, not the server's own default (KoboldCpp's cut a summary)
        assert 512 <= request["max_tokens"] and _tokens(request) + request["max_tokens"] <= WINDOW
    sent = "\n".join(_sent(r) for r in asked)
    assert all(f"msg {n}:" in sent for n in range(400))  # every message asked, once
    assert sum(_sent(r).count("msg 0:") for r in asked) == 1
    assert "Part 1 happened." in _sent(asked[1])  # the story so far goes with the next part
    result = response.json()
    assert result["events"] == len(asked)
    summaries = [line["content"] for line in
                 store.session_read(long_chat, result["new_session_id"]).summaries]
    assert summaries == [f"Part {n} happened." for n in range(1, len(asked) + 1)]


def test_update_memory_on_a_long_chat_takes_the_newest_turns_that_fit(
        client, auth, store, long_chat, use_stub):
    store.module_write("memory", {**store.module_read("memory"),
                                  "update_memory_last_n_turns": 200})
    use_stub.script(Reply("She trusts Ann now."))

    response = client.post(f"/api/v1/instances/{long_chat}/update_memory", **auth)

    assert response.status_code == 200, response.content
    (request,) = [r for r in use_stub.requests if "msg " in _sent(r)]
    assert _tokens(request) <= WINDOW - 512
    assert 512 <= request["max_tokens"] and _tokens(request) + request["max_tokens"] <= WINDOW
    assert "msg 399:" in _sent(request) and "msg 0:" not in _sent(request)


def test_one_message_longer_than_the_window_is_summarized_shortened_in_the_middle(
        client, auth, store, long_chat, use_stub):
    """A pasted book in one message: its part is cut in the middle to fit, not refused on every
    try (the session could never be summarized)."""
    state = store.instance_state_read(long_chat)
    store.session_append(long_chat, state["current_session_id"], {
        "role": "user", "turn": 999, "timestamp": "2024-05-12T18:00:00Z",
        "content": "BOOK START " + WORDS * 800 + " BOOK END"})  # ~11,000 tokens
    use_stub.script(*[_events(f"Part {n} happened.") for n in range(1, 40)])

    response = client.post(f"/api/v1/instances/{long_chat}/summarize", **auth)

    assert response.status_code == 200, response.content
    asked = [r for r in use_stub.requests if "msg " in _sent(r) or "BOOK" in _sent(r)]
    assert all(_tokens(request) <= WINDOW - 512 for request in asked)
    book = next(_sent(r) for r in asked if "BOOK START" in _sent(r))
    assert "BOOK END" in book and "[…]" in book


def test_recaps_rebuilt_on_a_long_chat_ask_in_requests_that_fit_the_window(
        client, auth, store, long_chat, use_stub):
    """The rebuild asked the model with each chunk whole: a pasted book in one turn made its
    chunk a request over the window, refused by the server, so the recaps could not be rebuilt."""
    state = store.instance_state_read(long_chat)
    store.session_append(long_chat, state["current_session_id"], {
        "role": "user", "turn": 3, "timestamp": "2024-05-12T18:00:00Z",
        "content": "BOOK START " + WORDS * 800 + " BOOK END"})  # ~11,000 tokens
    store.module_write("memory", {**store.module_read("memory"), "recap_every_n_rounds": 50})
    use_stub.script(*[Reply(f"Recap {n}.") for n in range(1, 40)])

    response = client.post(f"/api/v1/instances/{long_chat}/recaps/rebuild", **auth)

    assert response.status_code == 200, response.content
    asked = [r for r in use_stub.requests if "msg " in _sent(r) or "BOOK" in _sent(r)]
    assert len(asked) == response.json()["chunks"] >= 4
    for request in asked:
        assert _tokens(request) <= WINDOW - 512
        assert _tokens(request) + request["max_tokens"] <= WINDOW


def test_a_summarize_failing_on_part_two_keeps_part_one_and_a_retry_goes_on_from_part_two(
        client, auth, store, long_chat, use_stub):
    """A long summarize that fails on part 2 of n loses nothing: the chat is as it was and the
    next turn plays, the error says which part failed and that the earlier ones are kept, and
    summarizing again asks from part 2 (part 1 is not asked again)."""
    session_before = store.instance_state_read(long_chat)["current_session_id"]
    file_before = store.session_path(long_chat, session_before).read_bytes()
    use_stub.script(_events("Part 1 happened."), Fail(500, "the server fell over"))

    failed = client.post(f"/api/v1/instances/{long_chat}/summarize", **auth)

    assert failed.status_code == 422, failed.content
    error = failed.json()["error"]
    assert error["part"] == 2 and error["parts"] >= 5 and error["parts_kept"] == 1
    assert f"Part 2 of {error['parts']} failed" in error["message"]
    assert "the parts before it are kept" in error["message"]
    assert store.instance_state_read(long_chat)["current_session_id"] == session_before
    assert store.session_path(long_chat, session_before).read_bytes() == file_before
    assert store.ledger_read(long_chat, "summaries") == []

    use_stub.script(Reply("The tide is in."))
    turn = client.post("/api/v1/chat", {"instance_id": long_chat, "query": "Shall we go?"},
                       content_type="application/json", **auth)
    assert turn.status_code == 200, turn.content
    assert turn.json()["answer_text"] == "The tide is in."

    asked_before = len(use_stub.requests)
    use_stub.script(*[_events(f"Part {n} happened.") for n in range(2, 40)])
    retried = client.post(f"/api/v1/instances/{long_chat}/summarize", **auth)

    assert retried.status_code == 200, retried.content
    asked = [r for r in use_stub.requests[asked_before:] if "msg " in _sent(r)]
    assert not any("msg 0:" in _sent(r) for r in asked)  # part 1 was kept, not asked again
    assert "Part 1 happened." in _sent(asked[0])  # the story so far includes the kept part
    result = retried.json()
    assert result["parts_reused"] == 1 and result["events"] == len(asked) + 1
    summaries = [line["content"] for line in
                 store.session_read(long_chat, result["new_session_id"]).summaries]
    assert summaries == [f"Part {n} happened." for n in range(1, len(asked) + 2)]
    assert not (store.memory_dir(long_chat) / "summarize_parts.json").exists()


def test_the_chat_page_says_in_the_readers_language_which_part_failed_and_that_none_was_lost(
        client, alice, store, long_chat, use_stub):
    client.force_login(alice)
    use_stub.script(_events("Part 1 happened."), Fail(500, "the server fell over"))
    page = client.post(f"/instances/{long_chat}/memory/summarize",
                       HTTP_ACCEPT_LANGUAGE="zh-CN", HTTP_HX_REQUEST="true").content.decode()
    assert "第 2 部分" in page and "之前的部分已保留" in page
