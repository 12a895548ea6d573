"""The first export after a server start, and the one after it, for chats of a few sizes.

    .venv/bin/python bench/first_export.py [--messages 10,100,1000,10000] [--settle 8]
        [--open] [--read 5]

Each size gets a fresh data folder and a fresh Daphne server (export workers as configured,
PERSONALAB_EXPORT_PROCESSES default 2); `--settle` seconds after it listens (its embedding
engines load then) the same JSONL export is fetched three times and timed. With `--open` the
chat's page is fetched (and timed) first, and the export follows `--read` seconds after it, as
a player opens the chat and then its export menu (a large chat's page starts an export worker).
"""

from __future__ import annotations

import argparse
import os
import time

import _harness as h
import cross_account as ca
import httpx


def _one(messages: int, settle: float, read: float | None) -> tuple[int, float | None, list[float]]:
    with h.data_dir_temp() as data_dir:
        stub = h.stub_start(tokens=4, delay=0.0, data_dir=data_dir)
        accounts = ca.setup_run(data_dir, h.base_env(data_dir), messages)
        a = accounts["a"]
        size = os.path.getsize(data_dir / "instances" / a["big"] / "sessions"
                               / f"{a['session_id']}.jsonl")
        server = h.server_start(data_dir, stub)
        time.sleep(settle)
        url = (f"{server.origin}/api/v1/instances/{a['big']}/sessions/{a['session_id']}"
               "/export?format=jsonl")
        took = []
        opened = None
        with httpx.Client(timeout=120) as client:
            if read is not None:
                started = time.perf_counter()
                page = client.get(f"{server.origin}/instances/{a['big']}/",
                                  cookies={"sessionid": a["session_key"]})
                opened = time.perf_counter() - started
                page.raise_for_status()
                time.sleep(read)
            for _ in range(3):
                started = time.perf_counter()
                answer = client.get(url, headers={"Authorization": f"Bearer {a['token']}"})
                took.append(time.perf_counter() - started)
                answer.raise_for_status()
        h.children_kill()
        return size, opened, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", default="10,100,1000,10000")
    parser.add_argument("--settle", type=float, default=8.0)
    parser.add_argument("--open", action="store_true", help="open the chat's page first")
    parser.add_argument("--read", type=float, default=5.0)
    args = parser.parse_args()
    read = args.read if args.open else None
    print(f"machine: {h.machine_describe()}; settle {args.settle:g} s"
          + (f"; page, then the export {read:g} s later" if read is not None else ""))
    for messages in (int(m) for m in args.messages.split(",")):
        size, opened, took = _one(messages, args.settle, read)
        page = f"page {opened:.2f} s, " if opened is not None else ""
        print(f"{messages:>6} messages ({size / 1024:7.1f} KB): {page}first "
              f"{took[0]:.2f} s, then " + ", ".join(f"{t:.3f}" for t in took[1:]) + " s",
              flush=True)


if __name__ == "__main__":
    main()
