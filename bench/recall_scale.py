"""Recall query time over a large memory: one instance whose `turns` collection holds --turns lines.

    .venv/bin/python bench/recall_scale.py [--turns 100000] [--rounds 5] [--store DIR] [--profile]
        [--as-turn]

The memory is written straight into an embedded Chroma (documents, ids and metadata as
MemoryIndex.add_turns writes them, in sessions of 500 lines a day apart, two speakers) with random
unit vectors (in MiniLM's collection too, when the model is installed), because embedding 100,000 lines takes hours here; the lines are drawn from a
vocabulary of a few thousand words so BM25 has realistic postings; the keyword side is written
to the instance's keyword file as MemoryIndex writes it. The first question then runs on a fresh
index handle with no warm-up (timed apart: it reads the keyword snapshot and log and makes Chroma's
first search). Then each question below goes
through memory.recall.rag.query_user_history as a chat turn would: the query embedded by the real model,
Chroma searched, BM25 over the instance's keyword index, the question's parts, conditions, time
window and speakers. Prints p50 / p95 / max per question kind and overall, and the load.
--store keeps the filled Chroma folder for the next run (filling 100,000 lines takes minutes);
--profile prints where one round of questions spends its time. --as-turn asks each question as a
chat turn does (memory.recall.turn.recall_for_turn: its CANDIDATES lines, the relevance floor and
the lines around each, with a last exchange as context) instead of the bench function's 10.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from memory.recall.rag import query_user_history  # noqa: E402
from memory.recall.turn import CANDIDATES, recall_for_turn  # noqa: E402
from memory.vectors.index import SECOND, MemoryIndex, chroma_id, turn_metadata  # noqa: E402

INSTANCE = "inst_scale"
SPEAKERS = ("Maria", "John")
FIRST_DAY = date(2023, 1, 1)
QUESTIONS = {
    "plain": ["Do you remember what Maria said about the lake?", "你还记得我们之前的约定吗？"],
    "two-part": ["What did John paint? Also, where did Maria go hiking?",
                 "我住在哪个小区？另外，我喜欢的手机是哪一款呢？"],
    "conditional": ["那个是工程师的人，电话号码是多少？"],
    "dated": ["What did Maria donate in December 2023?", "What did we talk about last week?"],
    "speaker": ["What did John say about the garden?"],
}


def words_make(count: int, rng: np.random.Generator) -> list[str]:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["".join(rng.choice(letters, size=rng.integers(3, 9))) for _ in range(count)]


def memory_fill(index: MemoryIndex, turns: int, *, per_session: int = 500) -> float:
    rng = np.random.default_rng(7)
    vocabulary = words_make(4000, rng)
    weights = 1.0 / np.arange(1, len(vocabulary) + 1)  # Zipf-like: a few common words
    weights /= weights.sum()
    collection = index.collection("turns")
    second = index.collection(SECOND) if index.second_on() else None
    dim = len(index.query_embed("dimension"))
    started = time.perf_counter()
    for first in range(0, turns, per_session):
        session_id = f"sess_{first // per_session + 1:04d}"
        day = FIRST_DAY + timedelta(days=first // per_session)
        owner = {"instance_id": INSTANCE, "character_id": "char_scale", "background_id": "",
                 "session_id": session_id}
        ids, documents, metadatas = [], [], []
        for n in range(min(per_session, turns - first)):
            role = "user" if n % 2 == 0 else "assistant"
            line = {"turn": n // 2 + 1, "role": role, "timestamp": f"{day.isoformat()}T10:00:00Z",
                    "speaker": SPEAKERS[n % 2]}
            doc_id = f"turn_{session_id}_{line['turn']}_{role}"
            ids.append(chroma_id(INSTANCE, doc_id))
            documents.append(" ".join(rng.choice(vocabulary, size=rng.integers(5, 25), p=weights)))
            metadatas.append({**turn_metadata(line, owner), "doc_id": doc_id})
        vectors = rng.standard_normal((len(ids), dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        collection.upsert(ids=ids, documents=documents, metadatas=metadatas,
                          embeddings=vectors.tolist())
        if second is not None:
            vectors = rng.standard_normal((len(ids), 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            second.upsert(ids=ids, metadatas=metadatas, embeddings=vectors.tolist())
        index.keywords.upsert("turns", INSTANCE, [
            (meta["doc_id"], document, meta) for document, meta in zip(documents, metadatas)])
    return time.perf_counter() - started


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


LAST_EXCHANGE = "We walked back along the shore. The rain had stopped by then."


def question_ask(question: str, index: MemoryIndex, now: date, *, as_turn: bool):
    if as_turn:
        return recall_for_turn(question, INSTANCE, index=index, shown_texts=[question],
                               last_exchange=LAST_EXCHANGE).result
    return query_user_history(question, INSTANCE, index=index, force=True, now=now)


def questions_time(index: MemoryIndex, now: date, rounds: int, *,
                   as_turn: bool = False) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {kind: [] for kind in QUESTIONS}
    for _ in range(rounds):
        for kind, questions in QUESTIONS.items():
            for question in questions:
                started = time.perf_counter()
                result = question_ask(question, index, now, as_turn=as_turn)
                times[kind].append((time.perf_counter() - started) * 1000)
                if result.warning:
                    raise SystemExit(f"recall failed: {result.warning}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--store", type=Path, default=None,
                        help="keep the filled memory here and reuse it on the next run")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--as-turn", action="store_true",
                        help=f"ask as a chat turn does ({CANDIDATES} candidates, the floor)")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        folder = args.store or Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="recall_scale_")))
        places = {"chroma_path": folder / "chroma", "keywords_path": folder / "keywords"}
        index = MemoryIndex(**places)
        filled = index.count("turns") if args.store and folder.exists() else 0
        if filled and index.second_on() and index.count(SECOND) != filled:
            filled = 0  # a store filled before the second model: fill both again
        fill = memory_fill(index, args.turns) if filled != args.turns else 0.0
        index = MemoryIndex(**places)  # a fresh handle: nothing of this memory in the process
        now = FIRST_DAY + timedelta(days=args.turns // 500)
        started = time.perf_counter()
        question_ask(QUESTIONS["plain"][0], index, now, as_turn=args.as_turn)
        first = time.perf_counter() - started
        questions_time(index, now, 1, as_turn=args.as_turn)  # engines and keyword arrays warm up
        times = questions_time(index, now, args.rounds, as_turn=args.as_turn)
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(questions_time, index, now, 1, as_turn=args.as_turn)
            pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
    print(f"{args.turns} turns: filled in {fill:.0f} s (random vectors; 0 = reused), first "
          f"question on a fresh handle (no warm-up) {first * 1000:.0f} ms")
    for kind, values in times.items():
        print(f"  {kind:12s} n={len(values):3d} p50 {statistics.median(values):6.1f} ms  "
              f"p95 {percentile(values, 0.95):6.1f} ms  max {max(values):6.1f} ms")
    every = [value for values in times.values() for value in values]
    print(f"recall_query{'_as_turn' if args.as_turn else ''} turns={args.turns} p50={statistics.median(every):.0f}ms "
          f"p95={percentile(every, 0.95):.0f}ms load={os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
