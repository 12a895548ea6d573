"""What a prompt needs of the session lines before a turn's stretch (LinesBefore), tallied through
the line index and kept from turn to turn: the stretch begins a little later each turn, so only
the lines it left behind since are tallied and their summary lines parsed. An old session opening
with tens of thousands of summary lines (decisions/summary-seed.md) would otherwise have them all
gathered every turn."""

from __future__ import annotations

import itertools
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

import numpy as np

from personalab.lib.filestore.session_read import LinesBefore
from personalab.lib.line_index import (
    ASSISTANT,
    NOTE,
    SUMMARY,
    USER,
    LineIndex,
    kinds_among,
)
from personalab.lib.lines import line_parse, session_line_problem

CHAT_KINDS = (USER, ASSISTANT, SUMMARY, NOTE)  # the lines a SillyTavern export writes


class HeldLines(Sequence[dict[str, Any]]):
    """The first `length` lines of a list that is only ever appended to: the next turn's read,
    which holds these and a few more, appends them to the same list instead of copying it."""

    def __init__(self, lines: list[dict[str, Any]], length: int) -> None:
        self._lines, self._length = lines, length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, key: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, key: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, key: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(key, slice):
            return self._lines[:self._length][key]
        if not -self._length <= key < self._length:
            raise IndexError("line index out of range")
        return self._lines[key % self._length]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return itertools.islice(self._lines, self._length)

    def __reversed__(self) -> Iterator[dict[str, Any]]:
        # Lazily, from the newest: a prompt renders only the newest few of thousands.
        return map(self._lines.__getitem__, range(self._length - 1, -1, -1))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return f"HeldLines({list(self)!r})"


@dataclass(frozen=True)
class _Held:
    generation: int
    first: int  # the stretch's first position: the tally is of the lines before it
    before: LinesBefore
    summaries: list[dict[str, Any]]  # before.summaries's list, appended to by later reads
    # The line index's (end, crc) of the line before `first`: its crc covers every byte
    # before it, so the tally stands in a file rewritten past it (a regenerate's tail change).
    edge: tuple[int, int] = (0, 0)


_HELD_FILES = 8
_held: OrderedDict[str, _Held] = OrderedDict()
_held_lock = threading.Lock()


def lines_before_read(path: Path, data: bytes, index: LineIndex, positions: np.ndarray,
                      first: int, generation: int | None) -> LinesBefore:
    """The LinesBefore of the lines at positions [0, first). The last such read of the file is
    carried on when it stopped at or before `first` and the lines it tallied are the file's
    still: it is known under the same `generation` (personalab/lib/file_trust.py: its bytes
    were only appended to since), or the index's checksum up to its edge is the same (the file
    was rewritten only after it: a regenerate's or an edit's tail change, another's append)."""
    key = os.path.abspath(path)
    with _held_lock:
        held = _held.get(key)
    if held is None or held.first > first or not (
            generation is not None and held.generation == generation
            or _edge(index, positions, held.first) == held.edge):
        held = _Held(generation or 0, 0, LinesBefore(0, 0, 0, HeldLines([], 0)), [])
    added_summaries: list[dict[str, Any]] = []
    added = _tallied(data, index, positions[held.first:first], added_summaries)
    length = len(held.before.summaries)
    with _held_lock:
        summaries = held.summaries
        if len(summaries) == length:
            summaries.extend(added_summaries)
        else:  # another read carried the same one on already: this one goes on from a copy
            summaries = [*summaries[:length], *added_summaries]
    before = LinesBefore(
        usable=held.before.usable + added.usable, messages=held.before.messages + added.messages,
        message_tokens=held.before.message_tokens + added.message_tokens,
        summaries=HeldLines(summaries, length + len(added_summaries)),
        macro_messages=[*held.before.macro_messages, *added.macro_messages],
        chat_messages=held.before.chat_messages + added.chat_messages)
    if generation is not None:
        with _held_lock:
            _held[key] = _Held(generation, first, before, summaries,
                               _edge(index, positions, first))
            _held.move_to_end(key)
            while len(_held) > _HELD_FILES:
                _held.popitem(last=False)
    return before


def _edge(index: LineIndex, positions: np.ndarray, first: int) -> tuple[int, int]:
    """The index's (end, cumulative crc) of the line before position `first`."""
    if not 0 < first <= len(positions):
        return (0, 0)
    record = index.records[positions[first - 1]]
    return int(record["end"]), int(record["crc"])


def _tallied(data: bytes, index: LineIndex, older: np.ndarray,
             summaries: list[dict[str, Any]]) -> LinesBefore:
    """The LinesBefore of the lines at record numbers `older`, their summary lines that parse
    appended to `summaries` (its `summaries` field left empty)."""
    kinds = index.kinds[older]
    usable_older = index.records["usable"][older].astype(bool)
    # A sendable narrator note weighs what a message does.
    is_message = usable_older & (kinds != SUMMARY)
    message_numbers = older[is_message]
    for number in older[usable_older & (kinds == SUMMARY)].tolist():
        line = _line_at(data, index, number)
        if line is not None:
            summaries.append(line)
    return LinesBefore(usable=int(np.count_nonzero(usable_older)),
                       messages=len(message_numbers),
                       message_tokens=int(index.records["tokens"][message_numbers].sum(
                           dtype=np.int64)),
                       summaries=[],
                       macro_messages=_macro_messages(data, index, message_numbers),
                       chat_messages=int(np.count_nonzero(kinds_among(kinds, CHAT_KINDS))))


def _macro_messages(data: bytes, index: LineIndex, numbers: np.ndarray) -> list[dict[str, Any]]:
    """The lines at record `numbers` whose bytes may hold a macro (the index's flag), parsed."""
    flagged = numbers[index.records["macro"][numbers] != 0]
    lines = [_line_at(data, index, int(number)) for number in flagged]
    return [line for line in lines if line is not None]


def _line_at(data: bytes, index: LineIndex, number: int) -> dict[str, Any] | None:
    start, stop = index.span(number)
    return line_parse(data[start:stop - 1], session_line_problem)[0]
