"""Regenerate, continue, a swipe, an edit or a delete near the end of a session touch only the
file's tail (personalab/lib/session_tail.py): what the page, the file, the backups and an old
trace's replay show after each, and after a crash at every step of the change."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from personalab.lib.session_tail import journal_path
from tests.chat.tail_crashes import TailCrash, tail_crash_at
from tests.socket_tabs import events_until_done, tab_connect
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
EARLY_TURNS = 200


def _older_turns(store, instance_id, turns=EARLY_TURNS):
    for turn in range(1, turns + 1):
        store.session_append(instance_id, "sess_001", {
            "role": "user", "content": f"question {turn}", "turn": turn,
            "timestamp": "2025-01-01T00:00:00Z"})
        store.session_append(instance_id, "sess_001", {
            "role": "assistant", "content": f"answer {turn}", "turn": turn,
            "timestamp": "2025-01-01T00:00:01Z"})


def _file(store, instance_id) -> bytes:
    return store.session_path(instance_id, "sess_001").read_bytes()


def _last_lines(store, instance_id, count=2) -> list[dict]:
    return [json.loads(line) for line in _file(store, instance_id).splitlines()[-count:]]


def _backups(store, instance_id) -> list[Path]:
    return sorted((store.sessions_dir(instance_id) / "history").glob("sess_001.*.jsonl"))


def _rows(call, instance_id) -> list[dict]:
    response = call("get", f"/api/v1/instances/{instance_id}/sessions/sess_001/messages")
    assert response.status_code == 200, response.content
    assert response.json()["problems"] == []
    return response.json()["rows"]


async def _ws(alice, instance_id, frame) -> list[dict]:
    communicator, connected = await tab_connect(alice, instance_id)
    assert connected
    try:
        await communicator.send_json_to(frame)
        return await events_until_done(communicator)
    finally:
        await communicator.disconnect()


def _ws_run(alice, instance_id, frame) -> list[dict]:
    return asyncio.run(_ws(alice, instance_id, frame))


def _trace(call, trace_id) -> dict:
    response = call("get", f"/api/v1/traces/{trace_id}")
    assert response.status_code == 200, response.content
    return response.json()


def test_regenerate_continue_and_swipe_rewrite_only_the_last_reply(
        alice, as_alice, store, instance, use_stub):
    _older_turns(store, instance)
    use_stub.script(Reply("the first reply"))
    first = _ws_run(alice, instance, {"type": "send", "content": "tell me"})
    assert first[-1]["type"] == "done"
    first_prompt = use_stub.requests[-1]["messages"]
    before = _file(store, instance)
    reply_start = before.rindex(b"\n", 0, len(before) - 1) + 1

    use_stub.script(Reply("the second reply"))
    regenerated = _ws_run(alice, instance, {"type": "regenerate"})
    assert regenerated[-1]["type"] == "done", regenerated[-1]
    after = _file(store, instance)
    assert after[:reply_start] == before[:reply_start]  # every earlier byte as it was
    line = _last_lines(store, instance, 1)[0]
    assert line["content"] == "the second reply"
    assert [alt["content"] for alt in line["alternatives"]] == ["the first reply"]
    # The backup holds the reply it replaced, not a copy of the whole session.
    backup = _backups(store, instance)[-1].read_text(encoding="utf-8")
    assert "the first reply" in backup and "question 1\"" not in backup
    assert use_stub.requests[-1]["messages"] == first_prompt  # the same prompt again

    use_stub.script(Reply(" and more"))
    continued = _ws_run(alice, instance, {"type": "continue"})
    assert continued[-1]["type"] == "done", continued[-1]
    row = _rows(as_alice, instance)[-1]
    assert row["content"] == "the second reply and more" and row["versions"] == 2

    swiped = as_alice("post", f"/api/v1/instances/{instance}/sessions/sess_001/swipe",
                      {"turn": row["turn"], "alternative": 0})
    assert swiped.status_code == 200, swiped.content
    rows = _rows(as_alice, instance)
    assert rows[-1]["content"] == "the first reply"
    assert rows[-2]["content"] == "tell me"
    assert _file(store, instance)[:reply_start] == before[:reply_start]
    exported = as_alice("get", f"/api/v1/instances/{instance}/sessions/sess_001/export"
                               "?format=jsonl")
    last = json.loads(exported.content.splitlines()[-1])
    assert last["mes"] == "the first reply"
    assert last["swipes"][last["swipe_id"]] == "the first reply"
    assert "the second reply and more" in last["swipes"]
    trace = _trace(as_alice, first[-1]["trace_id"])
    assert trace["messages"] == first_prompt and trace["conversation_source"] == "session"


def test_an_edit_and_a_delete_at_the_end_undo_to_the_same_bytes_and_old_traces_replay(
        alice, as_alice, store, instance, use_stub):
    _older_turns(store, instance, 20)
    use_stub.script(Reply("reply one"))
    _ws_run(alice, instance, {"type": "send", "content": "the door was open"})
    use_stub.script(Reply("reply two"))
    second = _ws_run(alice, instance, {"type": "send", "content": "and then?"})
    sent = use_stub.requests[-1]["messages"]
    assert any(message["content"] == "the door was open" for message in sent)
    before = _file(store, instance)
    base = f"/api/v1/instances/{instance}/sessions/sess_001/messages"

    def change(method, content, **body):
        row = next(r for r in _rows(as_alice, instance) if r["content"] == content)
        if method == "delete":
            response = as_alice("delete", f"{base}/{row['index']}?fingerprint={row['fingerprint']}")
        else:
            response = as_alice("put", f"{base}/{row['index']}",
                                {"fingerprint": row["fingerprint"], **body})
        assert response.status_code == 200, response.content
        return response.json()["undo_token"]

    def undo(token):
        return as_alice("post", f"/api/v1/instances/{instance}/history/undo", {"token": token})

    assert undo(change("put", "the door was open", text="the door was shut")).status_code == 200
    assert _file(store, instance) == before
    edit = change("put", "the door was open", text="the door was shut")
    after_edit = _file(store, instance)
    delete = change("delete", "reply two")
    contents = [row["content"] for row in _rows(as_alice, instance)]
    assert contents[-3:] == ["the door was shut", "reply one", "and then?"]
    assert len(_backups(store, instance)) == 4  # the undo is a change too
    assert all(b"question 1\"" not in path.read_bytes() for path in _backups(store, instance))

    # The second turn's prompt is in no file now: the backups give back the state it came from.
    trace = _trace(as_alice, second[-1]["trace_id"])
    assert trace["messages"] == sent
    assert trace["session_edited"] is True
    assert trace["conversation_source"].startswith("history/")

    assert undo(delete).status_code == 200
    assert _file(store, instance) == after_edit
    assert undo(edit).status_code == 200
    assert _file(store, instance) == before
    trace = _trace(as_alice, second[-1]["trace_id"])
    assert trace["messages"] == sent and trace["conversation_source"] == "session"
    # An undo after a later turn would drop that turn: refused, as before.
    late = change("put", "reply two", text="reply 2")
    use_stub.script(Reply("reply three"))
    _ws_run(alice, instance, {"type": "send", "content": "go on"})
    assert undo(late).status_code == 409
    assert [row["content"] for row in _rows(as_alice, instance)][-3:] == [
        "reply 2", "go on", "reply three"]


@pytest.mark.parametrize("step", ["journal", "torn", "written"])
def test_a_crash_at_any_step_of_a_change_leaves_the_old_or_the_new_session(
        as_alice, store, instance, monkeypatch, step):
    _older_turns(store, instance, 20)
    before = _file(store, instance)
    row = next(r for r in _rows(as_alice, instance) if r["content"] == "question 20")
    url = (f"/api/v1/instances/{instance}/sessions/sess_001/messages/{row['index']}"
           f"?fingerprint={row['fingerprint']}")
    tail_crash_at(monkeypatch, step)
    with pytest.raises(TailCrash):
        as_alice("delete", url)
    monkeypatch.undo()
    assert journal_path(store.session_path(instance, "sess_001")).exists()

    contents = [r["content"] for r in _rows(as_alice, instance)]  # opening repairs first
    assert not journal_path(store.session_path(instance, "sess_001")).exists()
    if step == "written":  # the new tail was whole: the delete stands, its backup kept
        assert contents[-2:] == ["answer 19", "answer 20"]
        assert _file(store, instance) == before.replace(
            before.splitlines(keepends=True)[-2], b"")
        assert b"question 20" in _backups(store, instance)[-1].read_bytes()
    else:
        assert contents[-2:] == ["question 20", "answer 20"]
        assert _file(store, instance) == before
    assert as_alice("delete", url).status_code == (409 if step == "written" else 200)


KILL_SCRIPT = """
import os, signal, sys
from personalab.lib import session_tail
from personalab.lib.filestore.store import FileStore

def torn(path, offset, tail):
    with open(path, "r+b") as handle:
        handle.seek(offset)
        handle.write(tail[:len(tail) // 2])
        handle.flush()
    os.kill(os.getpid(), signal.SIGKILL)

session_tail._tail_write = torn
store = FileStore(sys.argv[1])
read = store.session_read(sys.argv[2], "sess_001")
store.session_tail_replace(sys.argv[2], "sess_001", first=len(read.lines) - 1, lines=[],
                           then=b'{"role":"assistant","turn":20,"streaming":true,"content":"')
"""


def test_kill_9_mid_regenerate_then_the_page_shows_the_old_reply_and_regenerate_works(
        alice, as_alice, store, instance, use_stub, data_dir):
    _older_turns(store, instance, 20)
    before = _file(store, instance)
    killed = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(data_dir), instance],
                            cwd=ROOT, capture_output=True, timeout=60)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert _file(store, instance) != before  # torn: half a head over the old reply

    assert _rows(as_alice, instance)[-1]["content"] == "answer 20"
    assert _file(store, instance) == before
    use_stub.script(Reply("answer 20, again"))
    events = _ws_run(alice, instance, {"type": "regenerate"})
    assert events[-1]["type"] == "done", events[-1]
    line = _last_lines(store, instance, 1)[0]
    assert line["content"] == "answer 20, again"
    assert [alt["content"] for alt in line["alternatives"]] == ["answer 20"]
