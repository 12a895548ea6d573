"""A line index kept beside a session file, so a page or a turn parses only the lines it shows.

`.{session}.jsonl.idx` holds one fixed-size record per line of the file (blank and bad lines
too, so record i is line i + 1): where the line ends, what kind of line it is, its turn, whether
a prompt may use it, its content's tokens (so a turn knows what the lines it leaves out weigh
without reading them), whether its bytes may hold a macro (`{{`, `<` or an escape of either: a
prompt finds such lines among those it leaves out without scanning them), and the CRC-32 of
the file from its first byte to that line's end. The header names the tokenizer; an index
counted by another one is rebuilt. The index is a cache, never the truth: every read checks
the last record's CRC against the file's bytes (a hand edit anywhere in the indexed part, a
rewrite, a shorter file, an index of another file all fail it) and rebuilds the index from
the file when it does not match; a process that knows the file unchanged since such a check
but for its own appends (personalab/lib/file_trust.py) keeps the index it checked and reads
only the bytes after it (line_index_known). Lines appended since are parsed and
appended to the index; a rebuilt index replaces the old one by rename. A write cut by kill -9
leaves at most a torn last record, which the next read drops; nothing is fsynced, since a lost
index costs one rebuild and never a wrong answer.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import tempfile
import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from personalab.lib.jsontext import json_lines_at_once, json_loads_for
from personalab.lib.lines import line_parse, line_prompt_usable, session_line_problem
from personalab.lib.tokens import count_tokens, tokenizer_name

TAIL_RECORDS = 64  # a change among this many last lines is found without a search
MAGIC = b"PLLINES4"  # 3: a narrator note SillyTavern sends is usable; 4: the macro flag
HEADER_BYTES = 32  # MAGIC, then the tokenizer's name padded with spaces
RECORD = np.dtype([("end", "<u8"), ("turn", "<i8"), ("crc", "<u4"), ("tokens", "<u4"),
                   ("kind", "u1"), ("usable", "u1"), ("macro", "u1"), ("pad", "V5")])
# A line's bytes that may hold a macro once parsed: "{{", "<", or a JSON escape of either.
MAYBE_MACRO = re.compile(rb"\{\{|<|\\u00(?:3[cC]|7[bB])")

# What a line is. Only lines of a kind from USER up are lines of the session as read.
BLANK, BAD, METADATA, USER, ASSISTANT, SYSTEM, SUMMARY, NOTE, OTHER = range(9)
MESSAGE_KINDS = (USER, ASSISTANT)
SHOWN_KINDS = (USER, ASSISTANT, SYSTEM, SUMMARY, NOTE)  # what the chat page shows
_ROLE_KINDS = {"user": USER, "assistant": ASSISTANT, "system": SYSTEM}
_NO_TURN = -1
_TURN_MAX = 2 ** 62


def kinds_among(kinds: np.ndarray, wanted: tuple[int, ...]) -> np.ndarray:
    """Which of `kinds` are among `wanted`, as booleans (np.isin's answer, by a table look-up:
    a tenth of its time on a long session)."""
    table = np.zeros(256, dtype=bool)
    table[list(wanted)] = True
    return table[kinds]


class Unindexable(Exception):
    """A line the index cannot describe (a turn beyond 2**62): read the whole file instead."""


@dataclass(frozen=True)
class LineIndex:
    records: np.ndarray

    @cached_property
    def kinds(self) -> np.ndarray:
        return np.ascontiguousarray(self.records["kind"])

    @cached_property
    def positions(self) -> np.ndarray:
        """Record numbers of the session's lines, in order (line_records, computed once)."""
        return np.flatnonzero(self.kinds >= USER)

    @property
    def covered(self) -> int:
        """Bytes of the file the index describes: its whole lines."""
        return int(self.records["end"][-1]) if len(self.records) else 0

    def starts(self) -> np.ndarray:
        ends = self.records["end"]
        return np.concatenate(([0], ends[:-1])).astype(np.uint64) if len(ends) else ends

    def span(self, record: int) -> tuple[int, int]:
        end = int(self.records["end"][record])
        return (int(self.records["end"][record - 1]) if record else 0), end

    def line_records(self) -> np.ndarray:
        """Record numbers of the session's lines, in order (what SessionRead.lines holds)."""
        return self.positions

    def turn_max(self) -> int:
        kinds, turns = self.kinds, self.records["turn"]
        picked = turns[(kinds == USER) | (kinds == ASSISTANT)]
        return max(int(picked.max()) if len(picked) else 0, 0)


def index_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.idx")


def _kind(record: dict[str, Any] | None, reason: str | None, *, first: bool) -> int:
    if record is None:
        return BAD if reason else BLANK
    if first and record.get("type") == "metadata":
        return METADATA
    if "role" in record:
        return _ROLE_KINDS[record["role"]]
    return {"summary": SUMMARY, "note": NOTE}.get(record.get("type"), OTHER)


def _turn(record: dict[str, Any] | None) -> int:
    turn = record.get("turn") if record and "role" in record else None
    if not isinstance(turn, int) or isinstance(turn, bool):
        return _NO_TURN
    if abs(turn) >= _TURN_MAX:
        raise Unindexable(f"turn {turn} is too large to index")
    return turn


def _tokens(record: dict[str, Any] | None, usable: bool) -> int:
    # A summary is rendered through a template each turn, so only messages are counted here.
    return count_tokens(record["content"]) if usable and record.get("type") != "summary" else 0


def _records_for(data: bytes, start: int, stop: int, crc: int, *, seen_valid: bool) -> np.ndarray:
    """Records for the whole lines in data[start:stop] (stop just after a newline)."""
    rows = []
    position = start
    loads = json_loads_for(data[start:stop])
    # Parsed in one go when every line is an object (an import's 100,000 lines), else one by one.
    parsed = iter(json_lines_at_once(data[start:stop], loads) or ())
    while position < stop:
        end = data.index(b"\n", position, stop) + 1
        record = next(parsed, None)
        if record is None:
            record, reason = line_parse(data[position:end - 1], session_line_problem, loads=loads)
        elif reason := session_line_problem(record):
            record = None
        crc = zlib.crc32(data[position:end], crc)
        usable = record is not None and line_prompt_usable(record)
        rows.append((end, _turn(record), crc, _tokens(record, usable),
                     _kind(record, reason, first=not seen_valid), usable,
                     MAYBE_MACRO.search(data, position, end) is not None))
        seen_valid = seen_valid or record is not None
        position = end
    out = np.zeros(len(rows), dtype=RECORD)
    if rows:
        columns = zip(*rows)
        for name, values in zip(("end", "turn", "crc", "tokens", "kind", "usable", "macro"),
                                columns):
            out[name] = values
    return out


def _header() -> bytes:
    return MAGIC + tokenizer_name().encode("ascii", "replace")[:HEADER_BYTES - len(MAGIC)].ljust(
        HEADER_BYTES - len(MAGIC))


@dataclass(frozen=True)
class _Stored:
    records: np.ndarray
    length: int = -1  # the index file's length when read; -1: write a whole new one
    inode: int = -1


def _load(path: Path) -> _Stored:
    """The stored records (a torn last one dropped), with the file's length and inode."""
    try:
        with open(index_path(path), "rb") as handle:
            raw, inode = handle.read(), os.fstat(handle.fileno()).st_ino
    except OSError:
        return _Stored(np.zeros(0, dtype=RECORD))
    if not raw.startswith(_header()):
        return _Stored(np.zeros(0, dtype=RECORD))
    count = (len(raw) - HEADER_BYTES) // RECORD.itemsize
    return _Stored(np.frombuffer(raw, dtype=RECORD, count=count, offset=HEADER_BYTES),
                   len(raw), inode)


def _matches(records: np.ndarray, data: bytes, count: int) -> bool:
    """Whether the first `count` records describe the start of `data` byte for byte."""
    if not count:
        return True
    covered = int(records["end"][count - 1])
    return (covered <= len(data) and data[covered - 1:covered] == b"\n"
            and zlib.crc32(memoryview(data)[:covered]) == int(records["crc"][count - 1]))


def _matching_prefix(records: np.ndarray, data: bytes) -> int:
    """How many leading records still describe `data`. Each CRC covers the file up to its line,
    so once one fails every later one does: a binary search finds the edge, and an edit near the
    end of a long session (the usual undo, delete or edit) keeps the index of the lines before."""
    ends = records["end"]
    if len(ends) > 1 and not bool(np.all(ends[1:] > ends[:-1])):
        return 0  # not an index this module wrote
    if _matches(records, data, len(records)):
        return len(records)
    near = len(records) - TAIL_RECORDS
    if near > 0 and _matches(records, data, near):
        # The usual change is of the last few lines (a regenerate, a swipe, an edit): walk
        # them on from there, one line's bytes at a time, instead of a search whose every step
        # checks the whole file's start again (megabytes each in an old session).
        return _matching_from(records, data, near)
    low, high = 0, len(records) - 1  # records[:low] match, records[:high + 1] do not
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if _matches(records, data, middle) else (low, middle - 1)
    return low


def _matching_from(records: np.ndarray, data: bytes, count: int) -> int:
    """How many leading records describe `data`, given that the first `count` do."""
    ends, crcs = records["end"], records["crc"]
    crc = int(crcs[count - 1])
    for number in range(count, len(records)):
        start, end = int(ends[number - 1]), int(ends[number])
        crc = zlib.crc32(memoryview(data)[start:end], crc) if end <= len(data) else -1
        if crc != int(crcs[number]) or data[end - 1:end] != b"\n":
            return number
    return len(records)


def line_index_read(path: Path, data: bytes) -> LineIndex:
    """The index of `data` (the bytes of the session file at `path`): the stored one when it
    matches, extended by the lines appended since; when only its start matches (the file was
    rewritten or edited by hand), that start is kept and the rest indexed again."""
    loaded = _load(path)
    stored = loaded.records
    kept = _matching_prefix(stored, data)
    if kept < len(stored):
        stored, loaded = stored[:kept], _Stored(stored[:kept])
    covered = int(stored["end"][-1]) if len(stored) else 0
    cut = data.rfind(b"\n") + 1
    if cut <= covered and loaded.length >= 0:
        return LineIndex(stored)
    seen_valid = bool(len(stored)) and bool(np.any(stored["kind"] >= METADATA))
    crc = int(stored["crc"][-1]) if len(stored) else 0
    added = _records_for(data, covered, cut, crc, seen_valid=seen_valid)
    with contextlib.suppress(OSError):
        if loaded.length < 0:
            _write_whole(path, np.concatenate((stored, added)))
        else:
            _append(path, added, loaded)
    return LineIndex(np.concatenate((stored, added)) if len(stored) else added)


_HELD_FILES = 16
# Per file: the generation, the index, and the array its records are the start of (room to
# append a turn's lines without copying every record).
_held: OrderedDict[str, tuple[int, LineIndex, np.ndarray]] = OrderedDict()
_held_lock = threading.Lock()


def line_index_hold(path: Path, index: LineIndex, generation: int) -> None:
    """Keep `index` in this process as the index of the file known under `generation`
    (personalab/lib/file_trust.py), so line_index_known need not check it against the file."""
    key = os.path.abspath(path)
    with _held_lock:
        _held[key] = (generation, index, index.records)
        _held.move_to_end(key)
        while len(_held) > _HELD_FILES:
            _held.popitem(last=False)


def _records_grown(buffer: np.ndarray, count: int, added: np.ndarray) -> np.ndarray:
    """`added` written after the first `count` records of `buffer` (a larger one when it is
    full or not ours to write into): the records are buffer[:count + len(added)]. Records
    before `count` are never written, so an index handed out earlier keeps its view."""
    if not buffer.flags.writeable or len(buffer) < count + len(added):
        grown = np.zeros(max(2 * (count + len(added)), 1024), dtype=RECORD)
        if buffer[:count].flags.c_contiguous:
            # As bytes: numpy copies a structured array field by field (30× slower at 100k).
            grown.view(np.uint8)[:count * RECORD.itemsize] = buffer[:count].view(np.uint8)
        else:
            grown[:count] = buffer[:count]
        buffer = grown
    buffer[count:count + len(added)] = added
    return buffer


def line_index_known(path: Path, generation: int, size: int) -> tuple[LineIndex, bytes] | None:
    """The index of the file known under `generation`, now `size` bytes, without reading the
    bytes it covers (this process knows they are the ones it indexed): the index held, extended
    by the lines appended since; and the file's bytes after the lines it held. None: no index
    held for it (read the file whole)."""
    key = os.path.abspath(path)
    with _held_lock:
        held = _held.get(key)
    if held is None or held[0] != generation or held[1].covered > size:
        return None
    index, buffer = held[1], held[2]
    covered = index.covered
    try:
        with open(path, "rb") as handle:
            tail = os.pread(handle.fileno(), size - covered, covered)
    except OSError:
        return None
    if len(tail) != size - covered:
        return None
    cut = tail.rfind(b"\n") + 1
    if not cut:
        return index, tail
    stored = index.records
    seen_valid = bool(len(stored)) and bool(np.any(index.kinds >= METADATA))
    added = _records_for(tail, 0, cut, int(stored["crc"][-1]) if len(stored) else 0,
                         seen_valid=seen_valid)
    added["end"] += covered
    with contextlib.suppress(OSError):
        # Only onto an index file that still holds just the records held (else it is left
        # for the next whole read to check and mend).
        inode = os.stat(index_path(path)).st_ino
        _append(path, added, _Stored(stored, HEADER_BYTES + len(stored) * RECORD.itemsize,
                                     inode))
    with _held_lock:
        if _held.get(key) is not held:  # another thread extended it meanwhile
            return LineIndex(np.concatenate((stored, added))), tail
        buffer = _records_grown(buffer, len(stored), added)
        extended = LineIndex(buffer[:len(stored) + len(added)])
        _held[key] = (generation, extended, buffer)
    return extended, tail


def _write_whole(path: Path, records: np.ndarray) -> None:
    target = index_path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(_header() + records.tobytes())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _append(path: Path, records: np.ndarray, loaded: _Stored) -> None:
    """Append under an exclusive flock, only to the very file read and only if nobody changed
    it since (two readers extending at once would otherwise write the same lines twice)."""
    with open(index_path(path), "r+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        now = os.fstat(handle.fileno())
        if (now.st_ino, now.st_size) != (loaded.inode, loaded.length):
            return
        whole = HEADER_BYTES + len(loaded.records) * RECORD.itemsize
        handle.truncate(whole)  # a torn record left by a killed writer
        handle.seek(whole)
        handle.write(records.tobytes())


def line_index_cut(path: Path, keep: int) -> None:
    """Keep only the index's first `keep` records: the file was changed from the end of that
    line on (a tail change), so the next read checks those and indexes only the new lines, not
    a search for where the file changed. Like every write here, only a cache: a failure or a
    stale index costs the next read a rebuild of what does not match."""
    with contextlib.suppress(OSError), open(index_path(path), "r+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        if handle.read(HEADER_BYTES) != _header():
            return
        handle.truncate(HEADER_BYTES + keep * RECORD.itemsize)
