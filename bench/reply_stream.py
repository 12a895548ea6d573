"""What showing a streaming reply cleaned costs (personalab/lib/reply_stream.py): replies of
several lengths fed 4 characters at a time, with chat completion's names and with ChatML's
markers; the CPU of the whole reply and per piece should stay flat as the reply grows.

    .venv/bin/python bench/reply_stream.py [--reps 3]

Prints the best of --reps of each.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from personalab.lib.instruct import instruct_stop, instruct_template_named
from personalab.lib.reply_stream import ReplyShown

CHATML = instruct_template_named("chatml")
CHAT = {"user_name": "Ann", "char_name": "Mira", "others": ["Rook"], "impersonate": False,
        "markers": None, "stops": ["\nAnn:", "\nRook:"]}
TEXT = {**CHAT, "markers": CHATML,
        "stops": ["\nAnn:", "\nRook:", *instruct_stop(CHATML, user_name="Ann", char_name="Mira",
                                                       impersonate=False, others=["Rook"])]}
WORDS = "She walks *slowly* to the door, thinking of the sea.\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    for label, names in (("chat completion", CHAT), ("text completion, ChatML", TEXT)):
        for size in (4_000, 16_000, 64_000):
            reply = (WORDS * (size // len(WORDS) + 1))[:size]
            best = float("inf")
            for _ in range(args.reps):
                started = time.process_time()
                cleaner = ReplyShown(names=names, shape=None)
                for start in range(0, size, 4):
                    cleaner.feed(reply[start:start + 4])
                best = min(best, time.process_time() - started)
            print(f"{label:24} {size:>7,} chars: {best * 1000:8.1f} ms CPU, "
                  f"{best / (size / 4) * 1e6:6.1f} µs per piece")


if __name__ == "__main__":
    main()
