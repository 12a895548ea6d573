"""What regex scripts cost a turn, and how long hostile ones can hold a worker.

    python bench/regex_scripts.py

Typical: 20 scripts of the kinds SillyTavern users share (strip asterisks, swap names, hide a
tag, trim "OOC:" lines) over the 50 newest messages of a prompt, as chat/prompt runs them.
Hostile: 30 scripts whose pattern passes the compile check but backtracks badly
(`/(a|aa)+$/g`) over the same messages, each a message of 40 a's: each run stops at 0.1 s and
all of them together at about 1 s (library/find_replace/scripts.py RUN_SECONDS, TOTAL_SECONDS).
Save check: the time to refuse `/(?:a{2000}){2000}/g` (compiling it would take seconds and 1 GB).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from library.find_replace.scripts import (
    AI_OUTPUT,
    RegexRun,
    find_regex_problem,
    scripts_read,
)

TYPICAL = [
    {"findRegex": "/\\*([^*]+)\\*/g", "replaceString": "_$1_", "placement": [2]},
    {"findRegex": "/\\bMira\\b/gi", "replaceString": "{{char}}", "placement": [2]},
    {"findRegex": "/<thinking>[\\s\\S]*?<\\/thinking>/g", "replaceString": "", "placement": [2]},
    {"findRegex": "/^OOC:.*$/gm", "replaceString": "", "placement": [1, 2], "promptOnly": True},
    {"findRegex": "/\\s{2,}/g", "replaceString": " ", "placement": [2], "maxDepth": 10},
] * 4
MESSAGE = ("Mira looks up. *She smiles* and says: \"The  tide is late tonight.\"\n"
           "OOC: keep it short\n<thinking>plan the next scene</thinking> She waits. ") * 4


def _over_messages(run: RegexRun, texts: list[str]) -> float:
    started = time.perf_counter()
    for depth, text in enumerate(reversed(texts)):
        run.text(text, AI_OUTPUT, prompt=True, depth=depth)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    typical = scripts_read(TYPICAL)
    texts = [MESSAGE] * 50
    _over_messages(RegexRun(typical), texts)  # compile once, as the cache keeps them
    runs = [_over_messages(RegexRun(typical), texts) for _ in range(20)]
    print(f"typical: 20 scripts x 50 messages ({len(MESSAGE)} chars each): "
          f"median {statistics.median(runs):.1f} ms, max {max(runs):.1f} ms")

    hostile = scripts_read([{"findRegex": "/(a|aa)+$/g", "replaceString": "x",
                             "placement": [2]}] * 30)
    run = RegexRun(hostile)
    held = _over_messages(run, ["a" * 40 + "b"] * 50)
    print(f"hostile: 30 x /(a|aa)+$/g over 50 messages: held the worker {held:.0f} ms, "
          f"{len(run.problems)} runs stopped or skipped")

    started = time.perf_counter()
    problem = find_regex_problem("/(?:a{2000}){2000}/g")
    print(f"save check: /(?:a{{2000}}){{2000}}/g refused in "
          f"{(time.perf_counter() - started) * 1000:.2f} ms: {problem}")


if __name__ == "__main__":
    main()
