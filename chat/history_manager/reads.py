"""The history manager's reads: listing sessions, opening an archived one, paging messages."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from chat.history_manager.base import (
    HistoryError,
    _from,
    _is_editable,
    _line_at,
    history_settings,
    line_fingerprint,
    version_position,
)
from personalab.lib.filestore.session_read import SessionRead, read_session_file
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import is_valid_id
from personalab.lib.line_index import ASSISTANT, NOTE, SUMMARY, SYSTEM, USER
from personalab.lib.lines import display_depths
from personalab.lib.store_errors import InstanceBusy

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
        read = store.session_read(instance_id, key, pick=pick)
        # A reply a crash cut (kill -9) read as "streaming" and left out until another route
        # completed it; one a turn is writing now is left alone.
        if read.partial is not None and store.session_repair_when_idle(instance_id, key):
            read = store.session_read(instance_id, key, pick=pick)
        return read, False
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
    depths = display_depths(read.lines, after=read.depth_after)
    return {"session_key": session_key, "session_id": read.metadata.get("session_id"),
            # each row's depth in the whole session, for the page's regex scripts (not sent)
            "depths": {row["index"]: depths[id(row["line"])] for row in rows
                       if id(row["line"]) in depths},
            "archived": archived, "read_only": archived, "metadata": read.metadata,
            "rows": rows, "page": page, "pages": pages,
            "total": total, "query": query.strip(), "page_size": size,
            "problems": [p.describe() for p in read.problems],
            "streaming": read.partial is not None}


def message_read(store: FileStore, *, instance_id: str, session_key: str, index: int,
                 fingerprint: str) -> dict[str, Any]:
    """One line as the file holds it (macros as written), for an edit box; refused with 409
    when the line changed since the reader's page named it by `fingerprint`."""
    read, _ = session_open(store, instance_id=instance_id, key=session_key, pick=_from(index))
    return _row(index, _line_at(read, index, fingerprint))


def message_row(store: FileStore, *, instance_id: str, session_key: str,
                index: int) -> dict[str, Any]:
    """One message as a row of the messages page (with `is_last_reply` and `read_only`), for
    a page of that message's actions; a position that holds no message is a 404."""
    read, archived = session_open(store, instance_id=instance_id, key=session_key,
                                  pick=_from(index))
    if not 0 <= index - read.first_index < len(read.lines):
        raise HistoryError("that message is no longer in the session", status=404)
    line = read.lines[index - read.first_index]
    if not _is_editable(line):
        raise HistoryError("only messages and summaries can be changed", status=404)
    row = _row(index, line)
    last = _last_message_position(read)
    return {**row, "is_last_reply": index == last and row["role"] == "assistant",
            "read_only": archived, "depth": display_depths(read.lines).get(id(line))}


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
