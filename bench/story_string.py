"""What rendering a context template's story string costs (personalab/lib/story_string.py):
SillyTavern's ChatML story string with 128 KB of values (a 100 KB description), and the
longest story string accepted (20,000 characters of blocks) as a hostile one would write it.

    .venv/bin/python bench/story_string.py [--reps 2000]

Prints the mean time per render of each.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from personalab.lib.story_string import (
    MAX_STORY_CHARS,
    context_template_named,
    story_string_render,
)

VALUES = {"system": "S" * 2000, "description": "d" * 100_000, "personality": "p" * 2000,
          "scenario": "s" * 2000, "persona": "q" * 2000, "wiBefore": "w" * 20_000,
          "char": "Mira", "user": "Ann"}
BLOCK = "{{#if description}}{{char}}{{/if}}"


def _mean_seconds(story: str, reps: int) -> float:
    started = time.perf_counter()
    for _ in range(reps):
        story_string_render(story, VALUES)
    return (time.perf_counter() - started) / reps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=2000)
    reps = parser.parse_args().reps
    chatml = context_template_named("chatml").story_string
    hostile = BLOCK * (MAX_STORY_CHARS // len(BLOCK))
    print(f"chatml story string, 128 KB of values: "
          f"{_mean_seconds(chatml, reps) * 1e6:.0f} µs per render")
    print(f"{len(hostile):,}-character story string of {len(hostile) // len(BLOCK)} blocks: "
          f"{_mean_seconds(hostile, max(1, reps // 20)) * 1e3:.2f} ms per render")


if __name__ == "__main__":
    main()
