"""The turns a summarize copied into its new session, and which of them a recap already covers.

Summarize starts the new session with the last turns of the old one (renumbered from 1, their
lines otherwise as they were: memory/summaries/summarize.py). Those turns were recapped in the old session
when its rolls reached them; recapped again in the new one, the model read the same turns twice
in the recaps. A copy a recap of the old session covers is left out of the new session's recaps;
a copy none covers (a summarize between two rolls) is recapped once, in the new session.
The caller holds the instance lock."""

from __future__ import annotations

from typing import Any

from memory.action_base import session_messages, turn_groups
from personalab.lib.config_schema import INT_RANGES
from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import StoreError

# A summarize copies at most this many turns (the setting's upper bound), so only the first
# turns of a session can be copies and only the newest turns of its source are read.
COPIED_TURNS_MOST = INT_RANGES["thresholds.summary_last_n_turns"][1]


def turn_group_key(group: list[dict[str, Any]]) -> tuple:
    """What a turn's lines say, by whom and when: the same in a copy, whatever its number."""
    return tuple((line.get("role"), line.get("content"), line.get("timestamp")) for line in group)


def recap_covers(entry: dict[str, Any], session_id: str, turn: int) -> bool:
    """Whether recap item or pending summary `entry` covers `turn` of `session_id`. A recap
    stacked across a summarize starts in one session and ends in the next, whose turn numbers
    restart: it covers the first session from its first turn on and the second up to its last."""
    first, last = entry.get("from_turn"), entry.get("to_turn")
    if not (isinstance(first, int) and isinstance(last, int)):
        return False
    ends_in = entry.get("session_id")
    starts_in = entry.get("from_session_id") or ends_in
    if starts_in == ends_in:
        return session_id == ends_in and first <= turn <= last
    return (session_id == starts_in and turn >= first) or (session_id == ends_in and turn <= last)


def copied_turns(store: FileStore, *, instance_id: str, metadata: dict[str, Any],
                 groups: dict[int, list[dict[str, Any]]]) -> dict[int, int]:
    """The turns of a session (its `groups` by turn) that are copies of turns of the session it
    continues (`continued_from`): {turn here: turn there}. Copies open a session, so the first
    turn that is not one ends them."""
    source = metadata.get("continued_from")
    if not source or not groups:
        return {}
    first_turns = sorted(groups)[:COPIED_TURNS_MOST]
    wanted = sum(len(groups[turn]) for turn in first_turns)
    try:
        # Twice the lines: hidden or failed replies between the copied turns are not copied.
        earlier = store.session_read(instance_id, str(source), newest=2 * wanted)
    except (StoreError, ValueError, OSError):
        return {}
    there = {turn_group_key(group): group[0].get("turn")
             for group in turn_groups(session_messages(earlier))}
    copies: dict[int, int] = {}
    for turn in first_turns:
        source_turn = there.get(turn_group_key(groups[turn]))
        if not isinstance(source_turn, int):
            break
        copies[turn] = source_turn
    return copies


def copy_origin(store: FileStore, *, instance_id: str, session_id: str,
                line: dict[str, Any]) -> tuple[str, int] | None:
    """(the session, the turn) message `line` of `session_id` is a copy of, when a summarize
    copied it there from the session before; None for a line of the session's own."""
    turn = line.get("turn")
    if not isinstance(turn, int) or turn > COPIED_TURNS_MOST:
        return None
    try:
        source = store.session_read_head(instance_id, session_id).metadata.get("continued_from")
        if not source:
            return None
        # Each copied turn holds a player's line and a reply or a group's few: 8 lines a turn.
        earlier = store.session_read(instance_id, str(source), newest=8 * COPIED_TURNS_MOST)
    except (StoreError, ValueError, OSError):
        return None
    key = turn_group_key([line])
    return next(((str(source), there["turn"]) for there in session_messages(earlier)
                 if turn_group_key([there]) == key and isinstance(there.get("turn"), int)),
                None)


def copies_recapped(store: FileStore, *, instance_id: str, metadata: dict[str, Any],
                    groups: dict[int, list[dict[str, Any]]],
                    entries: list[dict[str, Any]]) -> tuple[set[int], set[int]]:
    """(copies a recap of the source session covers, copies none covers), as turns here."""
    copies = copied_turns(store, instance_id=instance_id, metadata=metadata, groups=groups)
    source = str(metadata.get("continued_from") or "")
    covered = {turn for turn, there in copies.items()
               if any(recap_covers(entry, source, there) for entry in entries)}
    return covered, set(copies) - covered
