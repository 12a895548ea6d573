"""The recalled section of a turn's prompt (flow step 2.5): what memory/recall/turn.py finds for
the player's line, as passages (a recalled line with the line before it; lines next to each
other in the chat merged into one passage), never a line the prompt's conversation already
shows, best first until the memory share of the window is full (the section budget)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from chat.prompt.conversation import line_placement
from chat.prompt.give_way import giving_way_tokens, memory_part
from chat.prompt.inputs import PromptResult
from library.find_replace.scripts import RegexRun
from memory import runtime as memory_runtime
from memory.recall.passages import Near, Passage, passages_merge
from memory.recall.rag import recall_mode
from memory.recall.turn import TurnRecall, asked_parts, normalized, recall_for_turn
from memory.selectors import recall_enabled
from memory.vectors.index import Hit
from personalab.lib.filestore.store import FileStore
from personalab.lib.macros import message_macros_replace
from personalab.lib.tokens import count_tokens

SPEAKER_MARK = {"zh": "："}  # what follows a speaker's name in the section's lines
# The best lines come with the line before them (the question a reply answers); the rest
# alone, so the memory share holds twice as many of them. Measured (bench/recall_floor.py,
# docs/memory.md), the share filled with a trigger word, check conversations: every line with
# the line before LoCoMo 0.84 / REALTALK 0.89, the first 10 only 0.90 / 0.90.
CONTEXT_LINES = 10
# How far back the player's line a follow-up leans on is looked for: past a group's round of
# replies, no further.
MESSAGES_BACK = 8
# What a recalled line costs besides its text: "- [2023-05-08] Name: " and the line break.
LINE_OVERHEAD_TOKENS = 12
# SillyTavern's depth of a message is how many come after it; a recalled line is older than
# the conversation the prompt shows, so a script's max depth keeps it and a min depth takes it.
RECALLED_DEPTH = 1_000_000


# How a prompt shows a session line (its message's text): as it is, or its macros filled and
# in a group another's line as "Name: …" (chat/play/memory.py recall_shown_as).
ShownAs = Callable[[dict[str, Any]], str]


def as_said(line: dict[str, Any]) -> str:
    return str(line.get("content") or "")


@dataclass
class RecallSection:
    """A turn's recall: what the trace keeps (`report`) and what can still be chosen when the
    conversation turns out to show some of it (`found`): `shown` holds the shown lines'
    texts as the prompt holds them, normalized, `shown_as` turns a recalled line into that."""

    report: dict[str, Any]
    found: TurnRecall | None = None
    shown: set[str] = field(default_factory=set)
    budget: int = 0  # tokens: the memory share of the window
    shown_as: ShownAs = as_said


def recall_prepare(store: FileStore, *, instance_id: str, user_text: str,
                   lines: list[dict[str, Any]], witnessed: Callable[[Mapping[str, Any]], bool],
                   related_instance_ids: list[str], newest_shown: int,
                   memory_tokens: int,
                   members: Callable[[], Iterable[str]] = tuple) -> RecallSection:
    """Searched on every player line; `newest_shown` of the newest `lines` are taken to be in
    the prompt (recall_unshown checks it once the prompt is built); passages are taken best
    first while they fit `memory_tokens` (the memory share of the window). `members` reads
    the conversation's characters' names (a question addressed to one is not about the name),
    only when the line is searched."""
    if not recall_enabled(store):
        return RecallSection({"mode": None, "hits": [], "query": "", "disabled": True})
    if not asked_parts(user_text) and not recall_mode(user_text):
        return RecallSection({"mode": None, "hits": [], "query": ""})
    index, warning = memory_runtime.index_for_turn(store)
    if index is None:
        return RecallSection({"mode": None, "hits": [], "query": "", "warning": warning})
    last_exchange = " ".join(str(line.get("content") or "") for line in lines[-3:-1])
    found = recall_for_turn(user_text, instance_id, index=index, shown_texts=[user_text],
                            last_exchange=last_exchange,
                            player_before=player_before(lines, user_text),
                            related_instance_ids=related_instance_ids, witnessed=witnessed,
                            members=tuple(members()))
    for near in found.near.values():  # a line the speaker did not witness is not context either
        near.before = near.before if near.before and witnessed(near.before.metadata) else None
        near.after = near.after if near.after and witnessed(near.after.metadata) else None
    shown = {normalized(str(line.get("content") or ""))
             for line in lines[-newest_shown:] if line.get("role")} if newest_shown else set()
    return _section(found, shown, memory_tokens)


def player_before(lines: list[dict[str, Any]], user_text: str) -> str:
    """The player's line before `user_text` (which the session may already hold as its newest
    player line): what a follow-up ("And her birthday?") leans on."""
    players = [str(line.get("content") or "") for line in lines[-MESSAGES_BACK:]
               if line.get("role") == "user"]
    if players and players[-1].strip() == user_text.strip():
        players.pop()
    return players[-1] if players else ""


def _section(found: TurnRecall, shown: set[str], budget: int, *,
             shown_as: ShownAs = as_said) -> RecallSection:
    """The recalled lines not shown, best first, as passages, as many as fit `budget` tokens."""
    hits = [hit for hit in found.result.hits if not _is_shown(hit, shown, shown_as)]
    near = {hit.key: found.near[hit.key] if rank < CONTEXT_LINES else Near()
            for rank, hit in enumerate(hits) if hit.key in found.near}
    if hits and _cost(hits[0], near) > budget:  # the best line alone, when that is what fits
        near[hits[0].key] = replace(near.get(hits[0].key, Near()), before=None)
    hits = _fitting(hits, near, budget)
    passages = passages_merge(hits, near)
    for passage in passages:
        recalled = {hit.key for hit in passage.hits}
        passage.lines = [line for line in passage.lines
                         if line.key in recalled or not _is_shown(line, shown, shown_as)]
    report = {
        "mode": found.result.mode,
        "query": found.result.query,
        "hits": [{**_recalled_line(hit), "source": hit.source,
                  "score": round(float(hit.score), 4)} for hit in hits],
        "passages": [_passage(passage) for passage in passages],
        "warning": found.result.warning,
    }
    return RecallSection(report, found=found, shown=shown, budget=budget, shown_as=shown_as)


def _is_shown(hit: Hit, shown: set[str], shown_as: ShownAs) -> bool:
    """Whether the prompt holds the recalled line as it would show it. A group's greetings
    recalled together (`joined`, "Mira: …" a line each) are shown when each of them is."""
    said = {"role": str(hit.metadata.get("role") or ""), "content": hit.text,
            **{key: str(hit.metadata[key]) for key in ("speaker", "name", "timestamp")
               if hit.metadata.get(key)}}
    if not hit.metadata.get("joined"):
        return normalized(shown_as(said)) in shown
    parts = [part.partition(": ") for part in hit.text.split("\n")]
    return all(normalized(shown_as({**said, "name": name, "content": text})) in shown
               for name, _, text in parts)


def _cost(hit: Hit, near: dict[tuple[str, str, str], Near]) -> int:
    """The tokens a recalled line takes with the line before it."""
    before = near.get(hit.key, Near()).before
    return sum(count_tokens(line.text) + LINE_OVERHEAD_TOKENS
               for line in (before, hit) if line is not None)


def _fitting(hits: list[Hit], near: dict[tuple[str, str, str], Near], budget: int) -> list[Hit]:
    """The first hits whose lines (each with the line before it, once) fit `budget` tokens."""
    taken: list[Hit] = []
    counted: set[tuple[str, str, str]] = set()
    used = 0
    for hit in hits:
        before = near.get(hit.key, Near()).before
        lines = [line for line in (before, hit) if line is not None and line.key not in counted]
        cost = sum(count_tokens(line.text) + LINE_OVERHEAD_TOKENS for line in lines)
        if used + cost > budget:
            break
        used += cost
        counted.update(line.key for line in lines)
        taken.append(hit)
    return taken


def recall_unshown(section: RecallSection, messages: Iterable[dict[str, Any]], *,
                   shown_as: ShownAs = as_said) -> RecallSection | None:
    """The section again for what the built prompt's conversation does show (None when that
    changes nothing): the lines in front of the model are never recalled, whoever said them,
    and a newest line the window left out (taken to be shown while searching) can be. In a
    small window the prompt holds fewer than the newest messages the search leaves out
    (bench/play_long.py, LoCoMo conv-26 at 2,048 tokens: a line said again 3 turns before was
    in neither; MemDaily u49 in a group: the conversation held five of the newest ten lines).
    `shown_as`: how the prompt shows a line ("Mira: …" for another member's in a group); a
    recalled line is matched whole as it would be shown, never found inside another message
    (one the player's line quotes back is not shown by the quote: MemDaily u41 at 2,048)."""
    if section.found is None:
        return None
    sent = {normalized(str(message.get("content") or "")) for message in messages
            if message.get("role") in ("user", "assistant")}
    again = _section(section.found, sent, section.budget, shown_as=shown_as)
    return again if again.report["passages"] != section.report["passages"] else None


def recall_shrunk(section: RecallSection, prompt: PromptResult) -> RecallSection | None:
    """The section smaller, its worst passages out, when the prompt built with it is refused,
    or when it took more than the recent conversation while older messages wait for room (the
    two then share it): recall never stops a turn nor crowds out the chat as it stands. None when
    nothing is to give."""
    taken = _tokens(prompt, "recalled")
    if section.found is None or not section.report.get("passages") or taken <= 0:
        return None
    if prompt.refused:
        over = prompt.total_tokens - prompt.window["prompt_limit"]
    elif prompt.window.get("full"):  # the recaps, biography and reminder keep their part
        over = taken - memory_part(prompt, mine=taken, other=giving_way_tokens(prompt))
    else:
        return None
    if over <= 0:
        return None
    # At least an eighth each time: the rendered section and the passages' count differ a little.
    budget = max(min(section.budget, taken) - max(over, taken // 8, 1), 0)
    if section.found.triggered and not prompt.refused:
        # The player asks to remember: the best line found stays, alone, while older messages
        # wait for room (in a 2,048-token group chat "Did I mention it the other day? …" sent
        # no recalled line at all).
        hits = section.report.get("hits") or []
        least = count_tokens(str(hits[0].get("text") or "")) + LINE_OVERHEAD_TOKENS if hits else 0
        if budget < least:
            if section.budget <= least:
                return None
            budget = least
    return _section(section.found, section.shown, budget, shown_as=section.shown_as)


def _tokens(prompt: PromptResult, name: str) -> int:
    return next((report.tokens for report in prompt.sections if report.name == name), 0)


def _passage(passage: Passage) -> dict[str, Any]:
    hits = {hit.key for hit in passage.hits}
    first = passage.hits[0]
    return {"source": first.source, "date": _recalled_line(passage.lines[0])["date"],
            "lines": [{**_recalled_line(line), "recalled": line.key in hits}
                      for line in passage.lines] or [_recalled_line(first)]}


def _recalled_line(hit: Hit) -> dict[str, Any]:
    """What the prompt shows of a recalled line: who said it and when, besides the text."""
    return {"id": hit.id, "collection": hit.collection, "text": hit.text,
            "instance_id": str(hit.metadata.get("instance_id") or ""),
            "role": str(hit.metadata.get("role") or ""),
            "speaker": str(hit.metadata.get("name") or hit.metadata.get("speaker") or ""),
            "date": str(hit.metadata.get("timestamp") or "")[:10],
            **({"joined": True} if hit.metadata.get("joined") else {})}


def recalled_entries(report: dict[str, Any], *, user_name: str, character_name: str,
                     locale: str, macros: Mapping[str, str] | None = None,
                     regex: RegexRun | None = None) -> list[dict[str, Any]]:
    """The section's items, one per passage, in the order they were said (the oldest first,
    so a correction comes after what it corrects: docs/decisions/recall-order.md), each with
    `rank`, its place best first (a cut keeps the best); a passage's lines in the order they
    were said, each with its speaker (the template shows an item's speaker and text; a passage's
    text carries them), and its macros filled in as the conversation's lines are (a greeting is
    kept as written), then a chat line gets the prompt's regex scripts (`regex`) as the
    conversation's do, so a block a card hides from the model is not sent back by recall (a
    summary, the model's own words, gets none, as in the conversation)."""
    mark = SPEAKER_MARK.get(locale.split("-")[0].split("_")[0], ": ")
    names = {"user": user_name, "assistant": character_name}
    own = members_macros(macros)
    entries = []
    ranked = list(enumerate(report.get("passages") or []))
    for rank, passage in sorted(ranked, key=lambda item: (_said_at(item[1]), item[0])):
        texts = [recalled_scripted(recalled_text(
            line["text"], speaker=line["speaker"], joined=bool(line.get("joined")),
            macros=macros, own=own, seed=line["id"]), role=line["role"],
            regex=regex if line.get("collection") == "turns" else None)
            for line in passage["lines"]]
        said = [text if line.get("joined") else f"{speaker}{mark}{text}"
                if (speaker := line["speaker"] or names.get(line["role"], "")) else text
                for line, text in zip(passage["lines"], texts)]
        entries.append({"text": "\n  ".join(said), "speaker": "", "date": passage["date"],
                        "source": passage["source"], "role": "", "rank": rank})
    return entries


_TURN_ID = re.compile(r"turn_(?P<session>.{1,200})_(?P<turn>\d{1,9})_(?P<role>user|assistant)")


def _said_at(passage: dict[str, Any]) -> tuple[str, int, str, int, int]:
    """When a passage's first line was said: its day, then its session and its place in it (a
    session's ids sort as they were opened, the shorter first: sess_999 before sess_1000). A
    summary, which has no place, comes first in its day."""
    first = (passage.get("lines") or [{}])[0]
    found = _TURN_ID.fullmatch(str(first.get("id") or ""))
    if found is None:
        return (str(passage.get("date") or ""), -1, "", -1, 0)
    return (str(passage.get("date") or ""), len(found["session"]), found["session"],
            int(found["turn"]), found["role"] == "assistant")


def members_macros(macros: Mapping[str, str] | None) -> dict[str, dict[str, str]]:
    """Each group member's macros by its name (a LineMacros' `by_speaker`), over the turn's."""
    return {str(values["char"]): {**macros, **values}
            for values in getattr(macros, "by_speaker", {}).values() if values.get("char")}


def recalled_text(text: str, *, speaker: str, joined: bool, macros: Mapping[str, str] | None,
                  own: dict[str, dict[str, str]], seed: str) -> str:
    """A recalled line with its macros filled as the chat shows it: in a group each member's
    line with its own {{char}}, not the recalling member's; a group's greetings recalled
    together (`joined`, "Mira: …" a line each) each with its speaker's."""
    if not joined:
        return _filled(text, own.get(speaker, macros), seed)
    filled = []
    for part in text.split("\n"):
        name, sep, said = part.partition(": ")
        filled.append(f"{name}{sep}{_filled(said, own[name], seed)}" if sep and name in own
                      else _filled(part, macros, seed))
    return "\n".join(filled)


def recalled_scripted(text: str, *, role: str, regex: RegexRun | None,
                      depth: int | None = RECALLED_DEPTH) -> str:
    """A recalled line after the prompt's regex scripts, as the conversation runs them on a
    message of that role (`depth` None: whatever the scripts' depth bounds)."""
    if not regex:
        return text
    return regex.text(text, line_placement({"role": role}), prompt=True, depth=depth)


def _filled(text: str, macros: Mapping[str, str] | None, seed: str) -> str:
    return message_macros_replace(text, macros, seed=seed) if macros else text
