"""Who was in a conversation when: the journal of member changes and what a member witnessed.

memory/member_changes.jsonl holds one record per change, oldest first:
    {"id", "action": "add" | "remove" | "change", "character_id", "at", "session_id", "turn",
     "participants_before", "participants_after", "character_id_before", "character_id_after",
     "changes"?}
`turn` is the last turn of `session_id` when the change happened, so a line of that session is
placed before or after it exactly (timestamps have one-second steps; other sessions use them).

A change is journaled before it is applied: memory/member_change_pending.json holds the record,
the instance_state fields it sets and the state files it writes (the first member handing over
moves two), and member_change_recover finishes a change a killed process left half done. The
caller holds the instance lock. Framework-free.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from typing import Any

from personalab.lib.filestore.jsonfile import read_json, utc_now, write_json_atomic
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import random_id
from personalab.lib.store_errors import StoreError

LEDGER = "member_changes"
PENDING = "member_change_pending"
INSTANCE_FIELDS = ("participants", "character_id", "solo_character_id", "reply_order")
_STATE_FILE = re.compile(r"character_state\.json|character_states/[A-Za-z0-9_\-]+\.json")


def member_change_apply(store: FileStore, instance_id: str, *, before: dict[str, Any],
                        after: dict[str, Any], action: str, character_id: str,
                        files: dict[str, dict[str, Any]] | None = None,
                        remove: list[str] | None = None,
                        changes: dict[str, Any] | None = None) -> dict[str, Any]:
    """Journal one member change, then apply it: `files` (relative path -> content) written,
    `remove` deleted, instance_state.json's member fields set from `after`. Returns the record."""
    session_id = str(before.get("current_session_id") or "")
    record = {"id": random_id("mc"), "action": action, "character_id": character_id,
              "at": utc_now(), "session_id": session_id,
              "turn": _last_turn(store, instance_id, session_id),
              "participants_before": before.get("participants") or [],
              "participants_after": after.get("participants") or [],
              "character_id_before": before.get("character_id"),
              "character_id_after": after.get("character_id"),
              **({"changes": changes} if changes else {})}
    pending = {"record": record,
               "fields": {key: after[key] for key in INSTANCE_FIELDS if key in after},
               "files": files or {}, "remove": remove or []}
    store.memory_json_write(instance_id, PENDING, pending)
    _finish(store, instance_id, pending)
    return record


def member_change_recover(store: FileStore, instance_id: str) -> bool:
    """Finish a member change a killed process left journaled but not (wholly) applied."""
    try:
        pending = read_json(store.memory_dir(instance_id) / f"{PENDING}.json", what=PENDING)
    except StoreError:
        return False
    if not isinstance(pending, dict) or not isinstance(pending.get("record"), dict):
        _pending_remove(store, instance_id)
        return False
    _finish(store, instance_id, pending)
    return True


def member_change_recover_waiting(store: FileStore, instance_id: str) -> bool:
    """member_change_recover for `reindex`: waits for a turn holding the lock instead of failing
    as busy, and takes no lock when nothing is pending."""
    if not (store.memory_dir(instance_id) / f"{PENDING}.json").exists():
        return False
    lock = store.instance_lock(instance_id).acquire(blocking=True)
    try:
        return member_change_recover(store, instance_id)
    finally:
        lock.release()


def member_changes_read(store: FileStore, instance_id: str) -> list[dict[str, Any]]:
    return [r for r in store.ledger_read(instance_id, LEDGER) if isinstance(r, dict)]


def _finish(store: FileStore, instance_id: str, pending: dict[str, Any]) -> None:
    folder = store.instance_dir(instance_id)
    for relative, content in (pending.get("files") or {}).items():
        target = folder / _state_file_checked(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(target, content)
    for relative in pending.get("remove") or []:
        (folder / _state_file_checked(relative)).unlink(missing_ok=True)
    record = pending["record"]
    if not any(r.get("id") == record.get("id") for r in member_changes_read(store, instance_id)):
        store.ledger_append(instance_id, LEDGER, [record])
    # Last, so a reader keyed on instance_state.json's mtime also sees the journal's record.
    state = store.instance_state_read(instance_id)
    store.instance_state_write(instance_id, {**state, **(pending.get("fields") or {})})
    _pending_remove(store, instance_id)


def _state_file_checked(relative: str) -> str:
    if not isinstance(relative, str) or not _STATE_FILE.fullmatch(relative):
        raise StoreError(f"a member change names an unexpected file: {relative!r}")
    return relative


def _pending_remove(store: FileStore, instance_id: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        (store.memory_dir(instance_id) / f"{PENDING}.json").unlink()


def _last_turn(store: FileStore, instance_id: str, session_id: str) -> int:
    try:
        return store.session_read(instance_id, session_id, cached=True).last_turn
    except (StoreError, ValueError):
        return 0


# --- what a member witnessed ---------------------------------------------------------------


@dataclass(frozen=True)
class Mark:
    at: str
    session_id: str
    turn: int


@dataclass(frozen=True)
class Presence:
    """When a member was in the conversation: (joined, left) spans, None = from the start /
    still there. Muting is not absence: a muted member is in the scene and hears everything."""

    spans: tuple[tuple[Mark | None, Mark | None], ...]

    @property
    def from_start(self) -> bool:
        return bool(self.spans) and self.spans[0][0] is None

    def saw(self, *, timestamp: str, session_id: str = "", turn: Any = None) -> bool:
        """Whether a line (its timestamp, session and turn) was said while the member was there.
        A line whose time is unknown counts as witnessed."""
        if not timestamp and not (session_id and isinstance(turn, int)):
            return True
        return any((start is None or _after(start, timestamp, session_id, turn))
                   and (end is None or not _after(end, timestamp, session_id, turn))
                   for start, end in self.spans)


def presence_of(records: list[dict[str, Any]], character_id: str) -> Presence:
    """A member's spans from the journal: present from the start unless its first change is
    joining; each join opens a span, each leave closes one."""
    joins_and_leaves = [r for r in records if r.get("character_id") == character_id
                        and r.get("action") in ("add", "remove")]
    spans: list[tuple[Mark | None, Mark | None]] = []
    opened: Mark | None = None
    present = not joins_and_leaves or joins_and_leaves[0]["action"] == "remove"
    for record in joins_and_leaves:
        mark = Mark(at=str(record.get("at") or ""), session_id=str(record.get("session_id") or ""),
                    turn=record.get("turn") if isinstance(record.get("turn"), int) else 0)
        if record["action"] == "add" and not present:
            opened, present = mark, True
        elif record["action"] == "remove" and present:
            spans.append((opened, mark))
            opened, present = None, False
    if present:
        spans.append((opened, None))
    return Presence(spans=tuple(spans))


def _after(mark: Mark, timestamp: str, session_id: str, turn: Any) -> bool:
    if session_id and session_id == mark.session_id and isinstance(turn, int) \
            and not isinstance(turn, bool):
        return turn > mark.turn
    return bool(timestamp) and timestamp >= mark.at
