"""The stub LLM itself: benchmarks time-stamp each piece as it is made, so the stub must send a
piece before it makes the next one (bench/concurrency.py measured 1 s of "delay" otherwise); a
held reply stops mid-stream, at one place or several, until the test lets it go."""

from __future__ import annotations

import json
import threading
import time

import httpx

from tests.stub_llm import Reply, StubLLM


class _Timed(Reply):
    def pieces(self):  # type: ignore[override]
        for index in range(3):
            time.sleep(0.3)
            yield f"{index}@{time.monotonic()} "


def test_each_piece_is_sent_before_the_next_is_made():
    stub = StubLLM(default=_Timed(""))
    try:
        arrived: dict[int, float] = {}
        made: dict[int, float] = {}
        body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
        with httpx.stream("POST", f"{stub.base_url}/chat/completions", json=body,
                          timeout=10) as response:
            for line in response.iter_lines():
                if not line.startswith("data: {"):
                    continue
                delta = json.loads(line[6:])["choices"][0]["delta"]
                index, _, stamp = delta.get("content", "").strip().partition("@")
                if stamp:
                    arrived[int(index)], made[int(index)] = time.monotonic(), float(stamp)
    finally:
        stub.stop()
    assert sorted(arrived) == [0, 1, 2]
    assert arrived[0] < made[2]  # the first piece was on the wire before the last was made


def _streamed_pieces(stub: StubLLM, seen: list[str]) -> None:
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with httpx.stream("POST", f"{stub.base_url}/chat/completions", json=body,
                      timeout=30) as response:
        for line in response.iter_lines():
            if line.startswith("data: {"):
                seen.append(json.loads(line[6:])["choices"][0]["delta"].get("content") or "")


def test_a_held_reply_waits_mid_stream_until_released_and_a_release_before_it_counts():
    stub = StubLLM()
    try:
        stub.script(Reply("abcdef", chunk_size=1, held_after=2))
        seen: list[str] = []
        reader = threading.Thread(target=_streamed_pieces, args=(stub, seen))
        reader.start()
        deadline = time.monotonic() + 10
        while "".join(seen) != "ab" and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)  # held: nothing more comes however long one waits
        assert "".join(seen) == "ab"
        stub.release()
        reader.join(timeout=10)
        assert "".join(seen) == "abcdef"
        # A release that comes before the answer reaches its hold lets it through at once.
        stub.release()
        stub.script(Reply("xyz", chunk_size=1, held_after=1))
        later: list[str] = []
        _streamed_pieces(stub, later)
        assert "".join(later) == "xyz"
    finally:
        stub.stop()


def test_a_reply_held_at_two_places_waits_at_each_for_its_own_release():
    stub = StubLLM()
    try:
        stub.script(Reply("abcdef", chunk_size=1, held_after=(1, 4)))
        seen: list[str] = []
        reader = threading.Thread(target=_streamed_pieces, args=(stub, seen))
        reader.start()
        for held in ("a", "abcd"):
            deadline = time.monotonic() + 10
            while "".join(seen) != held and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.2)  # held: nothing more comes
            assert "".join(seen) == held
            stub.release()
        reader.join(timeout=10)
        assert "".join(seen) == "abcdef"
    finally:
        stub.stop()
