"""CPU seconds per 1,000 chat lines of an import's dense fill, by embedding mode: e5 with each
line's context line ("pairs": the pair embedded as one text; "once": every line through e5
once, PERSONALAB_EMBED_LINES_ONCE_FROM) and MiniLM (each line alone), in calls of 256 lines as
memory/vectors/fill.py makes them. Lines: LoCoMo conv-26 (../shared/bench/locomo).

    nice -n 15 .venv/bin/python bench/fill_cpu.py [pairs once pairs once] [--lines 512]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from personalab.lib.embedding import embeddings

CHUNK = 256  # memory.vectors.fill.FILL_CHUNK


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def lines_read(path: Path, count: int) -> list[str]:
    record = json.loads(path.read_text(encoding="utf-8"))
    lines: list[str] = []
    for key in sorted(k for k in record if k.startswith("session_") and isinstance(record[k], list)):
        lines += [f"{turn['speaker']}: {turn['text']}" for turn in record[key]]
    return lines[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modes", nargs="*", default=["pairs", "once", "pairs", "once"])
    parser.add_argument("--lines", type=int, default=512)
    parser.add_argument("--data", type=Path,
                        default=REPO.parent.parent / "shared" / "bench" / "locomo" / "conv-26.json")
    args = parser.parse_args()
    lines = lines_read(args.data, args.lines)
    contexts = [None, *lines[:-1]]
    embedder = embeddings.default_embedder()
    embedder.embed_in_context(lines[:8], contexts[:8])  # engines built, not measured
    embeddings.second_embed(lines[:8], is_query=False)
    for mode in args.modes:
        embeddings.LINES_ONCE_FROM = CHUNK if mode == "once" else 0
        started, wall = cpu_seconds(), time.perf_counter()
        for start in range(0, len(lines), CHUNK):
            embedder.embed_in_context(lines[start:start + CHUNK], contexts[start:start + CHUNK])
        e5, e5_wall = cpu_seconds(), time.perf_counter()
        embeddings.second_embed(lines, is_query=False)
        done = cpu_seconds()
        per = 1000 / len(lines)
        print(f"fill_cpu mode={mode} lines={len(lines)} e5_cpu_s_per_1000={(e5 - started) * per:.1f} "
              f"minilm_cpu_s_per_1000={(done - e5) * per:.1f} "
              f"total_cpu_s_per_1000={(done - started) * per:.1f} e5_wall_s={e5_wall - wall:.1f}",
              flush=True)


if __name__ == "__main__":
    main()
