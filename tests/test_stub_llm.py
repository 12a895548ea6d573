"""The stub LLM itself: benchmarks time-stamp each piece as it is made, so the stub must send a
piece before it makes the next one (bench/concurrency.py measured 1 s of "delay" otherwise)."""

from __future__ import annotations

import json
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
