"""The history manager's errors, settings and shared helpers (locking, checked lines)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from personalab.lib.errors import AppError, Conflict
from personalab.lib.filestore.session_read import SessionRead
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import is_valid_id
from personalab.lib.line_index import MESSAGE_KINDS
from personalab.lib.session_tail import file_fingerprint
from personalab.lib.store_errors import InstanceBusy

Clock = Callable[[], float]

UNDO_FILE = "undo"
# Long enough to read the toast and reach Undo with a thumb (issue 33: 3 s was too short).
DEFAULT_UNDO_WINDOW = 8.0
DEFAULT_PAGE_SIZE = 100
MAX_TEXT_CHARS = 20000
# Fields that belong to one version of a reply and travel with it when versions are flipped.
VERSION_KEYS = ("content", "timestamp", "trace_id", "interrupted", "empty", "error",
                "continued", "edited", "reasoning", "swipe_info")


class HistoryError(AppError):
    """A refused history action; nothing was changed. `status` is the HTTP status to answer."""

    code = "history_refused"

    def __init__(self, message: str, *, status: int | None = None,
                 fields: dict[str, str] | None = None) -> None:
        super().__init__(message, status=status, fields=fields)


class HistoryBusy(HistoryError, Conflict):
    code, status = "busy", 409


class UndoExpired(HistoryError):
    code, status = "undo_expired", 410


# --- settings and small helpers ----------------------------------------------------------


def history_settings(store: FileStore) -> dict[str, Any]:
    """page_size and undo_window_seconds from data/modules/history.json, bad values -> defaults."""
    settings = store.module_read("history")
    window = settings.get("undo_window_seconds")
    size = settings.get("page_size")
    return {
        "undo_window_seconds": float(window) if _is_number(window) and window >= 0
        else DEFAULT_UNDO_WINDOW,
        "page_size": int(size) if _is_number(size) and 1 <= size <= 10000 else DEFAULT_PAGE_SIZE,
    }


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def line_fingerprint(line: dict[str, Any]) -> str:
    """Identifies the exact line a page showed, so a stale page cannot change another line."""
    canonical = json.dumps(line, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def _file_unchanged(path: Path, record: dict[str, Any]) -> bool:
    """Whether the file holds what it held right after the action `record` notes (an undo
    noted by an older version kept a SHA-256 of it)."""
    if not path.exists():
        return False
    data = path.read_bytes()
    if "file_sha256" in record:
        return hashlib.sha256(data).hexdigest() == record["file_sha256"]
    return file_fingerprint(data) == record.get("file_fingerprint")


def _is_editable(line: dict[str, Any]) -> bool:
    # Narrator / system notes too: SillyTavern lets any message be edited, hidden or deleted.
    return line.get("role") in ("user", "assistant") or line.get("type") in ("summary", "note")


def _text_checked(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise HistoryError("the text is empty; delete the message instead")
    if len(text) > MAX_TEXT_CHARS:
        raise HistoryError(f"the text is too long ({len(text)} > {MAX_TEXT_CHARS} characters)",
                           status=413)
    return text


def _lock(store: FileStore, instance_id: str):
    try:
        return store.instance_lock(instance_id).acquire()
    except InstanceBusy:
        raise HistoryBusy("busy: a reply is streaming or another change is running on this "
                          "instance; try again when it has finished") from None


def _session_checked(store: FileStore, instance_id: str, session_id: str, *,
                     pick: Callable[[np.ndarray], tuple[int, int]] | None = None) -> SessionRead:
    """A session that may be changed: present (archived files are read-only), its unfinished
    tail repaired, and no unreadable lines (rewriting would drop them from the file). `pick`:
    only the lines it picks are read (FileStore.session_read), the lines a change rewrites."""
    if not is_valid_id(session_id) or session_id not in store.session_ids(instance_id):
        raise HistoryError(f"session {session_id!r} not found (archived sessions are read-only)",
                           status=404)
    store.session_repair(instance_id, session_id)
    read = store.session_read(instance_id, session_id, pick=pick)
    if read.problems:
        raise HistoryError(
            f"this session file has {len(read.problems)} unreadable line(s); repair the file "
            f"first ({read.problems[0].describe()})", status=422)
    return read


def _from(index: object) -> Callable[[np.ndarray], tuple[int, int]]:
    """Picks the lines from position `index` to the end: what a change of that line rewrites."""
    def pick(kinds: np.ndarray) -> tuple[int, int]:
        start = index if isinstance(index, int) and 0 <= index < len(kinds) else len(kinds)
        return start, len(kinds)
    return pick


def _from_last_message(kinds: np.ndarray) -> tuple[int, int]:
    messages = np.flatnonzero(np.isin(kinds, MESSAGE_KINDS))
    return (int(messages[-1]) if len(messages) else len(kinds)), len(kinds)


def _from_message_before_last(kinds: np.ndarray) -> tuple[int, int]:
    """The last two messages on: whether the last follows another reply of its turn."""
    messages = np.flatnonzero(np.isin(kinds, MESSAGE_KINDS))
    return (int(messages[-2]) if len(messages) > 1 else _from_last_message(kinds)[0]), len(kinds)


def _line_at(read: SessionRead, index: int, fingerprint: str) -> dict[str, Any]:
    """The line at position `index` of the session (`read` may hold only the lines from
    read.first_index on)."""
    if not isinstance(index, int) or not 0 <= index - read.first_index < len(read.lines):
        raise HistoryError("that message is no longer in the session; reload the page",
                           status=409)
    line = read.lines[index - read.first_index]
    if line_fingerprint(line) != fingerprint:
        raise HistoryError("the session changed since this page was loaded; reload the page",
                           status=409)
    if not _is_editable(line):
        raise HistoryError("only messages and summaries can be changed")
    return line


def version_position(line: dict[str, Any]) -> int:
    """Where the shown version sits among all versions (alternatives in order, the shown one
    inserted at this position); by default it is the newest, after every alternative."""
    count = len(line.get("alternatives") or [])
    position = line.get("alternative_position")
    return position if isinstance(position, int) and 0 <= position <= count else count


def reply_versions(line: dict[str, Any]) -> list[dict[str, Any]]:
    """Every version of a reply in order, the shown one at its place."""
    current = {k: line[k] for k in VERSION_KEYS if k in line}
    alternatives = [a for a in line.get("alternatives") or [] if isinstance(a, dict)]
    position = version_position(line)
    return [*alternatives[:position], current, *alternatives[position:]]
