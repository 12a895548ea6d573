"""The session cache: session files as last parsed, so a turn parses only what was appended;
and a small cache of what was made of other files while they stay the same."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from personalab.lib.file_trust import file_known, file_read_whole, path_stamp, read_started
from personalab.lib.filestore.jsonl import file_bytes
from personalab.lib.filestore.session_read import (
    ParsedLines,
    SessionRead,
    parsed_extend,
    parsed_extend_tail,
    records_turn_max,
    session_from_parsed,
)

T = TypeVar("T")

SESSION_CACHE_FILES = 16
SESSION_CACHE_BYTES = 64 * 1024 * 1024


class SessionCache:
    """Session files as last parsed, so a turn parses only the lines appended since.

    The cached lines are reused only when the file still starts with exactly the bytes they
    were parsed from. While this process knows the file (personalab/lib/file_trust.py: its
    stamp unchanged since a whole read, or changed only by this process's appends) only the
    bytes after those lines are read; otherwise the file is read whole and the bytes the lines
    were parsed from are compared by their CRC-32. An append (a user line, a finished reply)
    adds lines; anything else (an edit, an undo, a regenerate, a hand edit in place, even one
    that keeps size and mtime) changes those bytes and the file is parsed in full.
    The unfinished last line (a reply still streaming) is never cached, it is read every time.
    Least recently read files are dropped beyond SESSION_CACHE_FILES or SESSION_CACHE_BYTES.
    """

    def __init__(self, *, max_files: int = SESSION_CACHE_FILES,
                 max_bytes: int = SESSION_CACHE_BYTES):
        self.max_files = max_files
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, ParsedLines] = OrderedDict()
        self._lock = threading.Lock()

    def read(self, path: Path, *, data: bytes | None = None,
             generation: int | None = None) -> SessionRead:
        """`data`: the file's bytes, when the caller has just read them (`generation`: under
        which file_trust knows them, if it does)."""
        key = os.path.abspath(path)
        with self._lock:
            before = self._entries.get(key)
        if data is None:
            known = file_known(path)
            if known is not None and before is not None \
                    and before.generation == known.generation and before.size <= known.size:
                rest = file_range(path, before.size, known.size)
                if rest is not None:
                    parsed = parsed_extend_tail(before, rest, path, generation=known.generation)
                    self._keep(key, parsed)
                    return session_from_parsed(path, rest[parsed.size - before.size:],
                                               known.size, parsed)
            started = read_started()
            stamp = path_stamp(path)
            data = file_bytes(path)
            generation = (file_read_whole(path, stamp=stamp, started=started)
                          if stamp is not None else None)
        parsed = parsed_extend(before, data, path, generation=generation)
        self._keep(key, parsed)
        return session_from_parsed(path, data[parsed.size:], len(data), parsed)

    def _keep(self, key: str, parsed: ParsedLines) -> None:
        with self._lock:
            self._entries[key] = parsed
            self._entries.move_to_end(key)
            self._shrink()

    def cut(self, path: Path, *, offset: int, records: int, lines: int, crc: int,
            generation: int | None = None, renewed: int | None = None) -> None:
        """The file was changed from byte `offset` (a line's start) on; `lines` lines (the
        file's bytes before it, CRC-32 `crc`) and `records` parsed lines lie before it: keep
        those, so the next read parses only the new tail. `renewed`: the generation the
        change left the file known under; lines parsed under `generation`, the one before it,
        are kept under it, so that read need not check the bytes before the tail either."""
        key = os.path.abspath(path)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry.size < offset or len(entry.records) < records:
                self._entries.pop(key, None)
                return
            kept = entry.records[:records]
            self._entries[key] = ParsedLines(
                offset, crc, lines, kept,
                [problem for problem in entry.problems if problem.line_number <= lines],
                records_turn_max(kept),
                renewed if generation is not None and entry.generation == generation else None)

    def _shrink(self) -> None:
        total = sum(entry.size for entry in self._entries.values())
        while len(self._entries) > 1 and (len(self._entries) > self.max_files
                                          or total > self.max_bytes):
            _, dropped = self._entries.popitem(last=False)
            total -= dropped.size


def file_range(path: Path, start: int, stop: int) -> bytes | None:
    """The file's bytes [start, stop), or None when it is shorter (it changed)."""
    try:
        with open(path, "rb") as handle:
            data = os.pread(handle.fileno(), stop - start, start)
    except OSError:
        return None
    return data if len(data) == stop - start else None


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
