"""How long an export in the server's process holds the event loop: a chat of --messages
(50,000: a 10.8 MB session file) exported with session_export on a worker thread (as the server
would without its export workers) and on the loop itself, while a task on the loop ticks every
millisecond; prints the export's time and the loop's longest stall, and Python's full
collections (generation 2) during it. `--no-gc` runs with the collector off.

    .venv/bin/python bench/export_stall.py [--messages 50000] [--rounds 2] [--no-gc]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h
import long_chat as lc
import turn_overhead as t

_collections: list[tuple[int, float]] = []
_started: list[float] = []


def _gc_seen(phase: str, info: dict) -> None:
    if phase == "start":
        _started.append(time.perf_counter())
    elif info["generation"] == 2:
        _collections.append((2, time.perf_counter() - _started[-1]))


async def _ticked(work) -> tuple[object, float]:
    """What `work()` gives, and the loop's longest wait past a 1 ms sleep meanwhile."""
    worst, done = 0.0, False

    async def ticker() -> None:
        nonlocal worst
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            worst, last = max(worst, now - last - 0.001), now

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    result = await work()
    done = True
    await tick
    return result, worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-gc", action="store_true")
    args = parser.parse_args()
    with h.data_dir_temp() as data_dir:
        t.django_boot(data_dir)
        # After Django's set-up, as the other benches' app imports.
        from chat.services.instances import instance_create
        from chat.services.session_export import session_export
        from chat.services.session_import import session_import

        store, owner, character_id, background_id = t.library_seed(data_dir)
        instance_id = instance_create(store, owner=owner, character_id=character_id,
                                      background_id=background_id)
        session_id, _ = session_import(store, instance_id=instance_id,
                                       data=lc.st_chat(args.messages), new_chat=True)
        size = os.path.getsize(store.session_path(instance_id, session_id))
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "1"  # the export's own queries, on the loop

        def export() -> float:
            started = time.perf_counter()
            session_export(store, instance_id=instance_id, session_id=session_id, fmt="jsonl")
            return time.perf_counter() - started

        export()
        if args.no_gc:
            gc.disable()
        gc.callbacks.append(_gc_seen)
        for _ in range(args.rounds):
            for where in ("thread", "loop"):
                _collections.clear()

                async def run(where=where):
                    return await asyncio.to_thread(export) if where == "thread" else export()

                took, worst = asyncio.run(_ticked(run))
                full = sorted((seconds for _, seconds in _collections), reverse=True)
                print(f"export_stall session_mb={size / 1e6:.1f} on={where} "
                      f"export_s={took:.2f} longest_stall_ms={worst * 1000:.1f} "
                      f"full_collections={len(full)} longest_ms="
                      f"{full[0] * 1000 if full else 0:.1f}", flush=True)


if __name__ == "__main__":
    main()
