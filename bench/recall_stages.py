"""Where a turn loses the evidence the search found (issue 30): the questions of
bench/recall_in_play.py asked as real turns, with the share of evidence lines counted at each
stage between the search and the model's request.

    .venv/bin/python bench/recall_stages.py --data ../shared/bench/realtalk-dev
        [--data DIR ...] [--limit-conversations N] [--skip-conversations N]
        [--limit-questions N] [--plain-only] [--verbose]

Stages, per question (evidence lines found, over the question's evidence lines):
  search@10   the bench function's search (query_user_history on the question, k=10)
  cands       the turn's candidates (memory.recall.turn.turn_candidates: CANDIDATES searched, lines shown,
              meta-talk, echoes and duplicates left out)
  floor       those the relevance floor keeps (all of them with a trigger word)
  taken       the lines the section takes (not in the conversation, best first while they fit the memory share)
  passages    the lines of the section's passages (a recalled line and the line before it)
  prompt      the lines in the request the model receives (recalled or in the conversation)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h  # noqa: E402
import recall_in_play as play  # noqa: E402
import turn_overhead as t  # noqa: E402
from long_chat import RecordingProvider  # noqa: E402

STAGES = ("search@10", "cands", "floor", "taken", "passages", "prompt")


def found(evidence: list[str], texts: list[str]) -> int:
    return sum(1 for line in evidence if any(line == text or line in text for text in texts))


class Spy:
    """Keeps what the turn path computed on the way (the last call of each stage)."""

    def __init__(self) -> None:
        self.candidates: list = []
        self.floor: list = []
        self.section: dict = {}

    def install(self) -> None:
        from chat.prompt import recall_section
        from memory.recall import turn as recall_turn

        candidates, section = recall_turn.turn_candidates, recall_section._section

        def candidates_spied(*args, **kwargs):
            result = candidates(*args, **kwargs)
            self.candidates = [s.hit.text for s in result[1]]
            self.floor = [s.hit.text for s in result[1]
                          if result[2] or recall_turn.floor_keeps(s, kwargs.get("floor")
                                                                  or recall_turn.FLOOR)]
            return result

        def section_spied(*args, **kwargs):
            result = section(*args, **kwargs)
            self.section = result.report
            return result

        recall_turn.turn_candidates = candidates_spied
        recall_section._section = section_spied


def conversation_stages(path: Path, store, owner, character_id: str, spy: Spy, *, limit: int,
                        plain_only: bool, verbose: bool) -> dict[str, dict[str, list[float]]]:
    # The app's modules read Django settings when imported: only after main() set Django up.
    from chat.services.instances import instance_create
    from chat.services.session_import import session_import
    from memory import runtime
    from memory.recall.rag import query_user_history
    from memory.vectors.sync import instance_sync

    conversation = json.loads(path.read_text(encoding="utf-8"))
    records, texts = play.conversation_lines(conversation.get("conversation", conversation))
    instance_id = instance_create(store, owner=owner, character_id=character_id)
    session_import(store, instance_id=instance_id,
                   data="".join(json.dumps(r) + "\n" for r in records).encode())
    index = runtime.index_for(store)
    instance_sync(store, index, instance_id=instance_id)
    provider = RecordingProvider()
    shares: dict[str, dict[str, list[float]]] = {"plain": {s: [] for s in STAGES},
                                                 "trigger": {s: [] for s in STAGES}}
    questions = [qa for qa in conversation["qa"] if qa.get("category") in play.CATEGORIES][:limit]
    kinds = (("plain", ""),) if plain_only else (("plain", ""), ("trigger", play.TRIGGER))
    for qa in questions:
        evidence = [texts[d] for d in qa.get("evidence") or [] if d in texts and texts[d].strip()]
        if not evidence:
            continue
        searched = [hit.text for hit in query_user_history(
            qa["question"], instance_id, index=index, force=True, k=10).hits]
        for kind, prefix in kinds:
            spy.candidates, spy.floor, spy.section = [], [], {}
            sent = play.turn(store, instance_id, provider, prefix + qa["question"])["sent"]
            report = spy.section
            stages = {
                "search@10": found(evidence, searched),
                "cands": found(evidence, spy.candidates),
                "floor": found(evidence, spy.floor),
                "taken": found(evidence, [hit["text"] for hit in report.get("hits") or []]),
                "passages": found(evidence, [line["text"] for p in report.get("passages") or []
                                             for line in p["lines"]]),
                "prompt": sum(1 for line in evidence if line in sent),
            }
            for stage, count in stages.items():
                shares[kind][stage].append(count / len(evidence))
            if verbose:
                print(f"    [{kind}] {qa['question'][:70]!r} n={len(evidence)} "
                      + " ".join(f"{s}={c}" for s, c in stages.items()), flush=True)
    return shares


def shares_line(shares: dict[str, list[float]]) -> str:
    return " ".join(f"{stage}={statistics.mean(values or [0]):.3f}"
                    for stage, values in shares.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", required=True, type=Path)
    parser.add_argument("--limit-conversations", type=int, default=1)
    parser.add_argument("--skip-conversations", type=int, default=0)
    parser.add_argument("--limit-questions", type=int, default=20)
    parser.add_argument("--keep-messages", type=int, default=10)
    parser.add_argument("--plain-only", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    with h.data_dir_temp() as data_dir:
        t.django_boot(data_dir)
        store, owner, character_id, _ = t.library_seed(data_dir)
        play.settings_for_play(store, keep=args.keep_messages)
        spy = Spy()
        spy.install()
        for folder in args.data:
            total: dict[str, dict[str, list[float]]] = {}
            paths = sorted(folder.glob("*.json"))
            for path in paths[args.skip_conversations:][:args.limit_conversations]:
                shares = conversation_stages(path, store, owner, character_id, spy,
                                             limit=args.limit_questions,
                                             plain_only=args.plain_only, verbose=args.verbose)
                for kind, stages in shares.items():
                    for stage, values in stages.items():
                        total.setdefault(kind, {}).setdefault(stage, []).extend(values)
                    if stages["prompt"]:
                        print(f"  {path.name} {kind}: {shares_line(stages)}", flush=True)
            for kind, stages in total.items():
                if stages["prompt"]:
                    print(f"stages[{folder.name}] {kind} n={len(stages['prompt'])} "
                          f"{shares_line(stages)}", flush=True)


if __name__ == "__main__":
    main()
