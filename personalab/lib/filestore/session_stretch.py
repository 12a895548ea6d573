"""Reads of part of a session through its line index (personalab/lib/line_index.py): a chat
page's stretch, the lines a prompt can use, a listing's line kinds. Only the lines read are
parsed, so the cost does not grow with the session."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from personalab.lib.file_trust import file_known, file_read_whole, file_stamp, read_started
from personalab.lib.filestore.cache import SESSION_CACHE
from personalab.lib.filestore.jsonl import LineProblem, file_bytes, lines_parse
from personalab.lib.filestore.lines_before import lines_before_read
from personalab.lib.filestore.session_read import (
    SessionRead,
    read_session_file,
    records_turn_max,
    unfinished_take,
)
from personalab.lib.jsontext import json_loads
from personalab.lib.line_index import (
    ASSISTANT,
    BAD,
    BLANK,
    MESSAGE_KINDS,
    METADATA,
    NOTE,
    SHOWN_KINDS,
    SUMMARY,
    USER,
    LineIndex,
    Unindexable,
    kinds_among,
    line_index_hold,
    line_index_known,
    line_index_read,
)
from personalab.lib.lines import line_parse, line_prompt_usable, session_line_problem
from personalab.lib.store_errors import MissingFile


class FileView:
    """The bytes of a session file this process knows (personalab/lib/file_trust.py), read by
    the stretch: only the slices asked for are read, the bytes after the indexed lines given."""

    def __init__(self, path: Path, size: int, tail_start: int, tail: bytes,
                 generation: int) -> None:
        self.path, self.size, self.tail_start, self.tail = path, size, tail_start, tail
        self.generation = generation
        self._fd: int | None = None  # opened on the first read before the tail, kept open

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, key: slice) -> bytes:
        start, stop, _ = key.indices(self.size)
        if start >= self.tail_start:
            return self.tail[start - self.tail_start:stop - self.tail_start]
        if stop <= start:
            return b""
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        return os.pread(self._fd, stop - start, start)

    def __del__(self) -> None:
        if self._fd is not None:
            os.close(self._fd)

    def still_known(self) -> bool:
        """Whether the file still holds the bytes read (only appended to since, if at all)."""
        known = file_known(self.path)
        return known is not None and known.generation == self.generation \
            and known.size >= self.size


def session_indexed(path: Path):
    """The file's bytes (a FileView when this process knows the file), its line index, the
    index's line records and the generation file_trust knows the bytes under (or None); None
    when the file cannot be indexed (the caller reads it whole)."""
    known = file_known(path)
    if known is not None:
        held = line_index_known(path, known.generation, known.size)
        if held is not None:
            index, tail = held
            view = FileView(path, known.size, known.size - len(tail), tail, known.generation)
            return view, index, index.line_records(), known.generation
    started = read_started()
    try:
        stamp = file_stamp(os.stat(path))
    except FileNotFoundError:
        raise MissingFile(path, path.name) from None
    data = file_bytes(path)
    try:
        index = line_index_read(path, data)
    except Unindexable:
        return None
    generation = file_read_whole(path, stamp=stamp, started=started)
    if generation is not None:
        line_index_hold(path, index, generation)
    return data, index, index.line_records(), generation


def _checked(path: Path, data, read: SessionRead) -> SessionRead:
    """`read`, unless the file changed under a FileView's reads: then the file read whole."""
    if isinstance(data, FileView) and not data.still_known():
        return read_session_file(path)
    return read


def read_session_stretch(path: Path, *, shown: int, before: int | None = None) -> SessionRead:
    """The lines from the (`shown` + 1)-th newest line the chat page shows before line position
    `before` (the end when None) up to `before`, found through the line index kept beside the
    file, so only those lines are parsed. Metadata, problems (every bad line of the file, same
    reasons and numbers), the unfinished last line and the highest turn are as
    read_session_file gives them; `first_index` says where the stretch starts."""
    indexed = session_indexed(path)
    if indexed is None:
        return read_session_file(path)
    data, index, positions, _ = indexed
    end = len(positions) if before is None else max(0, min(before, len(positions)))
    shown_at = np.flatnonzero(kinds_among(index.kinds[positions[:end]], SHOWN_KINDS))
    first = int(shown_at[-shown - 1]) if len(shown_at) > shown else 0
    return _checked(path, data, _stretch_read(path, data, index, positions, first, end,
                                              whole_end=before is None))


def no_lines(kinds: np.ndarray) -> tuple[int, int]:
    return len(kinds), len(kinds)


def read_session_picked(path: Path, *,
                        pick: Callable[[np.ndarray], tuple[int, int]]) -> SessionRead:
    """The session's lines at positions [first, end) that `pick` chooses from the line index's
    kinds of all the lines (`line_kinds`), only those parsed; metadata, problems and the
    unfinished last line as read_session_file gives them. A session the index cannot describe
    whole (no index, a last line missing only its newline) is read whole, `line_kinds` None."""
    indexed = session_indexed(path)
    if indexed is None:
        return read_session_file(path)
    data, index, positions, _ = indexed
    first, end = pick(index.kinds[positions])
    read = _checked(path, data, _stretch_read(path, data, index, positions, first, end,
                                              whole_end=False))
    return read if read.line_kinds is not None else read_session_file(path)



def read_session_recent(path: Path, *, usable: int | None = None, tokens: int | None = None,
                        overhead: int = 0, spared: int = 0) -> SessionRead:
    """The newest lines a prompt can use, through the line index, and the newest user line:
    `usable` lines a prompt may send, or (`tokens`) lines a prompt may send back to the first
    that takes their cost (content tokens + `overhead` each) over `tokens`, the newest `spared`
    of them read but not counted (a reply a regenerate replaces); `lines_before` tallies the
    lines before them. When every line fits in `tokens`, the whole session is read
    through the session cache, so the next turn parses only what was appended."""
    indexed = session_indexed(path)
    if indexed is None:
        return read_session_file(path)
    data, index, positions, generation = indexed
    first = _recent_first(index, positions, usable=usable, tokens=tokens, overhead=overhead,
                          spared=spared)
    if usable is None and first == 0:
        read = (SESSION_CACHE.read(path) if isinstance(data, FileView)
                else SESSION_CACHE.read(path, data=data, generation=generation))
        read.token_counts = _token_counts(read.lines, index.records[positions])
        return read
    last_user = _last_of(index, positions, (USER,))
    if last_user is not None:
        first = min(first, last_user)
    read = _stretch_read(path, data, index, positions, first, len(positions), whole_end=True,
                         generation=generation)
    read.lines_before = lines_before_read(path, data, index, positions, first, generation)
    read.token_counts = _token_counts(read.lines, index.records[positions[first:]])
    read.before_source = LinesSource(path, data, index, positions, first)
    return _checked(path, data, read)


class LinesSource:
    """The lines before a turn's stretch, as the read that left them out found them: parsed
    only when asked for, a few at a time (what a group's prompt weighs of them is carried on
    from turn to turn, chat/groups/before_tally.py)."""

    def __init__(self, path: Path, data: Any, index: LineIndex, positions: np.ndarray,
                 first: int) -> None:
        self.path, self._data, self._index, self._positions = path, data, index, positions
        self.first = first  # the stretch's first position: the lines before it are these

    def __len__(self) -> int:
        return self.first

    def edge(self, position: int) -> tuple[int, int]:
        """The index's (end, crc) of the line before `position`: the crc covers every byte of
        the file before that line's end, so an equal edge means the same lines up to there."""
        if not 0 < position <= len(self._positions):
            return (0, 0)
        record = self._index.records[self._positions[position - 1]]
        return int(record["end"]), int(record["crc"])

    def lines(self, start: int, stop: int) -> tuple[list[dict[str, Any]], list[bool]] | None:
        """The lines at positions [start, stop) (the stretch's too, when asked for), parsed, and
        whether each one's bytes may hold a macro (the index's flag); None when the file no
        longer holds what the read indexed."""
        picked = self._positions[start:stop]
        if not len(picked):
            return [], []
        records, _ = _stretch_parse(self.path, self._data, self._index, picked)
        if len(records) != len(picked) or (isinstance(self._data, FileView)
                                           and not self._data.still_known()):
            return None
        return records, (self._index.records["macro"][picked] != 0).tolist()


def _last_of(index: LineIndex, positions: np.ndarray, wanted: tuple[int, ...]) -> int | None:
    """The position of the session's newest line of a `wanted` kind, looked for from the end."""
    kinds = index.kinds
    step = 256
    end = len(positions)
    while end > 0:
        start = max(0, end - step)
        found = np.flatnonzero(kinds_among(kinds[positions[start:end]], wanted))
        if len(found):
            return start + int(found[-1])
        end, step = start, step * 4
    return None


_MESSAGE_ROLES = {USER: "user", ASSISTANT: "assistant"}
_COUNTED_KINDS = (USER, ASSISTANT, NOTE)


def _token_counts(lines: list[dict[str, Any]], records: np.ndarray) -> dict[str, int]:
    """The index's token counts of the usable messages among `lines`, which are the lines of
    `records` (a last line missing its newline may follow them); nothing when they do not
    line up."""
    if len(lines) < len(records):
        return {}
    counts = {}
    # Only the sendable messages and notes are walked: an old session's stretch holds
    # thousands of summary lines (decisions/summary-seed.md).
    picked = np.flatnonzero((records["usable"] != 0) & kinds_among(records["kind"], _COUNTED_KINDS))
    kinds, tokens = records["kind"][picked].tolist(), records["tokens"][picked].tolist()
    for number, kind, count in zip(picked.tolist(), kinds, tokens):
        line = lines[number]
        # A summary line has no role and no count (it is rendered through its template each
        # turn): matched as a message, its 0 was kept for every message saying the same words,
        # which then cost the prompt nothing and a request went over its window.
        if (kind in _MESSAGE_ROLES and line.get("role") == _MESSAGE_ROLES[kind]) \
                or (kind == NOTE and line.get("type") == "note"):
            counts[line["content"]] = count
    return counts


def _recent_first(index: LineIndex, positions: np.ndarray, *, usable: int | None,
                  tokens: int | None, overhead: int, spared: int = 0) -> int:
    """The position of the oldest line a read of the newest lines needs: the lines are looked
    at from the newest back, a stretch at a time, so a long session costs no more than a short."""
    usable_column = index.records["usable"]
    tokens_column = index.records["tokens"]
    if usable is not None and usable <= 0:  # no line wanted: as many as there are
        found = np.flatnonzero(usable_column[positions])
        return int(found[0]) if len(found) else 0
    wanted = usable
    room = (tokens or 0) if usable is None else 0
    spent = 0
    taken = 0
    end = len(positions)
    step = 512
    while end > 0:
        start = max(0, end - step)
        picked = positions[start:end]
        usable_at = np.flatnonzero(usable_column[picked])
        if wanted is not None:
            if taken + len(usable_at) >= wanted:
                return start + int(usable_at[len(usable_at) - (wanted - taken)])
            taken += len(usable_at)
        else:
            costs = tokens_column[picked[usable_at]].astype(np.int64) + overhead
            if spared > 0:
                costs[max(len(costs) - spared, 0):] = 0
                spared -= min(spared, len(costs))
            over = np.flatnonzero(spent + np.cumsum(costs[::-1]) > room)
            if len(over):
                return start + int(usable_at[len(usable_at) - 1 - int(over[0])])
            spent += int(costs.sum())
        end, step = start, step * 4
    return 0


def _stretch_read(path: Path, data: bytes, index: LineIndex, positions: np.ndarray, first: int,
                  end: int, *, whole_end: bool, generation: int | None = None) -> SessionRead:
    """The session's lines at positions [first, end) as a SessionRead (the unfinished last line
    and a last line missing its newline added when the stretch reaches the end). `generation`:
    the lines parsed are kept and shared with the next such read of the file while it is known
    under it (a turn's stretch: the caller must not change them)."""
    total = len(positions)
    records, problems = _stretch_parse_kept(path, data, index, positions, first, end,
                                            generation)
    if len(records) != end - first:  # the index disagrees with the file: never trust it
        return read_session_file(path)
    tail: list[dict[str, Any]] = []
    partial = unfinished_take(path, data[index.covered:], len(index.records) + 1, tail, problems)
    if not total and tail and tail[0].get("type") == "metadata":
        metadata = tail.pop(0)  # a session of one line, missing its newline
    else:
        metadata = _metadata_at(path, data, index, problems)
    depth_after = 0
    if whole_end or end >= total:
        records.extend(tail)
    else:
        after = positions[end:]
        depth_after = int((index.records["usable"][after].astype(bool)
                           & (index.kinds[after] != SUMMARY)).sum()) + sum(
            1 for line in tail if line_prompt_usable(line) and line.get("type") != "summary")
    last_at = _last_of(index, positions, MESSAGE_KINDS)
    last_message = (total if tail and tail[-1].get("role") in ("user", "assistant")
                    else last_at)
    return SessionRead(path=path, metadata=metadata, lines=records, problems=problems,
                       partial=partial, size_bytes=len(data),
                       turn_max=max(index.turn_max(), records_turn_max(tail)),
                       complete=first == 0 and end >= total, first_index=first,
                       last_message_index=last_message, depth_after=depth_after,
                       line_kinds=index.kinds[positions] if not tail else None)


_STRETCH_FILES = 8
# Per file: the generation, the position of the first line kept and the lines parsed from it.
_stretches: OrderedDict[str, tuple[int, int, list[dict[str, Any]]]] = OrderedDict()
_stretches_lock = threading.Lock()


def _stretch_parse_kept(path: Path, data: bytes, index: LineIndex, positions: np.ndarray,
                        first: int, end: int, generation: int | None
                        ) -> tuple[list[dict[str, Any]], list[LineProblem]]:
    """_stretch_parse of the lines at positions [first, end), the ones the last such read of
    this file parsed reused while it is known under `generation` (their bytes are the same),
    so a turn parses only the lines appended since the last one."""
    if generation is None:
        return _stretch_parse(path, data, index, positions[first:end])
    key = os.path.abspath(path)
    with _stretches_lock:
        held = _stretches.get(key)
    kept_first, kept = (held[1], held[2]) if held is not None and held[0] == generation \
        and held[1] <= first <= held[1] + len(held[2]) else (first, [])
    kept_end = min(kept_first + len(kept), end)
    added, problems = _stretch_parse(path, data, index, positions[kept_end:end])
    records = kept[first - kept_first:kept_end - kept_first] + added
    if len(added) == end - kept_end:
        with _stretches_lock:
            _stretches[key] = (generation, first, records)
            _stretches.move_to_end(key)
            while len(_stretches) > _STRETCH_FILES:
                _stretches.popitem(last=False)
    return list(records), problems


def _stretch_parse(path: Path, data: bytes, index: LineIndex, picked: np.ndarray
                   ) -> tuple[list[dict[str, Any]], list[LineProblem]]:
    """The lines at record numbers `picked` (one run of the file), and every bad line of the
    whole file reported (in order), as a whole read reports them."""
    records: list[dict[str, Any]] = []
    if len(picked):
        start, _ = index.span(int(picked[0]))
        _, stop = index.span(int(picked[-1]))
        records = _lines_parse_checked(index, int(picked[0]), int(picked[-1]), data[start:stop])
        if records is None:
            records, _ = lines_parse(data[start:stop], path, int(picked[0]) + 1,
                                      session_line_problem)
    problems = []
    for record in np.flatnonzero(index.records["kind"] == BAD):
        start, stop = index.span(int(record))
        _, reason = line_parse(data[start:stop - 1], session_line_problem)
        problems.append(LineProblem(str(path), int(record) + 1, reason or "unreadable line"))
    return records, problems


def _lines_parse_checked(index: LineIndex, first: int, last: int,
                         stretch: bytes) -> list[dict[str, Any]] | None:
    """The lines of records first..last in one parse, when the index (checked against these
    very bytes) found each of them a usable JSON object: each line is then a whole JSON value,
    so joined by commas they are an array of exactly those objects. None: parse line by line."""
    kinds = index.records["kind"][first:last + 1]
    if np.isin(kinds, (BLANK, BAD)).any():
        return None
    try:
        records = json_loads(b"[" + stretch[:-1].replace(b"\n", b",") + b"]")
    except (ValueError, UnicodeDecodeError):
        return None  # a line json reads alone but not inside an array (a byte-order mark)
    return records if len(records) == len(kinds) else None


def _metadata_at(path: Path, data: bytes, index: LineIndex,
                 problems: list[LineProblem]) -> dict[str, Any]:
    # The metadata line is the first readable one: looked for among the first lines first.
    found = np.flatnonzero(index.kinds[:64] == METADATA)
    if not len(found):
        found = np.flatnonzero(index.kinds == METADATA)
    if len(found):
        start, stop = index.span(int(found[0]))
        record, _ = line_parse(data[start:stop - 1])
        return record or {}
    problems.append(LineProblem(str(path), 1, "first line is not the metadata line"))
    return {}
