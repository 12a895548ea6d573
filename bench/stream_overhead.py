"""What the app adds to a stream: a long reply from the stub LLM at full speed, read through the
app (Daphne, WebSocket, turn_run, session file, trace) versus read directly with the openai client.

    .venv/bin/python bench/stream_overhead.py [--quick] [--tokens 4000] [--reps 7] [--memory-indexing]

Figures (medians over the repetitions; direct and app runs alternate):
- ratio: app time (WebSocket "send" out -> "done" in) / direct time (create() -> end of stream).
  Goal <= 1.5.
- ttft_added_ms: app first token (from "send") minus direct first token (from create()). Goal <= 50.
- bytes_per_byte: bytes the app wrote to the session file for the reply, over the reply's UTF-8
  bytes. Counted by AssistantLineWriter.bytes_written (streamed prefix and escaped tokens, plus the
  one final rewrite of the line) on one extra turn run in this process through turn_run against the
  same stub after the server runs. The session file's size change per app turn (user line + final
  assistant line, i.e. what stays on disk) is printed next to it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h  # noqa: E402


async def direct_once(base_url: str) -> tuple[float, float, str]:
    """(total s, first token s, text) reading the stub with the openai client."""
    import openai

    started = time.perf_counter()
    first: float | None = None
    parts: list[str] = []
    async with openai.AsyncOpenAI(base_url=base_url, api_key="bench-key", max_retries=0) as client:
        stream = await client.chat.completions.create(
            model="stub-model", messages=[{"role": "user", "content": "hi"}], stream=True)
        async for chunk in stream:
            piece = chunk.choices[0].delta.content if chunk.choices else None
            if piece:
                if first is None:
                    first = time.perf_counter() - started
                parts.append(piece)
    return time.perf_counter() - started, first or 0.0, "".join(parts)


async def runs_measure(server: h.Server, setup: h.AppSetup, stub: h.Stub, data_dir: Path,
                       reps: int) -> dict[str, list[float]]:
    instance_id = setup.instance_ids[0]
    path = h.session_path(data_dir, instance_id)
    out: dict[str, list[float]] = {k: [] for k in ("direct", "direct_ttft", "app", "app_ttft",
                                                   "file_delta", "reply_bytes")}
    async with h.ws_connect(server, setup.session_key, instance_id) as ws:
        await direct_once(stub.base_url)  # warm-up: imports, first connections
        await h.ws_turn(ws, "hi")
        for _ in range(reps):
            total, first, text = await direct_once(stub.base_url)
            out["direct"].append(total)
            out["direct_ttft"].append(first)
            size_before = path.stat().st_size
            result = await h.ws_turn(ws, "hi")
            if result.errors or not result.done or result.first_token_at is None:
                raise RuntimeError(f"app turn failed: {result.errors}")
            if result.text != text:
                raise RuntimeError("the app's reply differs from the direct stream")
            out["app"].append(result.done_at - result.sent_at)
            out["app_ttft"].append(result.first_token_at - result.sent_at)
            out["file_delta"].append(path.stat().st_size - size_before)
            out["reply_bytes"].append(len(result.text.encode()))
    return out


def writer_bytes_measure(data_dir: Path, stub: h.Stub, instance_id: str) -> tuple[int, int]:
    """(bytes the AssistantLineWriter wrote, reply bytes) for one turn run in this process."""
    os.environ.update(h.base_env(data_dir, OPENAI_BASE_URL=stub.base_url,
                                 OPENAI_API_KEY="bench-key", PERSONALAB_MODEL="stub-model"))
    import django

    django.setup()
    from chat.turn import turn_run
    from personalab.lib.filestore import FileStore

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repetitions")
    parser.add_argument("--tokens", type=int, default=4000)
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--memory-indexing", action="store_true",
                        help="let the server embed finished turns (recall on); off by default")
    args = parser.parse_args()
    reps = args.reps or (3 if args.quick else 7)
    print(f"machine: {h.machine_describe()}")
    print(f"reply: {args.tokens} pieces of 'tok ' from the stub, no delay; {reps} repetitions")
    with h.data_dir_temp() as data_dir:
        setup = h.app_setup(data_dir, instances=1, memory_indexing=args.memory_indexing)
        stub = h.stub_start(tokens=args.tokens, delay=0.0, data_dir=data_dir)
        server = h.server_start(data_dir, stub)
        runs = asyncio.run(runs_measure(server, setup, stub, data_dir, reps))
        h.children_kill()
        stub = h.stub_start(tokens=args.tokens, delay=0.0, data_dir=data_dir)
        written, reply_bytes = writer_bytes_measure(data_dir, stub, setup.instance_ids[0])
    direct, app = h.median(runs["direct"]), h.median(runs["app"])
    direct_ttft, app_ttft = h.median(runs["direct_ttft"]), h.median(runs["app_ttft"])
    ratio = app / direct
    ttft_added_ms = (app_ttft - direct_ttft) * 1000
    bytes_per_byte = written / reply_bytes
    file_per_byte = h.median(runs["file_delta"]) / h.median(runs["reply_bytes"])
    print(f"direct (openai client):  total {direct * 1000:8.1f} ms  first token {direct_ttft * 1000:6.1f} ms"
          f"  all: {[round(x * 1000) for x in runs['direct']]}")
    print(f"through the app (ws):    total {app * 1000:8.1f} ms  first token {app_ttft * 1000:6.1f} ms"
          f"  all: {[round(x * 1000) for x in runs['app']]}")
    print(f"ratio app/direct: {ratio:.2f} (goal <= 1.5)")
    print(f"first token added by the app: {ttft_added_ms:.1f} ms (goal <= 50)")
    print(f"session file: writer wrote {written} bytes for a {reply_bytes}-byte reply "
          f"({bytes_per_byte:.2f} per reply byte, in-process turn); file grew "
          f"{h.median(runs['file_delta']):.0f} bytes per app turn ({file_per_byte:.2f} per reply byte, "
          f"user line + final line)")
    print(f"stream_overhead ratio={ratio:.2f} bytes_per_byte={bytes_per_byte:.2f} "
          f"ttft_added_ms={ttft_added_ms:.1f}")


if __name__ == "__main__":
    main()
