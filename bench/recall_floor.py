"""The relevance floor of recall in play (memory/recall/floor.py), chosen on some dev
conversations and checked on others.

    .venv/bin/python bench/recall_floor.py --data ../shared/bench/locomo [--data DIR ...]
        --dump /tmp/floor.json [--limit-conversations N] [--limit-questions N]
    .venv/bin/python bench/recall_floor.py --evaluate /tmp/floor.json [--tune conv-26,...]

The dump imports each conversation as bench/recall_in_play.py does, asks each question (and
small talk) once through memory.recall.turn.turn_candidates (the searched lines before the
floor) and keeps what the floor reads of each line and whether it is evidence. The evaluation
tries floors on the dump: the share of evidence a plain question brings into the prompt (a
kept line or a line shown around it) and the lines small talk adds, on the tuning
conversations and, separately, on the others.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h
import turn_overhead as t
from recall_in_play import CATEGORIES, SMALL_TALK, conversation_lines

MORE_SMALL_TALK = ["lol yeah", "That's awesome!", "See you tomorrow!", "What's up?",
                   "I'm so tired today.", "Wow, really?", "I had a long day at work.",
                   "Tell me more!", "Me too!", "哈哈，好的。", "晚安！"]
# Small talk that names something: a floor that lets every question with a content word
# through would recall lines here, and these count apart (kind "small_question").
SMALL_QUESTIONS = ["How was your weekend?", "What are you cooking tonight?",
                   "Did you sleep well last night?", "Any plans for the holidays?",
                   "How is the weather over there?", "What music are you listening to?",
                   "I just got back from the gym.", "My coffee is getting cold."]


def dump(args: argparse.Namespace) -> None:
    with h.data_dir_temp() as data_dir:
        t.django_boot(data_dir)
        # The app is imported once Django is set up on the temporary data folder.
        from chat.services.instances import instance_create
        from chat.services.session_import import session_import
        from memory import runtime
        from memory.recall import turn as recall_turn
        from memory.recall.turn import turn_candidates

        if args.candidates:
            recall_turn.CANDIDATES = args.candidates
        from memory.vectors.sync import instance_sync

        store, owner, character_id, _ = t.library_seed(data_dir)
        index = runtime.index_for(store)
        rows = []
        for folder in args.data:
            for path in sorted(folder.glob("*.json"))[args.skip_conversations:][
                    :args.limit_conversations]:
                conversation = json.loads(path.read_text(encoding="utf-8"))
                records, texts = conversation_lines(conversation.get("conversation",
                                                                     conversation))
                instance_id = instance_create(store, owner=owner, character_id=character_id)
                session_import(store, instance_id=instance_id,
                               data="".join(json.dumps(r) + "\n" for r in records).encode())
                instance_sync(store, index, instance_id=instance_id)
                questions = [qa for qa in conversation["qa"]
                             if qa.get("category") in CATEGORIES][:args.limit_questions]
                asked = [(qa["question"], [texts[d] for d in qa.get("evidence") or []
                                           if d in texts and texts[d].strip()])
                         for qa in questions]
                asked += [(text, None) for text in [*SMALL_TALK, *MORE_SMALL_TALK]]
                asked += [(text, None) for text in SMALL_QUESTIONS]
                for question, evidence in asked:
                    _, signals, _ = turn_candidates(question, instance_id, index=index,
                                                    shown_texts=[question])
                    rows.append({"set": folder.name, "conversation": path.stem,
                             "speakers": _speakers(path),
                             "kind": "question" if evidence is not None else
                             "small_question" if question in SMALL_QUESTIONS else "small",
                                 "question": question, "evidence": evidence,
                                 "lines": [_line(s) for s in signals]})
                # Written after each conversation, so a run cut short keeps what it asked.
                Path(args.dump).write_text(json.dumps(rows, ensure_ascii=False),
                                           encoding="utf-8")
                print(f"{folder.name}/{path.name}: {len(asked)} asked", flush=True)


def _speakers(path: Path) -> list[str]:
    conversation = json.loads(path.read_text(encoding="utf-8"))
    conversation = conversation.get("conversation", conversation)
    return [conversation["speaker_a"], conversation["speaker_b"]]


def _line(signals) -> dict:
    near = signals.near
    hit = signals.hit
    return {"text": hit.text, "ratio": round(signals.ratio, 4), "own": signals.own,
            "around": signals.around, "named": signals.named,
            # what each side of the fusion said of the line (memory.recall.rag.FusedHit)
            **{name: round(float(getattr(hit, name, 0.0)), 4)
               for name in ("dense", "keyword", "cosine", "second_cosine")},
            "before": near.before.text if near.before else None,
            "after": near.after.text if near.after else None}


def kept_lines(row: dict, floor, *, k: int) -> list[dict]:
    """The lines `floor` keeps of a dumped question, its signals read again from the texts
    (so a change of how words are read is measured without a new dump)."""
    from memory.recall.floor import Signals, asked_words, floor_keeps, shared_words
    from memory.recall.passages import Near
    from memory.vectors.index import Hit

    asked = asked_words(row["question"], set(row.get("speakers") or []))
    kept = []
    for rank, line in enumerate(row["lines"]):
        own, around = shared_words(asked, line["text"],
                                   [text for text in (line["before"], line["after"]) if text])
        signals = Signals(hit=Hit(id="", collection="turns", text=line["text"], score=0.0),
                          near=Near(), rank=rank, ratio=line["ratio"], own=own, around=around,
                          named=len(asked), asks=row["question"].rstrip().endswith(("?", "？")))
        if floor is None or floor_keeps(signals, floor):
            kept.append(line)
    return kept[:k]


def shown(kept: list[dict], *, after: bool) -> set[str]:
    texts = set()
    for line in kept:
        texts.update(filter(None, [line["text"], line["before"], line["after"] if after else None]))
    return texts


def evaluate_rows(rows: list[dict], floor, *, k: int, after: bool) -> dict:
    shares, small = [], []
    for row in rows:
        kept = kept_lines(row, floor, k=k)
        if row["evidence"] is None:
            small.append(len(kept))
        elif row["evidence"]:
            found = shown(kept, after=after)
            shares.append(sum(1 for line in row["evidence"] if line in found)
                          / len(row["evidence"]))
    return {"plain": statistics.mean(shares or [0]), "questions": len(shares),
            "small_median": statistics.median(small or [0]),
            "small_mean": statistics.mean(small or [0]),
            "lines": statistics.mean([len(kept_lines(r, floor, k=k)) for r in rows
                                      if r["evidence"]] or [0])}


def evaluate(args: argparse.Namespace) -> None:
    from memory.recall.floor import FLOOR, Floor

    rows = json.loads(Path(args.evaluate).read_text(encoding="utf-8"))
    speakers = {path.stem: _speakers(path) for folder in args.data for path in folder.glob("*.json")}
    for row in rows:
        row.setdefault("speakers", speakers.get(row["conversation"], []))
    tune = set(args.tune.split(",")) if args.tune else None
    floors = {"none": None, "own (main)": Floor()}
    for alone in (0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        floors[f"own+alone>={alone}"] = Floor(alone_ratio=alone)
        floors[f"own+around>=0.5+alone>={alone}"] = Floor(around_ratio=0.5, alone_ratio=alone)
    floors["FLOOR"] = FLOOR
    for top in (8, 10, 15, 20, 30):
        floors[f"FLOOR top_asked={top}"] = replace(FLOOR, top_asked=top)
    by_set: dict[str, list[dict]] = {}
    for row in rows:
        by_set.setdefault(row["set"], []).append(row)
    for name, floor in floors.items():
        for k in args.k:
            for after in (False, True):
                cells = []
                for set_name, set_rows in by_set.items():
                    part = {"tune": [r for r in set_rows if tune is None
                                     or r["conversation"] in tune],
                            "check": [r for r in set_rows if tune is not None
                                      and r["conversation"] not in tune]}
                    for label, chosen in part.items():
                        if not chosen:
                            continue
                        got = evaluate_rows(chosen, floor, k=k, after=after)
                        cells.append(f"{set_name[:8]}/{label} {got['plain']:.3f} "
                                     f"st {got['small_median']:g}/{got['small_mean']:.1f} "
                                     f"n {got['lines']:.1f}")
                print(f"{name:34s} k={k:2d} after={'y' if after else 'n'} | "
                      + " | ".join(cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", type=Path, default=[])
    parser.add_argument("--dump")
    parser.add_argument("--evaluate")
    parser.add_argument("--tune", default="")
    parser.add_argument("--k", type=lambda text: [int(v) for v in text.split(",")],
                        default=[8])
    parser.add_argument("--limit-conversations", type=int, default=100)
    parser.add_argument("--limit-questions", type=int, default=10_000)
    parser.add_argument("--skip-conversations", type=int, default=0)
    parser.add_argument("--candidates", type=int, default=0,
                        help="lines a turn searches (default: memory.recall.turn.CANDIDATES)")
    args = parser.parse_args()
    if args.dump:
        dump(args)
    if args.evaluate:
        with h.data_dir_temp() as data_dir:
            t.django_boot(data_dir)
            evaluate(args)


if __name__ == "__main__":
    main()
