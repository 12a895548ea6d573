"""What the memory made of a line follows the player's change of that line in the history.

A recap is the model's reading of some turns: rewriting it silently would need the model, and
SillyTavern never revisits its summaries either. So a recap whose turns were edited or deleted
afterwards is marked (`source_changed`: those turns) and the memory page says so beside it; saving
the recap's text, or rebuilding the recaps, clears the mark. The summary a summarize wrote from a
session is marked the same way when a turn of that session changes afterwards (its ledger
records: they say which session, not which turns); the memory page names the session and the
turns until the player marks it checked. A turn a summarize copied into the next session counts
as the old session's turn. A summary line ("story so far") the
player edits or deletes in the history is their own correction: the summary ledger record it came
from changes with it, so recall stops bringing back the fact they removed. The caller holds the
instance lock."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from memory.summaries.recap_copies import copy_origin, recap_covers
from memory.summaries.recaps import RECAPS_FILE
from personalab.lib.filestore.store import FileStore

SUMMARIES_LEDGER = "summaries"


def memory_source_changed(store: FileStore, *, instance_id: str, session_id: str,
                          old: dict[str, Any], new: dict[str, Any] | None) -> bool:
    """After the history replaced line `old` of `session_id` with `new` (None: deleted).
    Returns True when a ledger changed (the index then has to follow it)."""
    if old.get("type") == "summary":
        return _summary_ledger_follow(store, instance_id, str(old.get("content") or ""),
                                      None if new is None else str(new.get("content") or ""))
    turn = old.get("turn")
    if old.get("role") in ("user", "assistant") and isinstance(turn, int):
        # A turn a summarize copied into the next session is the old session's turn: the
        # recaps and the summary written from that one read it.
        origin = copy_origin(store, instance_id=instance_id, session_id=session_id, line=old)
        for source_id, source_turn in filter(None, [(session_id, turn), origin]):
            _recaps_mark(store, instance_id, source_id, source_turn)
            _summaries_mark(store, instance_id, source_id, source_turn)
    return False


def _summaries_mark(store: FileStore, instance_id: str, session_id: str, turn: int) -> None:
    """The summary a summarize wrote from `session_id` (its ledger records: the events of the
    whole session, none says which turns) was written before `turn` of it changed."""
    records = [record for record in store.ledger_read(instance_id, SUMMARIES_LEDGER)
               if record.get("session_id") == session_id]
    if not records:
        return
    for record in records:
        turns = [t for t in record.get("source_changed") or [] if isinstance(t, int)]
        record["source_changed"] = sorted({*turns, turn})
    store.ledger_replace_session(instance_id, SUMMARIES_LEDGER, session_id=session_id,
                                 records=records)


def summaries_source_changed(store: FileStore, *, instance_id: str) -> list[dict[str, Any]]:
    """The sessions whose summary was written before some of their turns were edited or
    deleted: [{"session_id", "turns"}], oldest session first."""
    changed: dict[str, set[int]] = defaultdict(set)
    for record in store.ledger_read(instance_id, SUMMARIES_LEDGER):
        turns = record.get("source_changed")
        if isinstance(turns, list) and not record.get("deleted"):
            changed[str(record.get("session_id") or "")].update(
                t for t in turns if isinstance(t, int))
    return [{"session_id": session, "turns": sorted(turns)}
            for session, turns in sorted(changed.items()) if session and turns]


def summary_source_checked(store: FileStore, *, instance_id: str, session_id: str) -> bool:
    """The player checked the summary of `session_id` against its edited turns: the mark goes.
    False when it had none."""
    records = [record for record in store.ledger_read(instance_id, SUMMARIES_LEDGER)
               if record.get("session_id") == session_id]
    if not any("source_changed" in record for record in records):
        return False
    store.ledger_replace_session(instance_id, SUMMARIES_LEDGER, session_id=session_id, records=[
        {key: value for key, value in record.items() if key != "source_changed"}
        for record in records])
    return True


def _recaps_mark(store: FileStore, instance_id: str, session_id: str, turn: int) -> None:
    data = store.memory_json_read(instance_id, RECAPS_FILE, None)
    if not isinstance(data, dict):
        return
    marked = False
    for entry in [*(data.get("items") or []), *(data.get("pending_summaries") or [])]:
        if not isinstance(entry, dict) or not recap_covers(entry, session_id, turn):
            continue
        turns = [t for t in entry.get("source_changed") or [] if isinstance(t, int)]
        entry["source_changed"] = sorted({*turns, turn})
        marked = True
    if marked:
        store.memory_json_write(instance_id, RECAPS_FILE, data)


def summary_change_undone(store: FileStore, *, instance_id: str, old_text: str,
                          new_text: str | None) -> bool:
    """The history's undo of a summary line's change from `old_text` to `new_text` (None:
    deleted): its ledger records are as they were."""
    if new_text is None:
        return _summary_ledger_follow(store, instance_id, old_text, old_text, deleted=True)
    return _summary_ledger_follow(store, instance_id, new_text, old_text)


def summary_change_of(old: dict[str, Any], new: dict[str, Any] | None) -> list | None:
    """What the history's undo needs to put a summary line's ledger records back."""
    if old.get("type") != "summary":
        return None
    return [str(old.get("content") or ""), None if new is None else str(new.get("content") or "")]


def _summary_ledger_follow(store: FileStore, instance_id: str, old_text: str,
                           new_text: str | None, *, deleted: bool = False) -> bool:
    """The records of `old_text` (deleted ones instead with `deleted`) get `new_text`, or are
    marked deleted when it is None."""
    if not old_text.strip():
        return False
    by_session: dict[str, list[dict[str, Any]]] = defaultdict(list)
    changed: set[str] = set()
    for record in store.ledger_read(instance_id, SUMMARIES_LEDGER):
        session = str(record.get("session_id") or "")
        if (str(record.get("text") or "") == old_text
                and bool(record.get("deleted")) == deleted):
            changed.add(session)
            record = {key: value for key, value in record.items() if key != "deleted"}
            if new_text is None or not new_text.strip():
                record["deleted"] = True
            else:
                record["text"] = new_text
        by_session[session].append(record)
    for session in changed:
        store.ledger_replace_session(instance_id, SUMMARIES_LEDGER, session_id=session,
                                     records=by_session.get(session, []))
    return bool(changed)
