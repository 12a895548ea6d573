"""The history manager's actions on session files: list, page and search, edit, delete, undo,
flipping between a reply's alternatives ("swipes") and branching a new session off a line.

The session file is the truth and every change goes through FileStore.session_tail_replace,
which rewrites the file only from the changed line on and keeps the lines it replaced under
sessions/history/, so no change loses text and a change near the end of a long session costs
what it would in a short one (only the changed line and those after it are read). An edited
line also carries its first original content in "edited". Undo puts the backup's lines back,
and only while nothing else changed the file since (a fingerprint of the file is checked), so
an undo can never drop a line written after the action.

Every change holds the instance lock; a held lock (a reply streaming, another change) is refused
with HistoryBusy instead of waiting. Framework-free: the views map HistoryError.status to HTTP.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from director.services import director_apply_reply
from memory import runtime as memory_runtime
from personalab.lib.errors import AppError
from personalab.lib.filestore import (FileStore, InstanceBusy, SessionRead, StoreError,
                                      TailChange, read_session_file, utc_now)
from personalab.lib.ids import is_valid_id
from personalab.lib.line_index import ASSISTANT, MESSAGE_KINDS, NOTE, SUMMARY, SYSTEM, USER
from personalab.lib.session_tail import backup_parse, file_fingerprint

Clock = Callable[[], float]

UNDO_FILE = "undo"
DEFAULT_UNDO_WINDOW = 3.0
DEFAULT_PAGE_SIZE = 100
MAX_TEXT_CHARS = 20000
# Fields that belong to one version of a reply and travel with it when versions are flipped.
VERSION_KEYS = ("content", "timestamp", "trace_id", "interrupted", "empty", "error",
                "continued", "edited", "reasoning")


class HistoryError(AppError):
    """A refused history action; nothing was changed. `status` is the HTTP status to answer."""

    code = "history_refused"

    def __init__(self, message: str, *, status: int | None = None,
                 fields: dict[str, str] | None = None) -> None:
        super().__init__(None, status, message, fields)


class HistoryBusy(HistoryError):
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


# --- listing --------------------------------------------------------------------------------


def session_list(store: FileStore, *, instance_id: str) -> list[dict[str, Any]]:
    """Every session of the instance, newest first: the live ones, then archived (read-only)."""
    current = store.instance_state_read(instance_id).get("current_session_id")
    live = []
    for session_id in store.session_ids(instance_id):
        read = store.session_read_head(instance_id, session_id)
        if read.line_kinds is not None and (read.line_kinds == SYSTEM).any():
            read = store.session_read(instance_id, session_id)  # a "system" line may be listed
        live.append(_session_row(read, key=session_id, session_id=session_id,
                                 current=session_id == current, archived=False))
    archived = []
    for path in _archived_paths(store, instance_id):
        read = read_session_file(path)
        archived.append(_session_row(read, key=path.stem,
                                     session_id=read.metadata.get("session_id")
                                     or path.stem.split(".")[0],
                                     current=False, archived=True))
    live.sort(key=lambda row: (row["created_at"], row["key"]), reverse=True)
    archived.sort(key=lambda row: row["key"], reverse=True)
    return live + archived


def _session_row(read: SessionRead, *, key: str, session_id: str, current: bool,
                 archived: bool) -> dict[str, Any]:
    return {"key": key, "session_id": session_id, "current": current, "archived": archived,
            "created_at": str(read.metadata.get("created_at") or ""),
            "continued_from": read.metadata.get("continued_from"),
            "message_count": _listed_count(read), "problems": len(read.problems)}


def _listed_count(read: SessionRead) -> int:
    """What the history manager lists and pages of a session (its pager counts the same):
    the player's and the characters' messages, narrator lines and summaries, as SillyTavern
    counts every line of a chat as a message."""
    if read.line_kinds is None or (read.line_kinds == SYSTEM).any():
        return sum(1 for line in read.lines if _is_editable(line))
    return int(np.isin(read.line_kinds, EDITABLE_KINDS).sum())


def _archived_paths(store: FileStore, instance_id: str) -> list[Path]:
    folder = store.sessions_dir(instance_id) / "archive"
    if not folder.is_dir():
        return []
    return [p for p in folder.glob("*.jsonl") if _archive_key_ok(p.stem)]


def _archive_key_ok(key: str) -> bool:
    session_id, dot, stamp = key.partition(".")
    return bool(dot) and is_valid_id(session_id) and stamp.replace("T", "").rstrip("Z").isdigit()


def session_open(store: FileStore, *, instance_id: str, key: str,
                 pick: Callable[[np.ndarray], tuple[int, int]] | None = None
                 ) -> tuple[SessionRead, bool]:
    """(read, archived) for a session key from session_list; archived keys name a file in
    sessions/archive/ and are only ever matched against the folder's listing. `pick`: read only
    the lines it picks from a live session's line kinds (FileStore.session_read)."""
    if is_valid_id(key) and key in store.session_ids(instance_id):
        if store.session_tail_pending(instance_id, key):  # a change a crash cut short
            with contextlib.suppress(InstanceBusy), store.instance_lock(instance_id):
                store.session_repair(instance_id, key)
        return store.session_read(instance_id, key, pick=pick), False
    for path in _archived_paths(store, instance_id):
        if path.stem == key:
            return read_session_file(path), True
    raise HistoryError(f"session {key!r} not found", status=404)


def messages_page(store: FileStore, *, instance_id: str, session_key: str,
                  page: int | None = None, query: str = "",
                  page_size: int | None = None) -> dict[str, Any]:
    """One page of a session's messages and summaries, oldest first; `page` None is the last
    page. `query` keeps lines whose text contains it (case-insensitive)."""
    size = page_size or history_settings(store)["page_size"]
    needle = query.strip().casefold()
    chosen: dict[str, int] = {}
    read, archived = session_open(store, instance_id=instance_id, key=session_key,
                                  pick=None if needle else _page_pick(size, page, chosen))
    if chosen and read.line_kinds is not None:  # only the page's lines were parsed
        rows = [_row(read.first_index + offset, line) for offset, line in enumerate(read.lines)
                if _is_editable(line)]
        total, page, pages, last = (chosen["total"], chosen["page"], chosen["pages"],
                                    read.last_message_index)
    else:
        rows = [_row(index, line) for index, line in enumerate(read.lines) if _is_editable(line)]
        if needle:
            rows = [row for row in rows if needle in row["content"].casefold()]
        total, pages = len(rows), max(1, -(-len(rows) // size))
        page = pages if page is None else min(max(page, 1), pages)
        rows, last = rows[(page - 1) * size: page * size], _last_message_index(read)
    for row in rows:
        row["is_last_reply"] = row["index"] == last and row["role"] == "assistant"
    return {"session_key": session_key, "session_id": read.metadata.get("session_id"),
            "archived": archived, "read_only": archived, "metadata": read.metadata,
            "rows": rows, "page": page, "pages": pages,
            "total": total, "query": query.strip(), "page_size": size,
            "problems": [p.describe() for p in read.problems],
            "streaming": read.partial is not None}


EDITABLE_KINDS = (USER, ASSISTANT, SUMMARY, NOTE)


def _page_pick(size: int, page: int | None, chosen: dict[str, int]
               ) -> Callable[[np.ndarray], tuple[int, int]]:
    """Picks the lines of one page from the session's line kinds and notes the page in `chosen`.
    A line with role "system" may be a summary (editable) or not: with any such line, every
    line is picked and the page found after parsing."""
    def pick(kinds: np.ndarray) -> tuple[int, int]:
        if (kinds == SYSTEM).any():
            return 0, len(kinds)
        editable = np.flatnonzero(np.isin(kinds, EDITABLE_KINDS))
        pages = max(1, -(-len(editable) // size))
        number = pages if page is None else min(max(page, 1), pages)
        on_page = editable[(number - 1) * size: number * size]
        chosen.update(total=len(editable), page=number, pages=pages)
        return (int(on_page[0]), int(on_page[-1]) + 1) if len(on_page) else (0, 0)
    return pick


def _row(index: int, line: dict[str, Any]) -> dict[str, Any]:
    alternatives = line.get("alternatives") if isinstance(line.get("alternatives"), list) else []
    position = version_position(line)
    return {"index": index, "fingerprint": line_fingerprint(line),
            "role": line.get("role") or line.get("type") or "",
            "content": str(line.get("content", "")),
            "turn": line.get("turn"), "timestamp": line.get("timestamp"),
            "edited": line.get("edited"), "trace_id": line.get("trace_id"),
            "alternatives": len(alternatives), "version": position + 1,
            "versions": len(alternatives) + 1, "line": line}


def _last_message_position(read: SessionRead) -> int | None:
    """The position of the session's last message (a stretch read knows it from the index)."""
    if read.last_message_index is not None:
        return read.last_message_index
    return _last_message_index(read) if read.first_index == 0 else None


def _last_message_index(read: SessionRead) -> int | None:
    for index in range(len(read.lines) - 1, -1, -1):
        if read.lines[index].get("role") in ("user", "assistant"):
            return index
    return None


# --- edit, delete, undo --------------------------------------------------------------------


def message_edit(store: FileStore, *, instance_id: str, session_id: str, index: int,
                 fingerprint: str, text: str, clock: Clock = time.time) -> dict[str, Any]:
    """Replace one line's text; the line keeps its first original content in "edited"."""
    text = _text_checked(text)
    lock = _lock(store, instance_id)
    try:
        read = _session_checked(store, instance_id, session_id, pick=_from(index))
        old = _line_at(read, index, fingerprint)
        if old.get("content") == text:
            return {"changed": False, "line": old, "undo_token": None}
        first_original = (old["edited"].get("original") if isinstance(old.get("edited"), dict)
                          else old.get("content", ""))
        new = {**old, "content": text, "edited": {"at": utc_now(), "original": first_original}}
        token, expires = _change_with_undo(store, instance_id, session_id, first=index,
                                           lines=[new, *_lines_after(read, index)],
                                           action="edit", clock=clock)
    finally:
        lock.release()
    return {"changed": True, "line": new, "undo_token": token, "undo_expires_at": expires}


def message_delete(store: FileStore, *, instance_id: str, session_id: str, index: int,
                   fingerprint: str, clock: Clock = time.time) -> dict[str, Any]:
    """Remove one line from the file (the backup keeps it). Deleting the latest reply of the
    current session also takes back what the director counted for it."""
    lock = _lock(store, instance_id)
    try:
        read = _session_checked(store, instance_id, session_id, pick=_from(index))
        old = _line_at(read, index, fingerprint)
        state = store.instance_state_read(instance_id)
        restored = None
        if (old.get("role") == "assistant" and index == _last_message_position(read)
                and state.get("current_session_id") == session_id):
            restored = _plot_state_before(store, instance_id, [old])
        token, expires = _change_with_undo(
            store, instance_id, session_id, first=index, lines=_lines_after(read, index),
            action="delete", clock=clock,
            plot_state=copy.deepcopy(state.get("plot_state")) if restored is not None else None)
        if restored is not None:
            store.instance_state_write(instance_id, {**state, "plot_state": restored})
    finally:
        lock.release()
    return {"deleted": old, "undo_token": token, "undo_expires_at": expires,
            "plot_state_restored": restored is not None}


def message_change(store: FileStore, *, instance_id: str, session_id: str, index: int,
                   fingerprint: str, text: str | None = None,
                   hidden: bool | None = None) -> dict[str, Any]:
    """A new text, a hidden flag, or both (the text first; the flag then names the edited
    line by its new fingerprint)."""
    if text is None and hidden is None:
        raise HistoryError("give the new text or hidden (or both)",
                           fields={"text": "text or hidden is required"})
    result: dict[str, Any] = {"changed": False}
    if text is not None:
        result = message_edit(store, instance_id=instance_id, session_id=session_id,
                              index=index, fingerprint=fingerprint, text=text)
        fingerprint = line_fingerprint(result["line"])
    if hidden is not None:
        flagged = message_hide(store, instance_id=instance_id, session_id=session_id,
                               index=index, fingerprint=fingerprint, hidden=hidden)
        result = {**result, "line": flagged["line"],
                  "changed": result["changed"] or flagged["changed"]}
    return result


def message_hide(store: FileStore, *, instance_id: str, session_id: str, index: int,
                 fingerprint: str, hidden: object) -> dict[str, Any]:
    """Hide a message from the model (SillyTavern's ghost / is_hidden) or show it again. The
    line stays in the file and on the page with `hidden: true`, the flag imported hidden lines
    carry; prompts, lore scans, summaries, recaps and recall leave it out. Clicking again
    is the undo. A narrator note hidden stops being sent (one SillyTavern sends) and is
    exported with SillyTavern's `is_system: true`."""
    if not isinstance(hidden, bool):
        raise HistoryError("hidden must be true or false", fields={"hidden": "true or false"})
    lock = _lock(store, instance_id)
    try:
        read = _session_checked(store, instance_id, session_id, pick=_from(index))
        old = _line_at(read, index, fingerprint)
        if old.get("role") not in ("user", "assistant") and old.get("type") != "note":
            raise HistoryError("only messages and narrator notes can be hidden, not summaries",
                               fields={"index": "not a message"})
        if bool(old.get("hidden")) == hidden:
            return {"changed": False, "line": old}
        new = {k: v for k, v in old.items() if k != "hidden"}
        if hidden:
            new["hidden"] = True
        _session_change(store, instance_id, session_id, first=index,
                        lines=[new, *_lines_after(read, index)], action="hide")
    finally:
        lock.release()
    return {"changed": True, "line": new}


def _lines_after(read: SessionRead, index: int) -> list[dict[str, Any]]:
    return read.lines[index - read.first_index + 1:]


def _session_change(store: FileStore, instance_id: str, session_id: str, *, first: int,
                    lines: list[dict[str, Any]], action: str) -> TailChange:
    """Every history change: the session's lines from position `first` on become `lines`
    (the replaced ones kept as a backup), then the memory index follows the file, so an
    edited or deleted line's old text is no longer recalled."""
    change = store.session_tail_replace(instance_id, session_id, first=first, lines=lines,
                                        action=action)
    memory_runtime.schedule_sync(store, instance_id=instance_id)
    return change


def _change_with_undo(store: FileStore, instance_id: str, session_id: str, *, first: int,
                      lines: list[dict[str, Any]], action: str, clock: Clock,
                      plot_state: dict | None = None) -> tuple[str, float]:
    change = _session_change(store, instance_id, session_id, first=first, lines=lines,
                             action=action)
    window = history_settings(store)["undo_window_seconds"]
    now = clock()
    token = secrets.token_hex(12)
    record = {"instance_id": instance_id, "session_id": session_id, "action": action,
              "backup": change.backup.relative_to(store.instance_dir(instance_id)).as_posix(),
              "file_fingerprint": change.fingerprint,
              "created_at": now, "expires_at": now + window, "plot_state": plot_state}
    data = _undo_read(store, instance_id)
    data["tokens"] = {key: value for key, value in data["tokens"].items()
                      if value.get("expires_at", 0) >= now}
    data["tokens"][token] = record
    store.memory_json_write(instance_id, UNDO_FILE, data)
    return token, now + window


def _undo_read(store: FileStore, instance_id: str) -> dict[str, Any]:
    try:
        data = store.memory_json_read(instance_id, UNDO_FILE, {"tokens": {}})
    except StoreError:
        return {"tokens": {}}
    if not isinstance(data, dict) or not isinstance(data.get("tokens"), dict):
        return {"tokens": {}}
    data["tokens"] = {k: v for k, v in data["tokens"].items() if isinstance(v, dict)}
    return data


def undo(store: FileStore, *, instance_id: str, token: str,
         clock: Clock = time.time) -> dict[str, Any]:
    """Restore the session file as it was before the action behind `token`. The restore is
    itself a rewrite, so the undone version stays in sessions/history/ too."""
    lock = _lock(store, instance_id)
    try:
        data = _undo_read(store, instance_id)
        record = data["tokens"].get(token) if isinstance(token, str) else None
        if record is None:
            raise HistoryError("there is nothing to undo (already undone or unknown)", status=404)
        if clock() > float(record.get("expires_at", 0)):
            raise UndoExpired(f"the undo window has passed "
                              f"({history_settings(store)['undo_window_seconds']:g} s); "
                              "the previous version is kept in sessions/history/")
        session_id = record["session_id"]
        if not _file_unchanged(store.session_path(instance_id, session_id), record):
            raise HistoryError("the session changed after this action, so it can no longer be "
                               "undone; the previous version is kept in sessions/history/",
                               status=409)
        _backup_restore(store, instance_id, session_id,
                        _backup_path(store, instance_id, record.get("backup")))
        if isinstance(record.get("plot_state"), dict):
            state = store.instance_state_read(instance_id)
            store.instance_state_write(instance_id, {**state, "plot_state": record["plot_state"]})
        del data["tokens"][token]
        store.memory_json_write(instance_id, UNDO_FILE, data)
    finally:
        lock.release()
    return {"undone": record["action"], "session_id": session_id}


def _backup_restore(store: FileStore, instance_id: str, session_id: str, backup: Path) -> None:
    """The session as it was before the change `backup` was taken for; the restore is itself
    a change, with its own backup."""
    parsed = backup_parse(backup.read_bytes())
    if parsed is not None:
        header, tail = parsed
        if store.session_tail_restore(instance_id, session_id, offset=header.offset,
                                      tail=tail) is None:
            raise HistoryError("the session file no longer matches this undo", status=409)
    else:  # a whole copy, as older versions kept
        previous = read_session_file(backup)
        store.session_rewrite(instance_id, session_id, [previous.metadata, *previous.lines])
    memory_runtime.schedule_sync(store, instance_id=instance_id)


def _backup_path(store: FileStore, instance_id: str, relative: object) -> Path:
    folder = (store.sessions_dir(instance_id) / "history").resolve()
    path = (store.instance_dir(instance_id) / str(relative or "")).resolve()
    if path.parent != folder or not path.is_file():
        raise HistoryError("the backup for this undo is missing", status=410)
    return path


# --- branch --------------------------------------------------------------------------------


def session_branch(store: FileStore, *, instance_id: str, session_id: str, index: int,
                   fingerprint: str) -> dict[str, Any]:
    """A new session holding the lines of `session_id` up to and including line `index`, made
    the current one; the source session is left exactly as it was. The plot state goes back to
    what it was before the first reply left out (from its trace), so the director only counts
    what the branch keeps. The caller re-indexes the instance (chat.services.instance_index)."""
    lock = _lock(store, instance_id)
    try:
        read = _session_checked(store, instance_id, session_id)
        _line_at(read, index, fingerprint)
        dropped = [line for line in read.lines[index + 1:] if line.get("role") == "assistant"]
        restored = (_plot_state_before(store, instance_id, reply_versions(dropped[0]))
                    if dropped else None)
        state = store.instance_state_read(instance_id)
        new_session_id = store.session_next_id(instance_id)
        store.session_create(instance_id, new_session_id, lines=read.lines[:index + 1],
                             branched_from={"session_id": session_id, "index": index})
        state["current_session_id"] = new_session_id
        if restored is not None:
            state["plot_state"] = restored
        store.instance_state_write(instance_id, state)
    finally:
        lock.release()
    return {"session_id": new_session_id, "branched_from": session_id, "index": index,
            "message_count": sum(1 for line in read.lines[:index + 1]
                                 if line.get("role") in ("user", "assistant")),
            "plot_state_restored": restored is not None}


# --- alternatives ("swipes") ----------------------------------------------------------------


def version_position(line: dict[str, Any]) -> int:
    """Where the shown version sits among all versions (alternatives in order, the shown one
    inserted at this position); by default it is the newest, after every alternative."""
    count = len(line.get("alternatives") or [])
    position = line.get("alternative_position")
    return position if isinstance(position, int) and 0 <= position <= count else count


def reply_versions(line: dict[str, Any]) -> list[dict[str, Any]]:
    current = {k: line[k] for k in VERSION_KEYS if k in line}
    alternatives = [a for a in line.get("alternatives") or [] if isinstance(a, dict)]
    position = version_position(line)
    return [*alternatives[:position], current, *alternatives[position:]]


def reply_choose_alternative(store: FileStore, *, instance_id: str, session_id: str, turn: int,
                             alternative_index: int) -> dict[str, Any]:
    """Show alternative `alternative_index` (an index into the line's "alternatives") as the
    reply of the last assistant line, keeping every version. In the current session the
    director is re-run so that only the reply finally kept counts: plot_state goes back to the
    trace's plot_state_before, then the chosen reply is applied."""
    lock = _lock(store, instance_id)
    try:
        read = _session_checked(store, instance_id, session_id, pick=_from_last_message)
        index = _last_message_position(read)
        line = read.lines[index - read.first_index] if index is not None else {}
        if line.get("role") != "assistant" or line.get("turn") != turn:
            raise HistoryError("only the latest reply can be flipped; reload the page", status=409)
        alternatives = [a for a in line.get("alternatives") or [] if isinstance(a, dict)]
        if not isinstance(alternative_index, int) or not 0 <= alternative_index < len(alternatives):
            raise HistoryError("there is no such alternative for this reply", status=404)
        new = _line_with_version(line, alternative_index)
        state = store.instance_state_read(instance_id)
        director = None
        restored = None
        if state.get("current_session_id") == session_id:
            restored = _plot_state_before(store, instance_id, reply_versions(line))
        _session_change(store, instance_id, session_id, first=index,
                        lines=[new, *_lines_after(read, index)], action="swipe")
        if restored is not None:
            store.instance_state_write(instance_id, {**state, "plot_state": restored})
            director = director_apply_reply(store, instance_id=instance_id, reply=new)
    finally:
        lock.release()
    return {"line": new, "version": version_position(new) + 1,
            "versions": len(new.get("alternatives", [])) + 1, "director": director,
            "director_reapplied": director is not None}


def _line_with_version(line: dict[str, Any], alternative_index: int) -> dict[str, Any]:
    versions = reply_versions(line)
    position = version_position(line)
    chosen_at = alternative_index if alternative_index < position else alternative_index + 1
    chosen = versions[chosen_at]
    rest = [v for i, v in enumerate(versions) if i != chosen_at]
    base = {k: v for k, v in line.items()
            if k not in VERSION_KEYS and k not in ("alternatives", "alternative_position")}
    return {**base, **chosen, "alternatives": rest, "alternative_position": chosen_at}


def _plot_state_before(store: FileStore, instance_id: str,
                       versions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Every version of a turn starts from the same plot_state (regenerate restores it), so the
    first readable trace among the versions gives it."""
    for version in versions:
        trace_id = version.get("trace_id")
        if not isinstance(trace_id, str) or not is_valid_id(trace_id):
            continue
        try:
            before = store.trace_read(instance_id, trace_id).get("plot_state_before")
        except (StoreError, ValueError):
            continue
        if isinstance(before, dict):
            return copy.deepcopy(before)
    return None
