"""Opening a long chat parses only its newest lines, with the same tolerance as a full read."""

from __future__ import annotations

import json

import pytest

from personalab.lib.filestore.session_read import read_session_file, read_session_tail
from personalab.lib.filestore.store import FileStore


@pytest.fixture()
def fs(tmp_path):
    return FileStore(tmp_path / "data")


def _session(fs: FileStore, turns: int) -> str:
    lines = []
    for turn in range(1, turns + 1):
        lines.append({"role": "user", "content": f"question {turn}", "turn": turn})
        lines.append({"role": "assistant", "content": f"answer {turn}", "turn": turn})
    fs.session_create("inst_0001", "sess_0001", lines=lines)
    return str(fs.session_path("inst_0001", "sess_0001"))


def _append_raw(fs: FileStore, raw: bytes) -> None:
    with fs.session_path("inst_0001", "sess_0001").open("ab") as handle:
        handle.write(raw)


def test_tail_read_returns_the_newest_messages_and_leaves_older_ones(fs):
    _session(fs, 500)
    read = fs.session_read("inst_0001", "sess_0001", newest=10)
    assert [line["content"] for line in read.messages] == [
        f"{kind} {turn}" for turn in range(496, 501) for kind in ("question", "answer")]
    assert read.metadata["session_id"] == "sess_0001"
    assert read.last_turn == 500
    assert read.complete is False
    assert read.problems == []


def test_tail_read_of_a_short_session_is_the_whole_session(fs):
    _session(fs, 3)
    tail = fs.session_read("inst_0001", "sess_0001", newest=40)
    full = fs.session_read("inst_0001", "sess_0001")
    assert tail.complete is True
    assert tail.lines == full.lines and tail.metadata == full.metadata


def test_corrupt_and_odd_lines_in_the_tail_are_reported_like_a_full_read(fs):
    _session(fs, 50)
    _append_raw(fs, b'{"role": "user", "content": "not closed\n'
                    b'{"role": "assistant", "content": 5, "turn": 51}\n'
                    b'[1, 2]\n\n'
                    + json.dumps({"role": "user", "content": "after the damage",
                                  "turn": 52}).encode() + b"\n")
    writer = fs.assistant_writer("inst_0001", "sess_0001", turn=52).open()
    writer.append("cut by kill -9, still stre")  # never finished, as after kill -9
    path = fs.session_path("inst_0001", "sess_0001")
    tail, full = read_session_tail(path, messages=4), read_session_file(path)
    assert tail.lines == full.lines[-len(tail.lines):]
    assert [line["content"] for line in tail.messages][-1] == "after the damage"
    assert [(p.line_number, p.reason) for p in tail.problems] == [
        (p.line_number, p.reason) for p in full.problems]
    assert tail.partial == full.partial
    assert tail.partial["content"] == "cut by kill -9, still stre"
    assert tail.last_turn == full.last_turn
    writer.close_quietly()


def test_a_torn_last_line_that_is_not_a_reply_is_reported_at_its_line_number(fs):
    _session(fs, 20)
    _append_raw(fs, b'{"type": "summary", "cont')
    path = fs.session_path("inst_0001", "sess_0001")
    tail, full = read_session_tail(path, messages=2), read_session_file(path)
    assert [(p.line_number, p.reason) for p in tail.problems] == [(42, "unfinished line")]
    assert [(p.line_number, p.reason) for p in full.problems] == [(42, "unfinished line")]


def test_a_file_without_its_metadata_line_says_so(fs):
    path = fs.session_path("inst_0001", "sess_0001")
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps({"role": "user", "content": f"m{n}", "turn": n}) + "\n"
                            for n in range(1, 4)))
    tail, full = read_session_tail(path, messages=10), read_session_file(path)
    assert tail.lines == full.lines
    assert [p.reason for p in tail.problems] == [p.reason for p in full.problems]


def test_reconnect_finds_an_old_turn_beyond_the_newest_lines(alice_client, instance, store):
    for turn in range(1, 31):
        for role in ("user", "assistant"):
            store.session_append(instance, "sess_001", {"role": role, "content": f"{role} {turn}",
                                                        "turn": turn})
    url = f"/api/v1/instances/{instance}/sessions/sess_001/current_response"
    newest = alice_client.get(url).json()
    old = alice_client.get(f"{url}?turn=3").json()
    assert (newest["turn"], newest["content"], newest["status"]) == (30, "assistant 30", "complete")
    assert (old["turn"], old["content"], old["status"]) == (3, "assistant 3", "complete")
