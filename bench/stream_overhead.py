"""What the app adds to a stream, against a plain SSE reader of the same stub LLM.

    .venv/bin/python bench/stream_overhead.py [--quick] [--tokens 4000] [--reps 7]
                                              [--paced 200] [--delay 0.005] [--skip-long]

Reference: a plain reader (httpx, raw `data:` lines, json.loads, no SDK models, one kept-alive
client) reading the stub directly. The app: Daphne, WebSocket, turn_run, session file, trace.
Plain and app runs alternate; figures are medians.
- ratio_vs_plain: app time (WebSocket "send" out -> "done" in) / plain time (request -> end of
  stream), a reply of --tokens pieces at full speed. Goal <= 1.5.
- first_token_added_ms: app first token (from "send") minus plain first token. Goal <= 8.
- paced per-piece delay: the stub sends --paced pieces --delay apart, each stamped with
  CLOCK_MONOTONIC right before its write; a piece's delay is its receive time minus its stamp,
  through the app and through the plain reader. Goal: app p50 <= 0.6 ms.
- after_long_reply_first_token_added_ms: with recall on (finished turns indexed in the server's
  background), the first token of the turn right after an 8,000-character reply, minus the
  first token of a turn on the idle server. Goal <= 100.
- cpu_ratio_vs_plain: CPU time of the app's server process for the turn over the plain reader's
  CPU time for the same stream (both exclude the stub); less sensitive to a shared machine's load.
- bytes_per_byte: bytes the session-file writer wrote for the reply, over the reply's bytes (one
  turn run in this process through turn_run against the same stub).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h  # noqa: E402


async def plain_once(client, base_url: str) -> tuple[float, float, str, list[int]]:
    """(total s, first token s, text, receive ns per piece) reading raw SSE lines."""
    started = time.perf_counter()
    first: float | None = None
    parts: list[str] = []
    received: list[int] = []
    body = {"model": "stub-model", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    async with client.stream("POST", f"{base_url}/chat/completions", json=body,
                             headers={"Authorization": "Bearer bench-key"}) as response:
        async for line in response.aiter_lines():
            if not line.startswith("data: "):
                continue
            payload = line[6:]
            if payload == "[DONE]":
                break
            piece = json.loads(payload)["choices"][0]["delta"].get("content")
            if piece:
                received.append(time.monotonic_ns())
                if first is None:
                    first = time.perf_counter() - started
                parts.append(piece)
    return time.perf_counter() - started, first or 0.0, "".join(parts), received


async def full_speed_measure(server: h.Server, setup: h.AppSetup, stub: h.Stub, data_dir: Path,
                             reps: int) -> dict[str, list[float]]:
    import httpx

    instance_id = setup.instance_ids[0]
    path = h.session_path(data_dir, instance_id)
    out: dict[str, list[float]] = {k: [] for k in ("plain", "plain_ttft", "app", "app_ttft",
                                                   "file_delta", "reply_bytes", "plain_cpu",
                                                   "app_cpu")}
    async with httpx.AsyncClient(timeout=60) as client, \
            h.ws_connect(server, setup.session_key, instance_id) as ws:
        await plain_once(client, stub.base_url)  # warm-up: imports, first connections
        await h.ws_turn(ws, "hi")
        for _ in range(reps):
            cpu = time.process_time()
            total, first, text, _ = await plain_once(client, stub.base_url)
            out["plain_cpu"].append(time.process_time() - cpu)
            out["plain"].append(total)
            out["plain_ttft"].append(first)
            size_before = path.stat().st_size
            cpu = h.process_cpu_seconds(server.process.pid)
            result = await h.ws_turn(ws, "hi")
            out["app_cpu"].append(h.process_cpu_seconds(server.process.pid) - cpu)
            if result.errors or not result.done or result.first_token_at is None:
                raise RuntimeError(f"app turn failed: {result.errors}")
            if result.text != text:
                raise RuntimeError("the app's reply differs from the plain stream")
            out["app"].append(result.done_at - result.sent_at)
            out["app_ttft"].append(result.first_token_at - result.sent_at)
            out["file_delta"].append(path.stat().st_size - size_before)
            out["reply_bytes"].append(len(result.text.encode()))
    return out


async def paced_measure(server: h.Server, setup: h.AppSetup, stub: h.Stub,
                        rounds: int) -> dict[str, list[float]]:
    """Per-piece delay (ms) of stamped pieces, through the app and through the plain reader."""
    import httpx

    out: dict[str, list[float]] = {"app": [], "plain": []}
    async with httpx.AsyncClient(timeout=60) as client, \
            h.ws_connect(server, setup.session_key, setup.instance_ids[0]) as ws:
        await h.ws_turn(ws, "hi")
        for _ in range(rounds):
            _, _, text, received = await plain_once(client, stub.base_url)
            stamps = h.stamps_parse(text)
            out["plain"] += [(got - sent) / 1e6 for (_, sent), got in zip(stamps, received)]
            result = await h.ws_turn(ws, "hi")
            if result.errors or not result.done:
                raise RuntimeError(f"app turn failed: {result.errors}")
            for content, got in result.tokens:
                out["app"] += [(got - sent) / 1e6 for _, sent in h.stamps_parse(content)]
    return out


async def after_long_reply_measure(server: h.Server, setup: h.AppSetup, stub,
                                   reps: int) -> dict[str, list[float]]:
    """First token (ms from "send") of ordinary turns on an idle server, and of the turn sent
    right after an 8,000-character reply (whose indexing then runs in the background)."""
    from tests.stub_llm import Reply

    out: dict[str, list[float]] = {"idle": [], "after_long": []}
    long_reply = ("The rain kept falling on the old lighthouse while they talked. " * 130)[:8000]
    async with h.ws_connect(server, setup.session_key, setup.instance_ids[0]) as ws:
        await h.ws_turn(ws, "hello")
        for _ in range(reps):
            await asyncio.sleep(2.0)  # let earlier indexing finish: this is the idle figure
            result = await h.ws_turn(ws, "Do you remember the lighthouse?")
            out["idle"].append((result.first_token_at - result.sent_at) * 1000)
            stub.script(Reply(long_reply, chunk_size=64))
            long = await h.ws_turn(ws, "Tell me the whole story of that night.")
            if long.errors or len(long.text) != len(long_reply):
                raise RuntimeError(f"long turn failed: {long.errors}")
            result = await h.ws_turn(ws, "Do you remember the lighthouse?")
            if result.errors or result.first_token_at is None:
                raise RuntimeError(f"turn after the long reply failed: {result.errors}")
            out["after_long"].append((result.first_token_at - result.sent_at) * 1000)
    return out


def writer_bytes_measure(data_dir: Path, stub: h.Stub, instance_id: str) -> tuple[int, int]:
    """(bytes the AssistantLineWriter wrote, reply bytes) for one turn run in this process."""
    os.environ.update(h.base_env(data_dir, OPENAI_BASE_URL=stub.base_url,
                                 OPENAI_API_KEY="bench-key", PERSONALAB_MODEL="stub-model"))
    import django

    django.setup()
    from chat.play.turn import turn_run
    from personalab.lib.filestore.store import FileStore

    writers = []
    original = FileStore.assistant_writer

    def spying(self, *args, **kwargs):
        writer = original(self, *args, **kwargs)
        writers.append(writer)
        return writer

    FileStore.assistant_writer = spying

    async def emit(event: dict) -> None:
        return None

    store = FileStore(data_dir)
    result = asyncio.run(turn_run(store, instance_id=instance_id, user_text="hi", emit=emit))
    FileStore.assistant_writer = original
    return writers[-1].bytes_written, len(result.answer_text.encode())


def ms_list(values: list[float]) -> list[float]:
    return [round(x * 1000, 1) for x in values]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repetitions")
    parser.add_argument("--tokens", type=int, default=4000)
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--paced", type=int, default=200, help="pieces per paced reply")
    parser.add_argument("--delay", type=float, default=0.005, help="seconds between paced pieces")
    parser.add_argument("--skip-long", action="store_true", help="skip the after-long-reply part")
    args = parser.parse_args()
    reps = args.reps or (3 if args.quick else 7)
    print(f"machine: {h.machine_describe()} load: {os.getloadavg()[0]:.2f}")
    print(f"reply: {args.tokens} pieces of 'tok ' from the stub, no delay; {reps} repetitions")
    with h.data_dir_temp() as data_dir:
        setup = h.app_setup(data_dir, instances=1)
        stub = h.stub_start(tokens=args.tokens, delay=0.0, data_dir=data_dir)
        server = h.server_start(data_dir, stub)
        runs = asyncio.run(full_speed_measure(server, setup, stub, data_dir, reps))
        h.children_kill()
        stub = h.stub_start(tokens=args.paced, delay=args.delay, stamp=True, data_dir=data_dir)
        server = h.server_start(data_dir, stub)
        paced = asyncio.run(paced_measure(server, setup, stub, max(1, reps // 2)))
        h.children_kill()
        stub = h.stub_start(tokens=args.tokens, delay=0.0, data_dir=data_dir)
        written, reply_bytes = writer_bytes_measure(data_dir, stub, setup.instance_ids[0])
        h.children_kill()
    long_runs = None
    if not args.skip_long:
        from tests.stub_llm import Reply, StubLLM

        with h.data_dir_temp() as data_dir:
            setup = h.app_setup(data_dir, instances=1, memory_indexing=True)
            stub = StubLLM(default=Reply("I remember the lighthouse, and the rain.", chunk_size=8))
            try:
                server = h.server_start(data_dir, stub)
                long_runs = asyncio.run(after_long_reply_measure(server, setup, stub, reps))
            finally:
                h.children_kill()
                stub.stop()
    plain, app = h.median(runs["plain"]), h.median(runs["app"])
    plain_ttft, app_ttft = h.median(runs["plain_ttft"]), h.median(runs["app_ttft"])
    ratio = app / plain
    ttft_added_ms = (app_ttft - plain_ttft) * 1000
    bytes_per_byte = written / reply_bytes
    file_per_byte = h.median(runs["file_delta"]) / h.median(runs["reply_bytes"])
    print(f"plain SSE reader:     total {plain * 1000:8.1f} ms  first token {plain_ttft * 1000:6.1f} ms"
          f"  all: {ms_list(runs['plain'])}")
    print(f"through the app (ws): total {app * 1000:8.1f} ms  first token {app_ttft * 1000:6.1f} ms"
          f"  all: {ms_list(runs['app'])}")
    print(f"ratio_vs_plain={ratio:.2f} (goal <= 1.5)")
    # CPU seconds do not stretch with the machine's load the way wall times do.
    # /proc counts CPU in 10 ms ticks: the mean over all repetitions, not a median of ticks.
    app_cpu = sum(runs["app_cpu"]) / len(runs["app_cpu"])
    plain_cpu = sum(runs["plain_cpu"]) / len(runs["plain_cpu"])
    print(f"CPU per reply: app server {app_cpu * 1000:.1f} ms (the whole turn), plain reader "
          f"{plain_cpu * 1000:.1f} ms: cpu_ratio_vs_plain={app_cpu / plain_cpu:.2f}")
    print(f"first_token_added_ms={ttft_added_ms:.1f} (goal <= 8)")
    app_p50, app_p95 = h.median(paced["app"]), h.percentile(paced["app"], 0.95)
    plain_p50, plain_p95 = h.median(paced["plain"]), h.percentile(paced["plain"], 0.95)
    print(f"paced ({args.paced} pieces {args.delay * 1000:g} ms apart): per-piece delay through the "
          f"app p50={app_p50:.2f} ms p95={app_p95:.2f} ms; plain reader p50={plain_p50:.2f} ms "
          f"p95={plain_p95:.2f} ms (goal: app p50 <= 0.6)")
    print(f"paced_piece_ms_p50={app_p50:.2f} paced_piece_ms_p95={app_p95:.2f}")
    if long_runs:
        idle, after = h.median(long_runs["idle"]), h.median(long_runs["after_long"])
        print(f"first token on an idle server {idle:.1f} ms {[round(x, 1) for x in long_runs['idle']]}; "
              f"right after an 8,000-character reply {after:.1f} ms "
              f"{[round(x, 1) for x in long_runs['after_long']]}")
        print(f"after_long_reply_first_token_added_ms={after - idle:.1f} (goal <= 100)")
    print(f"session file: writer wrote {written} bytes for a {reply_bytes}-byte reply "
          f"({bytes_per_byte:.2f} per reply byte, in-process turn); file grew "
          f"{h.median(runs['file_delta']):.0f} bytes per app turn ({file_per_byte:.2f} per reply byte, "
          f"user line + final line)")
    print(f"stream_overhead ratio_vs_plain={ratio:.2f} first_token_added_ms={ttft_added_ms:.1f} "
          f"cpu_ratio_vs_plain={app_cpu / plain_cpu:.2f} "
          f"paced_p50_ms={app_p50:.2f} bytes_per_byte={bytes_per_byte:.2f} load={os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
