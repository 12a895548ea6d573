"""LoCoMo evidence-recall benchmark for the app's own recall path.

Each conversation becomes one instance: every LoCoMo session is a session of the instance, speaker A
speaks as the user and speaker B as the assistant, and every line goes through MemoryIndex.add_turns
as the app stores it, with the speaker's name (a line may carry "speaker"; --without-speaker-names
leaves it out). Every question of categories 1-4 is then asked through
memory.rag.query_user_history(force=True, k=10); a question's recall@k is the share of its evidence
turns (dia_id) found in the top k. Answers are never read.

    .venv/bin/python bench/recall_locomo.py [--data DIR] [--limit-conversations N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from memory.index import MemoryIndex  # noqa: E402
from memory.rag import query_user_history  # noqa: E402

QUESTION_CATEGORIES = (1, 2, 3, 4)


def session_timestamp(raw: str) -> str:
    """LoCoMo writes "1:56 pm on 8 May, 2023"; the app stores ISO 8601."""
    try:
        parsed = datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return ""
    return parsed.strftime("%Y-%m-%dT%H:%M:%SZ")


Session = tuple[str, list[dict[str, Any]], dict[str, str]]


def conversation_sessions(conversation: dict[str, Any], *, speakers: bool = True) -> list[Session]:
    """(session_id, session lines in the app's format, turn id -> dia_id) per LoCoMo session."""
    speaker_a = conversation["speaker_a"]
    sessions = []
    number = 1
    while f"session_{number}" in conversation:
        session_id = f"sess_{number:03d}"
        timestamp = session_timestamp(conversation.get(f"session_{number}_date_time", ""))
        lines, id_map = session_lines(conversation[f"session_{number}"], speaker_a=speaker_a,
                                      session_id=session_id, timestamp=timestamp)
        if not speakers:
            lines = [{k: v for k, v in line.items() if k != "speaker"} for line in lines]
        sessions.append((session_id, lines, id_map))
        number += 1
    return sessions


def session_lines(raw_turns: list[dict[str, Any]], *, speaker_a: str, session_id: str,
                  timestamp: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
    lines: list[dict[str, Any]] = []
    id_map: dict[str, str] = {}
    turn = 0
    roles_in_turn: set[str] = set()
    for raw in raw_turns:
        role = "user" if raw["speaker"] == speaker_a else "assistant"
        # One turn = one user line + one assistant line; a speaker talking twice opens a new turn.
        if turn == 0 or role in roles_in_turn or (role == "user" and roles_in_turn):
            turn += 1
            roles_in_turn = set()
        roles_in_turn.add(role)
        content = raw.get("text", "")
        if raw.get("blip_caption"):
            content = f"{content} [shares a photo: {raw['blip_caption']}]"
        lines.append({"role": role, "content": content, "turn": turn, "timestamp": timestamp,
                      "speaker": raw["speaker"]})
        id_map[f"turn_{session_id}_{turn}_{role}"] = raw["dia_id"]
    return lines, id_map


def conversation_run(path: Path, workdir: Path, *, speakers: bool) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    conversation = data.get("conversation", data)
    instance_id = f"locomo_{path.stem.replace('-', '_')}"
    index = MemoryIndex(chroma_path=workdir / instance_id)
    id_to_dia: dict[str, str] = {}
    turn_count = 0
    started = time.perf_counter()
    for session_id, lines, id_map in conversation_sessions(conversation, speakers=speakers):
        index.add_turns(instance_id=instance_id, character_id="char_locomo", background_id=None,
                        session_id=session_id, turns=lines)
        id_to_dia.update(id_map)
        turn_count += len(lines)
    embed_seconds = time.perf_counter() - started
    recalls_5, recalls_10, query_seconds = [], [], []
    for qa in data["qa"]:
        evidence = set(qa.get("evidence") or [])
        if qa.get("category") not in QUESTION_CATEGORIES or not evidence:
            continue
        started = time.perf_counter()
        result = query_user_history(qa["question"], instance_id, index=index, force=True, k=10)
        query_seconds.append(time.perf_counter() - started)
        if result.warning:
            raise SystemExit(f"recall failed: {result.warning}")
        found = [id_to_dia.get(hit.id) for hit in result.hits]
        recalls_5.append(len(evidence & set(found[:5])) / len(evidence))
        recalls_10.append(len(evidence & set(found[:10])) / len(evidence))
    return {"name": path.stem, "turns": turn_count, "questions": len(recalls_10),
            "embed_seconds": embed_seconds, "query_seconds": query_seconds,
            "recall_5": recalls_5, "recall_10": recalls_10}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench" / "locomo")
    parser.add_argument("--limit-conversations", type=int, default=0)
    parser.add_argument("--without-speaker-names", action="store_true",
                        help="store lines without the speaker's name (only role user/assistant)")
    args = parser.parse_args()
    files = sorted(args.data.glob("*.json"))
    if args.limit_conversations:
        files = files[: args.limit_conversations]
    if not files:
        raise SystemExit(f"no LoCoMo conversation files in {args.data}")
    runs = []
    with tempfile.TemporaryDirectory(prefix="locomo_recall_") as tmp:
        for path in files:
            run = conversation_run(path, Path(tmp), speakers=not args.without_speaker_names)
            runs.append(run)
            print(f"{run['name']}: turns={run['turns']} questions={run['questions']} "
                  f"recall@5={statistics.mean(run['recall_5']):.3f} "
                  f"recall@10={statistics.mean(run['recall_10']):.3f} "
                  f"embed={run['embed_seconds']:.1f}s", flush=True)
    summary_print(runs)


def summary_print(runs: list[dict[str, Any]]) -> None:
    recall_5 = [r for run in runs for r in run["recall_5"]]
    recall_10 = [r for run in runs for r in run["recall_10"]]
    turns = sum(run["turns"] for run in runs)
    embed = sum(run["embed_seconds"] for run in runs)
    queries = [q for run in runs for q in run["query_seconds"]]
    print(f"conversations={len(runs)} turns={turns} questions={len(recall_10)}")
    print(f"embedding: {embed / turns * 1000:.1f} s per 1,000 turns (index writes included)")
    print(f"query: mean {statistics.mean(queries) * 1000:.0f} ms, "
          f"p95 {sorted(queries)[int(0.95 * (len(queries) - 1))] * 1000:.0f} ms")
    print(f"recall@5={statistics.mean(recall_5):.3f}")
    print(f"recall@10={statistics.mean(recall_10):.3f}")


if __name__ == "__main__":
    main()
