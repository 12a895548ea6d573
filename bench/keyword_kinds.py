"""The keyword side's cost for a question that names a kind of fact ("what's my job?"), whose
term also counts what statements say instead (memory/keyword_index/said_instead.py: dozens of
job titles), against questions that name none, over a memory of --lines lines drawn from the
LoCoMo and MemDaily dev conversations (real words: "work", "teacher", 上班 occur).

    .venv/bin/python bench/keyword_kinds.py [--data ../shared/bench] [--lines 100000]

Prints, per question, the CPU of one BM25 pass over the lines (median of 7).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from memory.keyword_index.bm25 import KeywordPart, bm25_scored  # noqa: E402

QUESTIONS = ["what's my job?", "what's my line of work again?", "where did I grow up?",
             "我在哪儿上班？", "我的家乡是哪里？",
             "Do you remember what Maria said about the lake?", "你还记得我们之前的约定吗？"]


def dev_lines(data: Path) -> list[str]:
    texts: list[str] = []
    for path in sorted((data / "locomo").glob("*.json")) + sorted(
            (data / "memdaily-zh-dev").glob("*.json")):
        found = json.loads(path.read_text(encoding="utf-8"))
        sessions = found.get("conversation", found)
        texts += [turn["text"] for key, value in sessions.items()
                  if key.startswith("session_") and isinstance(value, list) for turn in value]
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench")
    parser.add_argument("--lines", type=int, default=100_000)
    args = parser.parse_args()
    texts, rng = dev_lines(args.data), random.Random(1)
    part = KeywordPart("turns")
    for position in range(args.lines):
        player = position % 2 == 0
        part.add(f"t{position}", rng.choice(texts), {
            "session_id": f"s{position // 500}", "turn": position // 2,
            "role": "user" if player else "assistant", "name": "Ola" if player else "Bram"})
    mask = np.ones(len(part.ids), dtype=bool)
    for question in QUESTIONS:
        spent = []
        for _ in range(7):
            started = time.process_time()
            bm25_scored([(part, mask)], question)
            spent.append(time.process_time() - started)
        print(f"{statistics.median(spent) * 1000:8.1f} ms  {question}")
    print(f"keyword_kinds lines={args.lines}")


if __name__ == "__main__":
    main()
