"""Rolling recaps: every `recap_every_n_rounds` a short summary of those rounds becomes pending;
once the pending summaries cover `recap_stack_every_rounds` rounds they are stacked (joined)
into one recap item. `recap_max_entries`: 1 keeps only the newest item, 0 or less keeps all.
The caller holds the instance lock."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext, gettext_noop

from memory import prompts
from memory.action_base import (
    LinesShown,
    int_setting,
    lines_shown_off_loop,
    llm_text,
    scene_of,
    speaker_of,
    turn_groups,
)
from memory.errors import MemoryActionError
from memory.item_lists import item_remove, item_reorder, item_update, items_doc_read
from memory.summaries.recap_copies import COPIED_TURNS_MOST, copies_recapped
from memory.summaries.transcript_parts import request_tokens, transcript_parts
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import random_id
from personalab.lib.uncancelled import thread_whole

RECAPS_FILE = "recaps"
# A roll also takes the turns no recap covers up to this many rolls back: those of a roll the
# model failed (an error, a timeout, an empty answer) or that a kill cut short were otherwise
# never recapped. An older gap (recaps turned on late in a long chat) is the rebuild's.
CATCH_UP_ROLLS = 4


def recap_items(store: FileStore, *, instance_id: str) -> list[dict[str, Any]]:
    return items_doc_read(store, instance_id, RECAPS_FILE, strict=False)["items"]


def recap_pending(store: FileStore, *, instance_id: str) -> list[dict[str, Any]]:
    data = items_doc_read(store, instance_id, RECAPS_FILE, strict=False)
    return [p for p in data.get("pending_summaries", []) if isinstance(p, dict)]


def recap_update(store: FileStore, *, instance_id: str, item_id: str, text: str) -> dict[str, Any]:
    return item_update(store, instance_id, RECAPS_FILE, item_id, text)


def recap_remove(store: FileStore, *, instance_id: str, item_id: str) -> dict[str, Any]:
    return item_remove(store, instance_id, RECAPS_FILE, item_id)


def recap_reorder(store: FileStore, *, instance_id: str, item_id: str,
                  new_index: int) -> list[dict[str, Any]]:
    return item_reorder(store, instance_id, RECAPS_FILE, item_id, new_index)


def _recap_settings(settings: dict[str, Any]) -> tuple[int, int, int]:
    every = int_setting(settings.get("recap_every_n_rounds"), 5)
    stack = int_setting(settings.get("recap_stack_every_rounds"), 10)
    return max(every, 1), max(stack, 1), int_setting(settings.get("recap_max_entries"), 20)


def _recap_doc(store: FileStore, instance_id: str) -> dict[str, Any]:
    data = items_doc_read(store, instance_id, RECAPS_FILE, strict=True)
    pending = data.get("pending_summaries", [])
    data["pending_summaries"] = [p for p in pending if isinstance(p, dict)] \
        if isinstance(pending, list) else []
    return data


async def _recap_chunk(store: FileStore, *, llm: Any, state: dict[str, Any], session_id: str,
                       lines: list[dict[str, Any]], from_turn: int, to_turn: int,
                       prompt_tokens: int | None = None,
                       shown: LinesShown | None = None) -> dict[str, Any]:
    """A recap of `lines`; with `prompt_tokens` (what one request may hold) their transcript is
    fitted to it: a turn too long is shortened in the middle, and when the turns still do not
    fit together the newest of them that do are recapped (a pasted book in one message made
    every recap of its turns a request the model refused); `shown`: how the chat's prompt shows
    them (its regex scripts)."""
    lines = await lines_shown_off_loop(lines, shown)
    name, locale = await speaker_of(store, state)
    members, player = await scene_of(store, state)
    scene = {"members": list(members.values()), "player_name": player}
    if prompt_tokens is not None:
        bare = prompts.recap_messages(character_name=name, turns=[], locale=locale, **scene)
        room = prompt_tokens - request_tokens(bare)
        lines = (await thread_whole(transcript_parts, lines, room=max(room, 1),
                                         character_name=name, locale=locale,
                                         player_name=player))[-1]
    messages = prompts.recap_messages(character_name=name, turns=lines, locale=locale,
                                      **scene)
    text = (await llm_text(llm, messages, {
        "task": "recap", "character_name": name, "transcript": lines,
        "instance_id": state.get("instance_id")})).strip()
    if not text:
        raise MemoryActionError(gettext("The model returned an empty recap."))
    return {"text": text, "from_turn": from_turn, "to_turn": to_turn, "session_id": session_id,
            "created_at": utc_now()}


def _recap_push(data: dict[str, Any], entry: dict[str, Any], *, stack_every: int,
                max_entries: int) -> dict[str, Any]:
    pending = data["pending_summaries"]
    pending.append(entry)
    covered = sum(p.get("to_turn", 0) - p.get("from_turn", 0) + 1 for p in pending)
    done = {"from_turn": entry["from_turn"], "to_turn": entry["to_turn"]}
    if covered < stack_every:
        return {"action": "pending", **done, "pending": len(pending)}
    item = {"id": random_id("recap"), "text": "\n".join(p["text"] for p in pending),
            "created_at": utc_now(), "from_turn": pending[0].get("from_turn"),
            "to_turn": pending[-1].get("to_turn"), "session_id": pending[-1].get("session_id"),
            "from_session_id": pending[0].get("session_id")}
    data["items"].append(item)
    data["pending_summaries"] = []
    return {"action": "stacked", **done, "pending": 0, "item": item,
            "removed": _recap_trim(data, max_entries)}


def _recap_trim(data: dict[str, Any], max_entries: int) -> list[str]:
    items = data["items"]
    if max_entries <= 0 or len(items) <= max_entries:
        return []
    # Items can be reordered by hand, so "oldest" is by creation time, list order breaking ties.
    by_age = sorted(range(len(items)), key=lambda i: (str(items[i].get("created_at", "")), i))
    drop = set(by_age[: len(items) - max_entries])
    data["items"] = [item for i, item in enumerate(items) if i not in drop]
    return [items[i]["id"] for i in sorted(drop)]


def recap_failed_warning(done: dict[str, Any]) -> dict[str, Any]:
    """What the player is told when a roll failed: the chat goes on, and nothing is lost."""
    first, last = done.get("from_turn"), done.get("to_turn")
    if first and last and first != last:
        turns = gettext("turns %(first)s–%(last)s") % {"first": first, "last": last}
    else:
        turns = gettext("turn %(turn)s") % {"turn": last} if last else gettext("the latest turns")
    return {"type": "warning", "category": "recap_failed",
            "message": gettext("The recap of %(turns)s could not be written: %(reason)s")
            % {"turns": turns, "reason": done.get("message") or ""},
            "current_value": None, "threshold": None, "detail": done.get("message") or "",
            "suggestion": gettext("The chat goes on and nothing is lost: the next recap takes "
                                  "these turns again, or rebuild the recaps on the memory "
                                  "page.")}


def _recapped_to(data: dict[str, Any], session_id: str) -> int:
    """The last turn of the session a recap covers (0: none)."""
    return max((int(entry.get("to_turn") or 0)
                for entry in [*data["pending_summaries"], *data["items"]]
                if entry.get("session_id") == session_id), default=0)


def _recap_covered(data: dict[str, Any], session_id: str, turn: int) -> bool:
    return any(entry.get("session_id") == session_id and entry.get("to_turn", 0) >= turn
               for entry in [*data["pending_summaries"], *data["items"]])


def _current_turns(store: FileStore, instance_id: str
                   ) -> tuple[dict[str, Any], str, dict[int, list[dict]], dict[str, Any]]:
    """The instance state, its current session's id, turns (lines by turn) and metadata."""
    state = store.instance_state_read(instance_id)
    session_id = state["current_session_id"]
    session = store.session_read(instance_id, session_id)
    groups = {group[0]["turn"]: group for group in turn_groups(session.messages_shown_to_model)}
    return state, session_id, groups, session.metadata


def _turns_to_recap(store: FileStore, instance_id: str, session_id: str,
                    metadata: dict[str, Any], groups: dict[int, list[dict]],
                    data: dict[str, Any], first: int, last: int) -> list[int]:
    """The turns of a roll over `first`..`last`: less the copies of turns a recap of the session
    before already covers; the first roll of a session also takes the copies none covers."""
    turns = [turn for turn in sorted(groups) if first <= turn <= last]
    entries = [*data["items"], *data["pending_summaries"]]
    rolled = any(session_id in (entry.get("session_id"), entry.get("from_session_id"))
                 for entry in entries)
    if rolled and first > COPIED_TURNS_MOST:  # no copy this far into the session
        return turns
    covered, uncovered = copies_recapped(store, instance_id=instance_id, metadata=metadata,
                                         groups=groups, entries=entries)
    before = [] if rolled else sorted(turn for turn in uncovered if turn < first)
    return before + [turn for turn in turns if turn not in covered]


async def recap_maybe_roll(store: FileStore, *, instance_id: str, llm: Any,
                           settings: dict[str, Any], prompt_tokens: int | None = None,
                           shown: LinesShown | None = None) -> dict[str, Any] | None:
    """Called after each finished turn. Returns what it did, or None when it had nothing to do.
    An LLM failure changes nothing and comes back as {"action": "failed", "message": ...}.
    `prompt_tokens`: what one request may hold (the chat's window), which the recap's
    transcript is fitted to; `shown`: how the chat's prompt shows its lines."""
    if not settings.get("recaps_enabled"):
        return None
    every, stack, max_entries = _recap_settings(settings)
    state, session_id, groups, metadata = await thread_whole(_current_turns, store,
                                                                  instance_id)
    last = max(groups, default=0)
    if last <= 0 or last % every:
        return None
    first = last - every + 1
    try:
        data = _recap_doc(store, instance_id)
        if _recap_covered(data, session_id, last):
            return None
        first = max(_recapped_to(data, session_id) + 1, last - every * CATCH_UP_ROLLS + 1)
        turns = await thread_whole(_turns_to_recap, store, instance_id, session_id,
                                        metadata, groups, data, first, last)
        if not turns:  # every turn of it a copy recapped in the session before
            return None
        entry = await _recap_chunk(store, llm=llm, state=state, session_id=session_id,
                                   lines=[line for turn in turns for line in groups[turn]],
                                   from_turn=turns[0], to_turn=last,
                                   prompt_tokens=prompt_tokens, shown=shown)
    except MemoryActionError as exc:
        return {"action": "failed", "from_turn": first, "to_turn": last, "message": exc.message}
    result = _recap_push(data, entry, stack_every=stack, max_entries=max_entries)
    store.memory_json_write(instance_id, RECAPS_FILE, data)
    return result


def recap_chunks(groups: dict[int, Any], *, covered: set[int],
                 every: int) -> list[tuple[int, list[int]]]:
    """Each whole run of `every` turns (its last turn, its turns no recap covers), in order;
    the turns after the last whole run wait for more. One pass over the turns: each run
    filtered every turn of the session again, on the server's event loop (50,000 turns held it
    103 s)."""
    last_end = max(groups, default=0) // every * every
    runs: dict[int, list[int]] = {}
    for turn in sorted(groups):
        end = -(-turn // every) * every
        if every <= end <= last_end and turn not in covered:
            runs.setdefault(end, []).append(turn)
    return list(runs.items())


async def recap_rebuild(store: FileStore, *, instance_id: str, llm: Any,
                        settings: dict[str, Any],
                        progress: Callable[..., None] | None = None,
                        prompt_tokens: int | None = None,
                        shown: LinesShown | None = None) -> dict[str, Any]:
    """Recompute the current session's recaps (its items and pending summaries) from its turns;
    recaps of earlier sessions are kept. All LLM calls happen before anything is written.
    `progress(text, values)` hears each request to the model (text untranslated);
    `prompt_tokens`: what one request may hold, as for `recap_maybe_roll`."""
    say = progress or (lambda text, values=None: None)
    every, stack, max_entries = _recap_settings(settings)
    state, session_id, groups, metadata = await thread_whole(_current_turns, store,
                                                                  instance_id)
    data = _recap_doc(store, instance_id)
    rebuilt = {**data,
               "items": [i for i in data["items"] if session_id not in
                         (i.get("session_id"), i.get("from_session_id"))],
               "pending_summaries": [p for p in data["pending_summaries"]
                                     if p.get("session_id") != session_id]}
    covered, _ = await thread_whole(
        copies_recapped, store, instance_id=instance_id, metadata=metadata, groups=groups,
        entries=[*rebuilt["items"], *rebuilt["pending_summaries"]])
    chunks = recap_chunks(groups, covered=covered, every=every)
    entries = []
    for part, (end, turns) in enumerate(chunks, start=1):
        say(gettext_noop("Recapping turns %(first)s–%(last)s, part %(part)s of %(parts)s"),
            {"first": turns[0], "last": end, "part": part, "parts": len(chunks)})
        entries.append(await _recap_chunk(
            store, llm=llm, state=state, session_id=session_id,
            lines=[line for turn in turns for line in groups[turn]],
            from_turn=turns[0] if covered else end - every + 1, to_turn=end,
            prompt_tokens=prompt_tokens, shown=shown))
    for entry in entries:
        _recap_push(rebuilt, entry, stack_every=stack, max_entries=max_entries)
    store.memory_json_write(instance_id, RECAPS_FILE, rebuilt)
    return {"chunks": len(entries), "items": rebuilt["items"],
            "pending": rebuilt["pending_summaries"]}
