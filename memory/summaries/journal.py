"""Summarize as one change: the ledger records land together with the session switch, or not at all.

Order (the instance lock is held): the records are journaled in memory/summarize_pending.json →
the new session file → instance_state.json switches to it (the commit point) → the records
replace the old session's records in the ledgers → the journal is removed. A process killed at
any step leaves the journal, and the next turn or summarize of the instance finishes it when the
switch happened or undoes it (removes the new, never-used session file) when it did not. A
ledger record is written only after the commit, and written as a replacement of that session's
records, so no re-run ever repeats an id (records left by an older, unjournaled attempt are
replaced too).
"""

from __future__ import annotations

import contextlib

from personalab.lib.filestore.store import FileStore

PENDING = "summarize_pending"
LEDGERS = ("summaries", "plots")


def summarize_journal_write(store: FileStore, *, instance_id: str, old_session_id: str,
                            new_session_id: str, records: dict[str, list[dict]]) -> None:
    store.memory_json_write(instance_id, PENDING, {
        "old_session_id": old_session_id, "new_session_id": new_session_id, **records})


def summarize_journal_commit(store: FileStore, *, instance_id: str) -> None:
    """After the switch: the journaled records replace the old session's, then the journal goes."""
    pending = store.memory_json_read(instance_id, PENDING, None)
    for name in LEDGERS:
        store.ledger_replace_session(instance_id, name, session_id=pending["old_session_id"],
                                     records=pending.get(name) or [])
    _journal_remove(store, instance_id)


def summarize_recover(store: FileStore, *, instance_id: str) -> str | None:
    """Finish or undo a summarize that was cut short; the caller holds the instance lock.
    Returns "finished", "undone" or None (nothing was pending)."""
    pending = store.memory_json_read(instance_id, PENDING, None)
    if not isinstance(pending, dict) or "new_session_id" not in pending:
        _journal_remove(store, instance_id)
        return None
    state = store.instance_state_read(instance_id)
    if state.get("current_session_id") == pending["new_session_id"]:
        summarize_journal_commit(store, instance_id=instance_id)
        return "finished"
    if pending["new_session_id"] != pending.get("old_session_id"):
        with contextlib.suppress(FileNotFoundError):
            store.session_path(instance_id, pending["new_session_id"]).unlink()
    _journal_remove(store, instance_id)
    return "undone"


def summarize_recover_waiting(store: FileStore, *, instance_id: str) -> str | None:
    """summarize_recover for a maintenance command (`reindex`): waits for a turn that holds
    the instance lock instead of failing as busy, and takes no lock when nothing is pending."""
    if not (store.memory_dir(instance_id) / f"{PENDING}.json").exists():
        return None
    lock = store.instance_lock(instance_id).acquire(blocking=True)
    try:
        return summarize_recover(store, instance_id=instance_id)
    finally:
        lock.release()


def _journal_remove(store: FileStore, instance_id: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        (store.memory_dir(instance_id) / f"{PENDING}.json").unlink()
