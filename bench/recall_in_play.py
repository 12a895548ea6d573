"""Memory in play (issue 30 item 5): the dev conversations of ../shared/bench/ imported as
SillyTavern chats through the app's own import, their questions asked as chat turns through the
real turn path, and what reaches the model's request measured.

    .venv/bin/python bench/recall_in_play.py --data ../shared/bench/locomo
        [--data DIR ...] [--limit-conversations N] [--skip-conversations N]
        [--limit-questions N] [--keep-messages 10] [--without-second-model] [--[no-]lines-once]

Per conversation: one instance; the chat imported whole (speaker A is the player); the index
synced as the app does after an import; the prompt keeps only the newest --keep-messages
messages (history trimming), so what the model knows of older lines comes from recall. Each
question (categories 1-4) is asked twice, plainly and after "Do you remember?". The provider
answers at once and keeps each request (the app's own turn path, without HTTP).

Reported per set: the share of evidence lines found in the request (plain / trigger),
duplicate recalled lines, echoes (the question recalled back), recalled lines on small-talk
turns (median), and tokens per turn. Ends with one line per set: `in_play[name] plain=… trigger=…`.
--without-second-model: e5 alone, as an index whose MiniLM vectors are not filled yet recalls;
--[no-]lines-once: e5 embeds every line once (PERSONALAB_EMBED_LINES_ONCE), or never; by
default, the app's settings (once only in a fill of 1,000 lines or more).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h
import turn_overhead as t
from long_chat import RecordingProvider, prompt_tokens

from personalab.lib.embedding import embeddings

SMALL_TALK = ["Okay, how are you doing today?", "Haha, that's so funny.", "Good night!",
              "Thanks, you too.", "Sounds good to me."]
TRIGGER = "Do you remember? "
CATEGORIES = (1, 2, 3, 4)


def conversation_lines(conversation: dict) -> tuple[list[dict], dict[str, str]]:
    """The chat as SillyTavern records (speaker A is the player) and dia_id -> text."""
    speaker_a = conversation["speaker_a"]
    records = [{"user_name": speaker_a, "character_name": conversation["speaker_b"],
                "create_date": "2023-5-8", "chat_metadata": {}}]
    texts: dict[str, str] = {}
    number = 1
    while f"session_{number}" in conversation:
        for raw in conversation[f"session_{number}"]:
            text = raw.get("text", "")
            if raw.get("blip_caption"):
                text = f"{text} [shares a photo: {raw['blip_caption']}]"
            texts[raw["dia_id"]] = text
            records.append({"name": raw["speaker"], "is_user": raw["speaker"] == speaker_a,
                            "is_system": False, "send_date": "May 8, 2023 1:56pm", "mes": text,
                            "extra": {}})
        number += 1
    return records, texts


def evidence_share(evidence: list[str], texts: dict[str, str], sent: str) -> float | None:
    lines = [texts[d] for d in evidence if d in texts and texts[d].strip()]
    if not lines:
        return None
    return sum(1 for line in lines if line in sent) / len(lines)


def turn(store, instance_id: str, provider: RecordingProvider, text: str) -> dict:
    from chat.play.turn import turn_run

    result = asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=t._emit,
                                  provider=provider))
    trace = store.trace_read(instance_id, result.trace_id)
    hits = [hit["text"] for hit in (trace.get("retrievals") or {}).get("hits") or []]
    return {"sent": "\n".join(m["content"] for m in provider.messages), "hits": hits,
            "tokens": prompt_tokens(provider.messages),
            "trace_bytes": store.trace_path(instance_id, result.trace_id).stat().st_size}


def conversation_run(path: Path, store, owner, character_id: str, *, limit: int,
                     keep: int) -> dict:
    # The app's modules read Django settings when imported: only after main() set Django up.
    from chat.services.instances import instance_create
    from chat.services.session_import import session_import
    from memory import runtime
    from memory.vectors.sync import instance_sync

    conversation = json.loads(path.read_text(encoding="utf-8"))
    records, texts = conversation_lines(conversation.get("conversation", conversation))
    instance_id = instance_create(store, owner=owner, character_id=character_id)
    session_import(store, instance_id=instance_id,
                   data="".join(json.dumps(r) + "\n" for r in records).encode())
    instance_sync(store, runtime.index_for(store), instance_id=instance_id)
    provider = RecordingProvider()
    figures: dict = {"plain": [], "trigger": [], "duplicates": 0, "echoes": 0, "small": [],
                     "tokens": [], "trace_bytes": []}
    questions = [qa for qa in conversation["qa"] if qa.get("category") in CATEGORIES][:limit]
    for qa in questions:
        for kind, text in (("plain", qa["question"]), ("trigger", TRIGGER + qa["question"])):
            done = turn(store, instance_id, provider, text)
            share = evidence_share(qa.get("evidence") or [], texts, done["sent"])
            if share is not None:
                figures[kind].append(share)
            figures["duplicates"] += len(done["hits"]) - len(set(done["hits"]))
            figures["echoes"] += sum(1 for hit in done["hits"] if qa["question"] in hit)
            figures["tokens"].append(done["tokens"])
            figures["trace_bytes"].append(done["trace_bytes"])
    for text in SMALL_TALK:
        figures["small"].append(len(turn(store, instance_id, provider, text)["hits"]))
    return figures


def set_run(folder: Path, store, owner, character_id: str, *, conversations: int,
            questions: int, keep: int, skip: int = 0) -> dict:
    total: dict = {"plain": [], "trigger": [], "duplicates": 0, "echoes": 0, "small": [],
                   "tokens": [], "trace_bytes": []}
    for path in sorted(folder.glob("*.json"))[skip:][:conversations]:
        figures = conversation_run(path, store, owner, character_id, limit=questions, keep=keep)
        for key, value in figures.items():
            total[key] = total[key] + value
        print(f"  {path.name}: plain {statistics.mean(figures['plain'] or [0]):.3f} "
              f"trigger {statistics.mean(figures['trigger'] or [0]):.3f} "
              f"({len(figures['plain'])} questions)", flush=True)
    return total


def settings_for_play(store, *, keep: int) -> None:
    """Recall on, no recaps, the prompt's conversation cut to the newest `keep` messages."""
    store.module_write("memory", {"recall_enabled": True, "recaps_enabled": False})
    config = store.config_read()
    config["preferences"]["conversation_load_all"] = False
    store.config_write(config)
    store.module_write("history", {**store.module_read("history"), "trim_max_messages": keep,
                                   "trim_max_chars": 100_000})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", required=True, type=Path)
    parser.add_argument("--limit-conversations", type=int, default=100)
    parser.add_argument("--limit-questions", type=int, default=10_000)
    # The conversations after the first N: a check on conversations not used for tuning.
    parser.add_argument("--skip-conversations", type=int, default=0)
    parser.add_argument("--keep-messages", type=int, default=10)
    parser.add_argument("--without-second-model", action="store_true")
    # Default: the app's settings (lines once only in fills of 1,000 lines or more).
    parser.add_argument("--lines-once", action=argparse.BooleanOptionalAction, default=None)
    args = parser.parse_args()
    with h.data_dir_temp() as data_dir:
        t.django_boot(data_dir)
        if args.without_second_model:
            embeddings._models["minilm"] = None  # as when the wheel is missing
        if args.lines_once is not None:
            embeddings.LINES_ONCE = args.lines_once
            embeddings.LINES_ONCE_FROM = 0 if not args.lines_once else embeddings.LINES_ONCE_FROM
        store, owner, character_id, _ = t.library_seed(data_dir)
        settings_for_play(store, keep=args.keep_messages)
        for folder in args.data:
            print(f"{folder.name}:", flush=True)
            total = set_run(folder, store, owner, character_id,
                            conversations=args.limit_conversations,
                            questions=args.limit_questions, keep=args.keep_messages,
                            skip=args.skip_conversations)
            print(f"in_play[{folder.name}] plain={statistics.mean(total['plain'] or [0]):.3f} "
                  f"trigger={statistics.mean(total['trigger'] or [0]):.3f} "
                  f"questions={len(total['plain'])} duplicates={total['duplicates']} "
                  f"echoes={total['echoes']} "
                  f"small_talk_median={statistics.median(total['small'] or [0])} "
                  f"tokens_per_turn={statistics.mean(total['tokens'] or [0]):.0f} "
                  f"trace_kb_per_turn={statistics.mean(total['trace_bytes'] or [0]) / 1000:.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
