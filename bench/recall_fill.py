"""Recall while an import is being embedded: the questions whose evidence lies in the part of a
chat the background fill has not embedded yet, asked during the fill and after it.

    .venv/bin/python bench/recall_fill.py --data ../shared/bench/realtalk-dev [--data DIR ...]
        [--embedded 0.5] [--embed-cache DIR]

Per conversation (LoCoMo layout, as bench/recall_locomo.py reads it): the newest sessions, a
share `--embedded` of them, are stored as the fill stores them (e5 and MiniLM into Chroma), the
older ones only in the keyword store, as an import leaves them before its fill reaches them
(memory/vectors/fill.py embeds newest first). Every question of categories 1-4 whose evidence is all
in the older part is asked through memory.recall.rag.query_user_history (force=True); then the older
sessions are embedded and the same questions asked again. Prints recall@10 during and after,
and the milliseconds per question; ends with `recall_fill[name] during=… after=…` per set.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from recall_locomo import QUESTION_CATEGORIES, CachedEmbedder, conversation_sessions  # noqa: E402

from memory.recall.rag import query_user_history  # noqa: E402
from memory.vectors.index import MemoryIndex  # noqa: E402

OWNER = {"instance_id": "bench_fill", "character_id": "char_bench", "background_id": None}


def questions_ask(index: MemoryIndex, questions: list[dict[str, Any]], *, id_to_dia: dict[str, str],
                  now: date | None) -> tuple[float, float]:
    """Mean recall@10 of `questions` and milliseconds per question."""
    recalls, started = [], time.perf_counter()
    for qa in questions:
        result = query_user_history(qa["question"], OWNER["instance_id"], index=index,
                                    force=True, k=10, now=now)
        if result.warning:
            raise SystemExit(f"recall failed: {result.warning}")
        found = {id_to_dia.get(hit.id) for hit in result.hits}
        evidence = set(qa["evidence"])
        recalls.append(len(evidence & found) / len(evidence))
    seconds = time.perf_counter() - started
    return statistics.mean(recalls), 1000 * seconds / len(questions)


def conversation_run(path: Path, workdir: Path, *, embedded: float, embedder: CachedEmbedder
                     ) -> dict[str, Any] | None:
    data = json.loads(path.read_text(encoding="utf-8"))
    sessions = conversation_sessions(data.get("conversation", data))
    index = MemoryIndex(chroma_path=workdir / path.stem, embedder=embedder,
                        second=embedder.second)
    waiting = len(sessions) - round(len(sessions) * embedded)
    id_to_dia: dict[str, str] = {}
    waiting_dia: set[str] = set()
    last_day = ""
    for number, (session_id, lines, id_map) in enumerate(sessions):
        id_to_dia.update(id_map)
        last_day = max([last_day, *(line["timestamp"][:10] for line in lines)])
        if number < waiting:
            waiting_dia.update(id_map.values())
        index.add_turns(**OWNER, session_id=session_id, turns=lines, before=None,
                        keywords_only=number < waiting)
    questions = [qa for qa in data["qa"] if qa.get("category") in QUESTION_CATEGORIES
                 and qa.get("evidence") and set(qa["evidence"]) <= waiting_dia]
    if not questions:
        return None
    now = date.fromisoformat(last_day) if last_day else None
    during = questions_ask(index, questions, id_to_dia=id_to_dia, now=now)
    for session_id, lines, _ in sessions[:waiting]:
        index.add_turns(**OWNER, session_id=session_id, turns=lines, before=None)
    after = questions_ask(index, questions, id_to_dia=id_to_dia, now=now)
    return {"name": path.stem, "questions": len(questions), "during": during, "after": after}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", required=True, type=Path)
    parser.add_argument("--embedded", type=float, default=0.5,
                        help="share of the sessions, newest first, embedded when the questions come")
    parser.add_argument("--embed-cache", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        embedder = CachedEmbedder(args.embed_cache or Path(temp) / "vectors")
        for folder in args.data:
            runs = [run for path in sorted(folder.glob("*.json"))
                    if (run := conversation_run(path, Path(temp), embedded=args.embedded,
                                                embedder=embedder)) is not None]
            for run in runs:
                print(f"{run['name']}: {run['questions']} questions; recall@10 during "
                      f"{run['during'][0]:.3f} ({run['during'][1]:.0f} ms/question), after "
                      f"{run['after'][0]:.3f} ({run['after'][1]:.0f} ms/question)", flush=True)
            weights = [run["questions"] for run in runs]
            during = sum(r["during"][0] * w for r, w in zip(runs, weights)) / sum(weights)
            after = sum(r["after"][0] * w for r, w in zip(runs, weights)) / sum(weights)
            print(f"recall_fill[{folder.name}] during={during:.3f} after={after:.3f} "
                  f"questions={sum(weights)}")


if __name__ == "__main__":
    main()
