"""Memory in play, asked the way people talk: a dev conversation of ../shared/bench/ imported as a
SillyTavern chat whose sessions end yesterday (each session on its own day, as a live chat played
over the last weeks), then questions asked as a player types them ("what was that show u said was
cringey", "我舅舅单位叫啥来着"), each plainly and with a time phrase worked out from the day its
evidence was said ("a couple days ago", "last week", "前几天", "上周"), through the real turn path.

    .venv/bin/python bench/recall_spoken.py [--data ../shared/bench] [--keep-messages 10]

Reported per conversation and phrasing: the share of evidence lines that reached the request.
Ends with `spoken[name] plain=… timed=… questions=…`. The questions are written for these
conversations (SPOKEN below); the app knows nothing of them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from datetime import date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h
import turn_overhead as t
from long_chat import RecordingProvider
from recall_in_play import settings_for_play

# file -> [(question as typed, evidence dia_ids)]; the player is speaker A.
SPOKEN = {
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        ("what was that show u said was cringey", ["D5:7"]),
        ("wait what happened with that dog lol", ["D6:41"]),
        ("what did u get from the coffee shop that time", ["D3:18"]),
        ("remember my covid test? what did it say", ["D3:60"]),
        ("who was coming to visit me from spain again?", ["D3:82"]),
        ("what was i gonna cook, the soup thing", ["D6:91"]),
        ("did i tell u about my nye party", ["D4:32"]),
        ("u saw ppl wearing masks somewhere right?", ["D3:54"]),
        ("what cake was i eating that morning haha", ["D1:23"]),
        ("why didnt i buy the lactaid thing again", ["D8:20"]),
    ],
    "memdaily-zh-dev/memdaily-u42.json": [
        ("那个农业创新启动会多少人来着？", ["D1:3"]),
        ("我刚路过的商场叫啥来着", ["D3:1"]),
        ("书法那个活动要办多久啊", ["D3:5"]),
        ("我舅舅单位叫啥来着？", ["D6:2"]),
        ("我同事邮箱多少来着", ["D2:2"]),
        ("我同事在哪上班来着", ["D2:5"]),
    ],
}


def when_said(days: int, chinese: bool) -> str:
    """How a person names a day `days` back."""
    if chinese:
        return ("昨天" if days == 1 else "前天" if days == 2 else "前几天" if days <= 6
                else "上周" if days <= 13 else f"{days // 7}个星期前")
    return ("yesterday" if days == 1 else "a couple days ago" if days == 2
            else "the other day" if days <= 6 else "last week" if days <= 13
            else "a couple of weeks ago" if days <= 20 else f"{days // 7} weeks ago")


def session_days(conversation: dict) -> dict[int, date]:
    """Each session's day, moved so the last session was yesterday (a day apart where the data
    gives no date)."""
    days: dict[int, date] = {}
    number = 1
    while f"session_{number}" in conversation:
        written = str(conversation.get(f"session_{number}_date_time") or "")
        try:
            days[number] = datetime.strptime(written.split(" on ")[-1], "%d %B, %Y").date()
        except ValueError:
            days[number] = days.get(number - 1, date(2024, 1, 1)) + timedelta(days=1)
        number += 1
    shift = date.today() - timedelta(days=1) - max(days.values())
    return {number: day + shift for number, day in days.items()}


def chat_records(conversation: dict, days: dict[int, date]) -> tuple[list[dict], dict[str, str],
                                                                      dict[str, date]]:
    speaker_a = conversation["speaker_a"]
    records = [{"user_name": speaker_a, "character_name": conversation["speaker_b"],
                "create_date": days[1].isoformat(), "chat_metadata": {}}]
    texts: dict[str, str] = {}
    said_on: dict[str, date] = {}
    for number, day in days.items():
        for position, raw in enumerate(conversation[f"session_{number}"]):
            texts[raw["dia_id"]], said_on[raw["dia_id"]] = raw.get("text", ""), day
            minute = min(position, 59 * 60)
            records.append({"name": raw["speaker"], "is_user": raw["speaker"] == speaker_a,
                            "is_system": False, "mes": raw.get("text", ""), "extra": {},
                            "send_date": f"{day:%B} {day.day}, {day.year} "
                                         f"{10 + minute // 60 % 12}:{minute % 60:02d}am"})
    return records, texts, said_on


def conversation_run(path: Path, questions: list[tuple[str, list[str]]], store, owner,
                     character_id: str) -> dict[str, list[float]]:
    # The app's modules read Django settings when imported: only after main() set Django up.
    from chat.play.turn import turn_run
    from chat.services.instances import instance_create
    from chat.services.session_import import session_import
    from memory import runtime
    from memory.vectors.sync import instance_sync

    conversation = json.loads(path.read_text(encoding="utf-8"))["conversation"]
    records, texts, said_on = chat_records(conversation, session_days(conversation))
    instance_id = instance_create(store, owner=owner, character_id=character_id)
    session_import(store, instance_id=instance_id,
                   data="".join(json.dumps(r) + "\n" for r in records).encode())
    instance_sync(store, runtime.index_for(store), instance_id=instance_id)
    provider = RecordingProvider()
    chinese = any("\u4e00" <= c <= "\u9fff" for c, _ in zip(questions[0][0], range(20)))
    found: dict[str, list[float]] = {"plain": [], "timed": []}
    for question, evidence in questions:
        days = (date.today() - said_on[evidence[0]]).days
        timed = (f"{when_said(days, chinese)}{question}" if chinese
                 else f"{question} {when_said(days, chinese)}")
        for kind, text in (("plain", question), ("timed", timed)):
            result = asyncio.run(turn_run(store, instance_id=instance_id, user_text=text,
                                          emit=t._emit, provider=provider))
            sent = "\n".join(m["content"] for m in provider.messages)
            share = sum(texts[d] in sent for d in evidence) / len(evidence)
            found[kind].append(share)
            if share < 1:
                recall = store.trace_read(instance_id, result.trace_id).get("retrievals") or {}
                hits = [str(hit.get("text") or "") for hit in recall.get("hits") or []]
                print(f"    missed ({kind}): {text!r}: searched {recall.get('query')!r}, "
                      f"{len(hits)} lines, first {hits[:2]!r}", flush=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared" / "bench")
    parser.add_argument("--keep-messages", type=int, default=10)
    args = parser.parse_args()
    with h.data_dir_temp() as data_dir:
        t.django_boot(data_dir)
        store, owner, character_id, _ = t.library_seed(data_dir)
        settings_for_play(store, keep=args.keep_messages)
        for name, questions in SPOKEN.items():
            found = conversation_run(args.data / name, questions, store, owner, character_id)
            print(f"spoken[{Path(name).stem}] plain={statistics.mean(found['plain']):.3f} "
                  f"timed={statistics.mean(found['timed']):.3f} "
                  f"questions={len(questions)}", flush=True)


if __name__ == "__main__":
    main()
