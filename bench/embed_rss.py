"""A process's memory over N embedding calls of changing texts, as a chat's index makes them:
two lines a call (the player's and the reply) from a bench conversation, through
`texts_embed` (e5, passages) or `second_embed` (MiniLM). Prints RSS in its two parts every
--every calls, and ms per call:

- anonymous: the heap (what a leak grows);
- file-backed: pages of memory-mapped files, here the models' weights, whose word-embedding
  tables (e5's 4-bit 250,037 rows, MiniLM's float 30,522 rows) are read in only as a text's
  tokens touch their rows: shared with the page cache, given back under memory pressure, and
  never more than the files.

    .venv/bin/python bench/embed_rss.py --model e5 --calls 600 [--every 150]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from play_long import conversation_texts

from personalab.lib.embedding import embeddings


def memory_mb() -> dict[str, int]:
    return {line.split(":")[0]: int(line.split()[1]) // 1024
            for line in Path("/proc/self/status").read_text().splitlines()
            if line.startswith(("RssAnon", "RssFile"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("e5", "minilm"), default="e5")
    parser.add_argument("--calls", type=int, default=600)
    parser.add_argument("--every", type=int, default=150)
    parser.add_argument("--lines", type=Path, default=Path("../shared/bench/realtalk-dev"))
    args = parser.parse_args()
    mine, theirs, _ = conversation_texts(args.lines)
    texts = [text for pair in zip(mine, theirs) for text in pair]
    if args.model == "e5":
        def embed(batch):
            return embeddings.texts_embed(batch, is_query=False)
    else:
        def embed(batch):
            return embeddings.second_embed(batch, is_query=False)
    embed(["warm up"])
    start, spent = memory_mb(), 0.0
    print(f"{args.model} start: anon {start['RssAnon']} MB, file {start['RssFile']} MB",
          flush=True)
    for call in range(1, args.calls + 1):
        batch = [texts[(2 * call) % len(texts)], texts[(2 * call + 1) % len(texts)]]
        began = time.perf_counter()
        embed(batch)
        spent += time.perf_counter() - began
        if call % args.every == 0:
            now = memory_mb()
            print(f"{args.model} {call} calls: anon {now['RssAnon']} MB "
                  f"(+{now['RssAnon'] - start['RssAnon']}), file {now['RssFile']} MB "
                  f"(+{now['RssFile'] - start['RssFile']}), {1000 * spent / call:.1f} ms/call",
                  flush=True)


if __name__ == "__main__":
    main()
