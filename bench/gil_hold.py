"""How long embedding work keeps other threads of the server process from running: a thread
sleeping 5 ms at a time (standing in for the event loop) measures how late it wakes while the
main thread (1) builds the e5 engines, (2) embeds lore entries one at a time as the lore worker
does (library/lore/vector_store.py), and (3) does nothing.

    .venv/bin/python bench/gil_hold.py [--entries 20]

A wake-up late by seconds means the interpreter lock was held that long (building the
tokenizer's Unigram model: why personalab/asgi.py builds the engines before serving); late by
tens of milliseconds is the machine's CPU shared with other work.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from personalab.lib.embedding import embeddings

LORE = "，".join(f"第{i}条传闻说废土北区的据点里藏着旧世界的武器" for i in range(8))


def lateness(label: str, work: Callable[[], object]) -> None:
    lags: list[float] = []
    done = threading.Event()

    def sleeper() -> None:
        while not done.is_set():
            started = time.perf_counter()
            time.sleep(0.005)
            lags.append((time.perf_counter() - started) * 1000 - 5)

    thread = threading.Thread(target=sleeper)
    thread.start()
    started = time.perf_counter()
    work()
    took = time.perf_counter() - started
    done.set()
    thread.join()
    lags.sort()
    print(f"{label}: {took:.1f} s; a 5 ms sleeper wakes late by p50 {lags[len(lags) // 2]:.1f}"
          f"  p95 {lags[int(len(lags) * 0.95)]:.1f}  max {lags[-1]:.0f} ms (n={len(lags)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=20)
    args = parser.parse_args()
    sys.setswitchinterval(0.0005)  # as the server runs (PERSONALAB_GIL_SWITCH_MS)
    lateness("building both e5 engines", embeddings.engines_preload)
    lateness(f"embedding {args.entries} lore entries one at a time",
             lambda: [embeddings.embed_passages([f"{n}: {LORE}"]) for n in range(args.entries)])
    lateness("nothing", lambda: time.sleep(5))
    print("load average: " + " / ".join(f"{value:.1f}" for value in os.getloadavg()))


if __name__ == "__main__":
    main()
