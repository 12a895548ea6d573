"""kill -9 of a Daphne process mid-stream, then reload: the file loads and the partial reply is
kept, completed in the file and marked interrupted."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.prepared_data import prepared_copy, prepared_env
from tests.stub_llm import Reply, StubLLM

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _daphne(env, port):
    process = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
         "personalab.asgi:application"], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # A readiness wait, not a speed check: on a loaded two-core machine 30 s was too short.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("daphne did not start")


@pytest.fixture
def server_env(tmp_path, stub_llm, prepared_data):
    """The demo's data folder (migrated, bootstrapped, seeded: tests/prepared_data.py), a copy
    of its own, and an admin token."""
    copy = prepared_copy(prepared_data, tmp_path)
    env = {**prepared_env(copy.data, copy.secret), "OPENAI_BASE_URL": stub_llm.base_url,
           "OPENAI_API_KEY": "k", "PERSONALAB_MODEL": "stub"}
    return env, copy.data, copy.token


def _kill_9_mid_stream(env, data, token, query: str, killed_after,
                      then=None) -> tuple[dict, Path]:
    """A streamed turn on a Daphne process killed with SIGKILL once `killed_after(kinds,
    text)` says so (kinds: the SSE event names read so far; text: the reply's characters they
    carried, as a token event may carry only a shown update), then a restarted server's answer
    for the reply; and the session file. `then(get, current)`: more asked of the restarted
    server (`get(path)`: its JSON answer)."""
    port = _free_port()
    server = _daphne(env, port)
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/chat", method="POST",
        data=json.dumps({"instance_id": "inst_001", "query": query, "stream": True}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            kinds: list[str] = []
            text = ""
            while not killed_after(kinds, text):
                line = response.readline()
                assert line, f"the reply ended before the kill: {kinds}"
                if line.startswith(b"event: "):
                    kinds.append(line[7:].decode().strip())
                elif line.startswith(b"data: ") and kinds[-1:] == ["token"]:
                    text += json.loads(line[6:])["content"]
            os.kill(server.pid, signal.SIGKILL)
    finally:
        server.wait(timeout=10)
    session = data / "instances" / "inst_001" / "sessions" / "sess_003.jsonl"
    assert not session.read_bytes().endswith(b"\n")  # killed mid-line

    server = _daphne(env, port)
    try:
        reload = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/v1/instances/inst_001/sessions/sess_003/"
            "current_response?turn=42", headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(reload, timeout=20) as response:
            current = json.loads(response.read())

        def get(path: str) -> dict:
            asked = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                           headers={"Authorization": f"Bearer {token}"})
            with urllib.request.urlopen(asked, timeout=20) as answer:
                return json.loads(answer.read())

        if then is not None:
            then(get, current)
        return current, session
    finally:
        server.kill()
        server.wait(timeout=10)


@dataclass(frozen=True)
class CutReply:
    current: dict  # the restarted server's answer for the reply
    lines: list[dict]  # the session file's lines after the restart
    trace: dict  # the restarted server's trace of the cut turn
    sent: list[dict]  # the messages the model was sent


@pytest.fixture(scope="module")
def cut_reply(tmp_path_factory, prepared_data) -> Iterator[CutReply]:
    """One reply cut by kill -9 after 20 streamed characters and read back from a restarted
    server, shared by the tests of what survives it: each Daphne start costs seconds of CPU
    (issue 31), and the tests only read what the cut left."""
    stub = StubLLM()
    try:
        copy = prepared_copy(prepared_data, tmp_path_factory.mktemp("cut"))
        env = {**prepared_env(copy.data, copy.secret), "OPENAI_BASE_URL": stub.base_url,
               "OPENAI_API_KEY": "k", "PERSONALAB_MODEL": "stub"}
        stub.script(Reply("断" * 400, chunk_size=1, delay=0.02))
        traces: list[dict] = []
        current, session = _kill_9_mid_stream(
            env, copy.data, copy.token, "说下去", lambda kinds, text: len(text) >= 20,
            then=lambda get, current: traces.append(
                get(f"/api/v1/traces/{current['trace_id']}")))
        lines = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
        yield CutReply(current, lines, traces[0], stub.requests[-1]["messages"])
    finally:
        stub.stop()


def test_kill_9_mid_stream_then_reload_keeps_the_partial_reply(cut_reply):
    current, lines = cut_reply.current, cut_reply.lines
    assert current["interrupted"] is True and current["content"].startswith("断" * 20)
    assert lines[-1]["interrupted"] is True and lines[-1]["content"] == current["content"]
    assert lines[-2] == {**lines[-2], "role": "user", "content": "说下去", "turn": 42}


def test_kill_9_mid_stream_keeps_the_prompt_that_was_sent_for_the_inspector(cut_reply):
    """The reply's "Prompt" link works after a crash: the trace of what was sent was written
    before the reply, and says the reply was interrupted and what of it was kept."""
    trace = cut_reply.trace
    assert trace["unfinished"] is True and "finished_at" not in trace
    assert trace["reply"]["interrupted"] is True
    assert trace["reply"]["content"] == cut_reply.current["content"]
    assert trace["messages"][-1] == {"role": "user", "content": "说下去"}
    assert "llm_ms" not in trace["timings"] and trace["sections"]
    assert [m["content"] for m in trace["messages"]] == [m["content"] for m in cut_reply.sent]


def test_kill_9_after_reasoning_that_came_mid_reply_keeps_that_reasoning(server_env, stub_llm):
    env, data, token = server_env
    deltas = (("content", "门开了"), ("reasoning", "他带着刀吗?"), ("content", "她退后一步"),
              *(("content", "。") for _ in range(300)))
    stub_llm.script(Reply("", deltas=deltas, delay=0.02))

    def content_after_the_reasoning(kinds: list[str], text: str) -> bool:
        return "reasoning" in kinds and len(text) >= len("门开了她退后一步。")

    current, session = _kill_9_mid_stream(env, data, token, "谁?", content_after_the_reasoning)
    assert current["interrupted"] is True and current["content"].startswith("门开了她退后一步")
    line = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])
    assert line["reasoning"] == "他带着刀吗?" and "刀" not in line["content"]


@pytest.mark.django_db(transaction=True)
def test_the_inspector_of_a_cut_reply_says_its_timings_stop_before_the_model_was_asked(
        client, alice, instance, store):
    """The trace a crash leaves was written as the request went out: it holds the preparation
    timings (load, recall, director, assemble) and no model ones. The page shows that table, so
    its warning must not say there are no timings."""
    from chat.models import ApiToken

    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    turn = client.post("/api/v1/chat", json.dumps({"instance_id": instance, "query": "hello"}),
                       content_type="application/json", **auth).json()
    trace = store.trace_read(instance, turn["trace_id"])
    # as the file stands when the server dies during the reply
    trace.pop("finished_at")
    trace["timings"] = {k: v for k, v in trace["timings"].items()
                        if k in ("load_ms", "recall_ms", "director_ms", "assemble_ms")}
    store.trace_write(instance, turn["trace_id"], trace)

    client.force_login(alice)
    page = client.get(f"/traces/{turn['trace_id']}/").content.decode()
    assert 'id="trace-unfinished"' in page and "load_ms" in page
    assert "there are no timings" not in page
    assert "the timings stop before the model was asked" in page
