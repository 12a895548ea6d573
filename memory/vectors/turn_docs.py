"""Which lines of a session memory holds, and the document id of each.

A line's id is its turn and role (`turn_sess_003_12_user`), which recall, the sync and the
feedback all read back. One id per line holds for every line but a group's first messages
(each member's greeting stands at turn 0 as the assistant) and the replies of one round of a
group, which is one turn (chat/groups/round.py). They are held as one document that names
each speaker, so every greeting can be recalled and no id is written twice (Chroma
refuses a batch that repeats one, and the group's memory stopped there)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memory.keyword_index.tokens import turn_text


def turn_doc_id(session_id: str, line: dict[str, Any]) -> str:
    return f"turn_{session_id}_{line['turn']}_{line['role']}"


def turn_is_indexable(line: dict[str, Any]) -> bool:
    if line.get("role") not in ("user", "assistant"):
        return False
    if line.get("error") or line.get("empty") or line.get("hidden"):
        return False
    return bool(str(line.get("content") or "").strip()) and isinstance(line.get("turn"), int)


def turns_indexable(lines: Iterable[Any]) -> list[dict[str, Any]]:
    """The indexable lines in file order, one per turn and role: lines that share both (a
    group's greetings, a round's replies) become the first of them with every one's text after
    its speaker's name, and no speaker of its own (`joined`: the recall section names no one
    over it)."""
    kept: dict[tuple[int, str], dict[str, Any]] = {}
    for line in lines:
        if not isinstance(line, dict) or not turn_is_indexable(line):
            continue
        key = (line["turn"], line["role"])
        first = kept.get(key)
        if first is None:
            kept[key] = line
            continue
        said = turn_text(str(first["content"]), first)
        kept[key] = {**first, "content": f"{said}\n{turn_text(str(line['content']), line)}",
                     "speaker": "", "name": "", "joined": True}
    return list(kept.values())
