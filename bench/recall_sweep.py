"""Several recall settings measured on one index build: each conversation is indexed once (as
bench/recall_locomo.py does) and every question is asked under each setting, so a sweep of a
weight costs one run, and the questions a setting changes are counted.

    .venv/bin/python bench/recall_sweep.py --data DIR [--data DIR2 ...] --embed-cache DIR
        --try 'dense55:rag.DENSE_WEIGHT=0.55' --try 'k1:keywords.K1=1.6,keywords.B=0.5'

A setting names module constants of memory.recall.rag, memory.keyword_index.bm25, memory.recall.feedback or
memory.recall.focus and their values (Python literals). The first row is the code as it stands; each
other row ends with how many questions it changed at recall@10 and how many of those gained.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import statistics
import sys
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from recall_locomo import QUESTION_CATEGORIES, CachedEmbedder, conversation_sessions  # noqa: E402

from memory.keyword_index import bm25 as keywords
from memory.recall import feedback, focus, rag
from memory.recall.rag import query_user_history  # noqa: E402
from memory.vectors.index import MemoryIndex  # noqa: E402

MODULES = {"rag": rag, "keywords": keywords, "feedback": feedback, "focus": focus}
KS = (5, 10, 25)
Setting = tuple[str, dict[str, Any]]


def setting_parse(text: str) -> Setting:
    """'label:rag.DENSE_WEIGHT=0.55,keywords.K1=1.6' -> (label, {"rag.DENSE_WEIGHT": 0.55, ...})."""
    label, _, assignments = text.partition(":")
    values: dict[str, Any] = {}
    for assignment in filter(None, (part.strip() for part in assignments.split(","))):
        name, _, value = assignment.partition("=")
        module, _, constant = name.strip().partition(".")
        if module not in MODULES or not hasattr(MODULES[module], constant):
            raise SystemExit(f"unknown setting {name!r}: use rag., keywords., feedback. or focus.")
        values[name.strip()] = ast.literal_eval(value.strip())
    return label or assignments, values


def setting_apply(values: dict[str, Any]) -> dict[str, Any]:
    """Sets the constants; returns the values they had."""
    before = {}
    for name, value in values.items():
        module, _, constant = name.partition(".")
        before[name] = getattr(MODULES[module], constant)
        setattr(MODULES[module], constant, value)
    return before


def conversation_ask(path: Path, workdir: Path, settings: list[Setting],
                     embedder: Any) -> dict[str, list[dict[str, Any]]]:
    """Per setting label: each question's category and recall at KS."""
    data = json.loads(path.read_text(encoding="utf-8"))
    instance_id = "sweep_" + re.sub(r"[^a-z0-9_]", "_", path.stem.lower())[:50]
    # MiniLM's vectors cached beside e5's, as recall_locomo.py does (the app's recall)
    index = MemoryIndex(chroma_path=workdir / instance_id, embedder=embedder,
                        second=embedder.second if embedder is not None else None)
    id_to_dia: dict[str, str] = {}
    last_day = ""
    for session_id, lines, id_map in conversation_sessions(data.get("conversation", data)):
        last_day = max([last_day, *(line["timestamp"][:10] for line in lines)])
        index.add_turns(instance_id=instance_id, character_id="char_bench", background_id=None,
                        session_id=session_id, turns=lines)
        id_to_dia.update(id_map)
    now = date.fromisoformat(last_day) if last_day else None
    asked = [qa for qa in data["qa"]
             if qa.get("category") in QUESTION_CATEGORIES and qa.get("evidence")]
    results: dict[str, list[dict[str, Any]]] = {}
    for label, values in settings:
        before = setting_apply(values)
        try:
            results[label] = [_question_recall(qa, index, instance_id, now, id_to_dia)
                              for qa in asked]
        finally:
            setting_apply(before)
    return results


def _question_recall(qa: dict[str, Any], index: MemoryIndex, instance_id: str,
                     now: date | None, id_to_dia: dict[str, str]) -> dict[str, Any]:
    evidence = set(qa["evidence"])
    hits = query_user_history(qa["question"], instance_id, index=index, force=True,
                              k=max(KS), now=now).hits
    found = [id_to_dia.get(hit.id) for hit in hits]
    return {"category": qa["category"],
            **{k: len(evidence & set(found[:k])) / len(evidence) for k in KS}}


def row_print(label: str, per_set: dict[str, list[dict[str, Any]]],
              baseline: dict[str, list[dict[str, Any]]] | None) -> None:
    cells = [label.ljust(16)]
    for name, questions in per_set.items():
        means = "/".join(f"{statistics.mean(q[k] for q in questions):.3f}" for k in KS)
        categories = " ".join(
            f"{c}:{statistics.mean(q[10] for q in questions if q['category'] == c):.3f}"
            for c in sorted({q["category"] for q in questions}))
        cells.append(f"{name} @5/10/25 {means} [@10 {categories}]")
    if baseline is not None:
        pairs = [(old[10], new[10]) for name in per_set
                 for old, new in zip(baseline[name], per_set[name])]
        changed = [(old, new) for old, new in pairs if abs(old - new) > 1e-9]
        cells.append(f"changed {len(changed)}, gained {sum(new > old for old, new in changed)}")
    print(" | ".join(cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, action="append", required=True,
                        help="a folder of conversations in the LoCoMo layout (repeatable)")
    parser.add_argument("--try", dest="tries", action="append", default=[],
                        help="LABEL:module.CONSTANT=VALUE[,module.CONSTANT=VALUE] (repeatable)")
    parser.add_argument("--embed-cache", type=Path, default=None,
                        help="keep vectors in this folder between runs (ranking work only)")
    args = parser.parse_args()
    settings = [("as is", {}), *(setting_parse(text) for text in args.tries)]
    embedder = CachedEmbedder(args.embed_cache) if args.embed_cache else None
    table: dict[str, dict[str, list[dict[str, Any]]]] = {label: {} for label, _ in settings}
    with tempfile.TemporaryDirectory(prefix="recall_sweep_") as tmp:
        for folder in args.data:
            for path in sorted(folder.glob("*.json")):
                for label, questions in conversation_ask(path, Path(tmp), settings,
                                                         embedder).items():
                    table[label].setdefault(folder.name, []).extend(questions)
    for label, _ in settings:
        row_print(label, table[label], None if label == "as is" else table["as is"])


if __name__ == "__main__":
    main()
