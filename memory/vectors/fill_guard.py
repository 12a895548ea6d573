"""A fill never writes back a line the player edited, deleted or hid meanwhile (issue 30 item 4b).

A dense fill reads the session once and embeds it for minutes, chunk after chunk. A history
change made meanwhile is followed at once (memory/keyword_index/live.py: the old text leaves the
keyword store and Chroma), so a chunk that still held the line as the fill read it would put
the old text back. Each chunk therefore asks `FileLines` which of its lines the file no longer
has as read: one `stat` of the file and of its history folder when nothing moved, the file read
again when something did (an append moves it too, so at most once per turn played meanwhile).
Such lines are left out of the chunk and made right (`lines_repair`: out of Chroma, the file's
current text into the keyword store); the sync the change queued embeds them after the fill.
The check runs again after the chunk's write, for a change that landed while it embedded.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from memory.vectors.index import MemoryIndex
from memory.vectors.turn_docs import turn_doc_id, turns_indexable
from personalab.lib.filestore.jsonl import jsonl_lines_since
from personalab.lib.lines import session_line_problem

# What a line must still have for the fill's copy of it to be the file's (the text recall shows).
LINE_FIELDS = ("content", "speaker", "name")
# A write in the same clock tick as the stat leaves its mtime unchanged (git's "racily clean"):
# a stat this close to the file's mtime is not trusted, the next check reads the file.
RACY_NS = 50_000_000


def _stat_key(path: Path, history: Path) -> tuple[Any, ...] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    try:
        folder = history.stat().st_mtime_ns
    except FileNotFoundError:
        folder = 0
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, folder


def _is_racy(key: tuple[Any, ...] | None) -> bool:
    return key is not None and time.time_ns() - max(key[3], key[4]) < RACY_NS


class FileLines:
    """The session file as a sync read it. Made just before the read (its stat is the one the
    read is compared with later)."""

    def __init__(self, path: Path, history: Path, session_id: str) -> None:
        self.path, self.history, self.session_id = path, history, session_id
        self._key = _stat_key(path, history)
        self._racy = _is_racy(self._key)
        self._current: dict[str, dict[str, Any]] | None = None  # None: as the sync read it

    def _reread(self) -> dict[str, dict[str, Any]]:
        try:
            read = jsonl_lines_since(self.path, 0, check=session_line_problem)
        except FileNotFoundError:  # archived meanwhile: every line is gone
            return {}
        return {turn_doc_id(self.session_id, line): line
                for line in turns_indexable(read.records)}

    def current(self) -> dict[str, dict[str, Any]] | None:
        """The file's indexable lines by id, read again if it moved since the last look;
        None when it has not moved since the sync read it."""
        key = _stat_key(self.path, self.history)
        if key != self._key or self._racy:
            self._racy = _is_racy(key)
            self._current = self._reread()
            self._key = key
        return self._current

    def stale(self, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Those of `lines` (as the sync read them) that the file no longer has so: edited,
        deleted or hidden since."""
        current = self.current()
        if current is None:
            return []
        return [line for line in lines
                if not _same(current.get(turn_doc_id(self.session_id, line)), line)]


def _same(now: dict[str, Any] | None, then: dict[str, Any]) -> bool:
    return now is not None and all(
        str(now.get(key) or "") == str(then.get(key) or "") for key in LINE_FIELDS)


def lines_repair(index: MemoryIndex, owner: dict[str, Any], guard: FileLines,
                 stale: list[dict[str, Any]]) -> None:
    """`stale` lines out of Chroma (both models) and the keyword store, and the text the file
    has now (if it still has the line) back into the keyword store; the sync embeds it later
    (the ids left Chroma, so it finds them missing)."""
    if not stale:
        return
    session_id = guard.session_id
    ids = [turn_doc_id(session_id, line) for line in stale]
    index.documents_delete("turns", owner["instance_id"], ids)
    current = guard.current() or {}
    index.add_turns(session_id=session_id, before=None, keywords_only=True, **owner,
                    turns=[current[doc_id] for doc_id in ids if doc_id in current])


def lines_still_current(index: MemoryIndex, owner: dict[str, Any], guard: FileLines | None,
                        lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`lines` less those changed since the sync read them, which are made right on the way."""
    if guard is None:
        return lines
    stale = guard.stale(lines)
    lines_repair(index, owner, guard, stale)
    gone = {id(line) for line in stale}
    return [line for line in lines if id(line) not in gone]
