"""Attack: hand-edit a session file with lines that are valid JSON but odd (`"trace_id": "a/b"`,
a number as `content`, `"alternatives": 5`, ...). Before, every page that read the session gave a
lasting 500. Now the line is reported and skipped like a corrupt one; every page and API works."""

from __future__ import annotations

import json

import pytest

from chat.models import ApiToken
from tests.chat.chat_urls import chat_read_urls

pytestmark = pytest.mark.django_db(transaction=True)

ODD_LINES = [
    {"role": "assistant", "content": "x", "turn": 1, "trace_id": "a/b"},
    {"role": "assistant", "content": "x", "turn": 1, "trace_id": "../../../etc/passwd"},
    {"role": "assistant", "content": "x", "turn": 1, "trace_id": 7},
    {"role": "user", "content": 5, "turn": 1},
    {"role": "user", "content": None, "turn": 1},
    {"role": "assistant", "content": {"text": "x"}, "turn": 1},
    {"role": "assistant", "content": "x", "turn": 1, "alternatives": 5},
    {"role": "assistant", "content": "x", "turn": 1, "alternatives": [5, "y"]},
    {"role": "assistant", "content": "x", "turn": 1, "alternatives": [{"content": 3}]},
    {"role": "assistant", "content": "x", "turn": 1, "alternative_position": "0"},
    {"role": "assistant", "content": "x", "turn": "1"},
    {"role": "assistant", "content": "x", "turn": True},
    {"role": "assistant", "content": "x", "turn": 1.5},
    {"role": "assistant", "content": "x", "turn": -1},
    {"role": 5, "content": "x", "turn": 1},
    {"role": "wizard", "content": "x", "turn": 1},
    {"role": "assistant", "content": "x", "turn": 1, "timestamp": 5},
    {"role": "assistant", "content": "x", "turn": 1, "edited": "yes"},
    {"type": "summary", "content": 7},
]


def _hand_edit(store, instance_id, line: dict) -> None:
    with store.session_path(instance_id, "sess_001").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"role": "user", "content": "good question", "turn": 1}) + "\n")
        handle.write(json.dumps(line) + "\n")
        handle.write(json.dumps({"role": "assistant", "content": "good answer", "turn": 1}) + "\n")


def _chat(client, instance_id, auth) -> dict:
    response = client.post("/api/v1/chat", json.dumps({"instance_id": instance_id, "query": "hi"}),
                           content_type="application/json", **auth)
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize("line", ODD_LINES, ids=[json.dumps(line) for line in ODD_LINES])
def test_odd_line_is_reported_and_every_page_still_works(client, alice, store, instance, line):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    client.force_login(alice)
    _hand_edit(store, instance, line)

    read = store.session_read(instance, "sess_001")
    assert len(read.problems) == 1 and read.problems[0].line_number == 3
    assert [m["content"] for m in read.messages] == ["good question", "good answer"]

    reply = _chat(client, instance, auth)
    assert reply["answer_text"]
    assert any(w.get("category") == "corrupt_session_lines" for w in reply["warnings"])
    for url in chat_read_urls(instance, reply["trace_id"]):
        response = client.get(url, **auth)
        assert response.status_code < 500, (url, response.status_code)
        assert response.status_code == 200, (url, response.status_code)

    summarize = client.post(f"/api/v1/instances/{instance}/summarize", **auth)
    assert summarize.status_code < 500, summarize.content
    assert json.dumps(line) in store.session_path(instance, "sess_001").read_text(encoding="utf-8")
