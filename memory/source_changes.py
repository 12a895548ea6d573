"""What the memory made of a line follows the player's change of that line in the history.

A recap is the model's reading of some turns: rewriting it silently would need the model, and
SillyTavern never revisits its summaries either. So a recap whose turns were edited or deleted
afterwards is marked (`source_changed`: those turns) and the memory page says so beside it; saving
the recap's text, or rebuilding the recaps, clears the mark. A summary line ("story so far") the
player edits or deletes in the history is their own correction: the summary ledger record it came
from changes with it, so recall stops bringing back the fact they removed. The caller holds the
instance lock."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from memory.recaps import RECAPS_FILE
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
        _recaps_mark(store, instance_id, session_id, turn)
    return False


def _recaps_mark(store: FileStore, instance_id: str, session_id: str, turn: int) -> None:
    data = store.memory_json_read(instance_id, RECAPS_FILE, None)
    if not isinstance(data, dict):
        return
    marked = False
    for entry in [*(data.get("items") or []), *(data.get("pending_summaries") or [])]:
        if not isinstance(entry, dict) or not _covers(entry, session_id, turn):
            continue
        turns = [t for t in entry.get("source_changed") or [] if isinstance(t, int)]
        entry["source_changed"] = sorted({*turns, turn})
        marked = True
    if marked:
        store.memory_json_write(instance_id, RECAPS_FILE, data)


def _covers(entry: dict[str, Any], session_id: str, turn: int) -> bool:
    first, last = entry.get("from_turn"), entry.get("to_turn")
    if not (isinstance(first, int) and isinstance(last, int)):
        return False
    sessions = {entry.get("session_id"), entry.get("from_session_id")}
    if session_id not in sessions:
        return False
    # A recap stacked across a summarize spans two sessions; its turn numbers restart.
    if entry.get("from_session_id") not in (None, entry.get("session_id")):
        return True
    return first <= turn <= last


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
