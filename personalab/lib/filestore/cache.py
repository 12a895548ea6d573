"""The session cache: session files as last parsed, so a turn parses only what was appended;
and a small cache of what was made of other files while they stay the same."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from personalab.lib.filestore.jsonl import file_bytes
from personalab.lib.filestore.session_read import (
    ParsedLines,
    SessionRead,
    parsed_extend,
    records_turn_max,
    session_from_parsed,
)

T = TypeVar("T")

SESSION_CACHE_FILES = 16
SESSION_CACHE_BYTES = 64 * 1024 * 1024


class SessionCache:
    """Session files as last parsed, so a turn parses only the lines appended since.

    Every read still reads the whole file: the cached lines are reused only when the file
    starts with exactly the bytes they were parsed from. An append (a user line, a finished
    reply) adds lines; anything else (an edit, an undo, a regenerate, a hand edit in place,
    even one that keeps size and mtime) changes those bytes and the file is parsed in full.
    The unfinished last line (a reply still streaming) is never cached, it is read every time.
    Least recently read files are dropped beyond SESSION_CACHE_FILES or SESSION_CACHE_BYTES.
    """

    def __init__(self, *, max_files: int = SESSION_CACHE_FILES,
                 max_bytes: int = SESSION_CACHE_BYTES):
        self.max_files = max_files
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, ParsedLines] = OrderedDict()
        self._lock = threading.Lock()

    def read(self, path: Path, *, data: bytes | None = None) -> SessionRead:
        """`data`: the file's bytes, when the caller has just read them."""
        key = os.path.abspath(path)
        data = file_bytes(path) if data is None else data
        with self._lock:
            before = self._entries.get(key)
        parsed = parsed_extend(before, data, path)
        with self._lock:
            self._entries[key] = parsed
            self._entries.move_to_end(key)
            self._shrink()
        return session_from_parsed(path, data, parsed)

    def cut(self, path: Path, *, offset: int, records: int) -> None:
        """The file was changed from byte `offset` (a line's start) on, and `records` parsed
        lines lie before it: keep those, so the next read parses only the new tail."""
        key = os.path.abspath(path)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or len(entry.prefix) < offset or len(entry.records) < records:
                self._entries.pop(key, None)
                return
            lines = entry.prefix.count(b"\n", 0, offset)
            kept = entry.records[:records]
            self._entries[key] = ParsedLines(
                entry.prefix[:offset], lines, kept,
                [problem for problem in entry.problems if problem.line_number <= lines],
                records_turn_max(kept))

    def _shrink(self) -> None:
        total = sum(len(entry.prefix) for entry in self._entries.values())
        while len(self._entries) > 1 and (len(self._entries) > self.max_files
                                          or total > self.max_bytes):
            _, dropped = self._entries.popitem(last=False)
            total -= len(dropped.prefix)


SESSION_CACHE = SessionCache()


class FileParseCache(Generic[T]):
    """What was made of small files (a library tile's line from a character's card), kept
    while the file is the same one: keyed on its inode, size and mtime, so any write through
    the store (an atomic rename: a new inode) or by hand is read again on the next ask. Only
    the result is kept, never the file. Least recently asked beyond `max_files` go first."""

    def __init__(self, *, max_files: int = 4096):
        self.max_files = max_files
        self._entries: OrderedDict[str, tuple[tuple[int, int, int], T]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, path: Path, make: Callable[[Path], T]) -> T:
        """make(path), or what it gave for this very file before. OSError when it is gone."""
        key = os.path.abspath(path)
        stat = os.stat(path)
        stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None and hit[0] == stamp:
                self._entries.move_to_end(key)
                return hit[1]
        value = make(path)
        with self._lock:
            self._entries[key] = (stamp, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_files:
                self._entries.popitem(last=False)
        return value

    def forget(self, path: Path) -> None:
        with self._lock:
            self._entries.pop(os.path.abspath(path), None)
