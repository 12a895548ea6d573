"""A session file read whole (or its newest lines): SessionRead, what every reader of a session
gets — the metadata, the whole lines, the lines that could not be read, the unfinished reply."""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from personalab.lib.filestore.jsonl import LineProblem, file_bytes, lines_parse, tail_decode
from personalab.lib.filestore.writer import parse_partial_line
from personalab.lib.jsontext import json_loads
from personalab.lib.lines import session_line_problem


@dataclass
class SessionRead:
    """A session file as read: its whole lines, the lines that could not be read, and an
    unfinished assistant line (a reply still streaming, or cut by a crash)."""

    path: Path
    metadata: dict[str, Any]
    lines: list[dict[str, Any]]
    problems: list[LineProblem] = field(default_factory=list)
    partial: dict[str, Any] | None = None
    size_bytes: int = 0
    # The highest message turn, worked out while reading (None: count it from `lines`).
    turn_max: int | None = None
    # False for a tail read (read_session_tail): `lines` holds only the newest lines.
    complete: bool = True
    # A stretch read (read_session_stretch): the position of lines[0] among all the lines, and
    # of the session's last user or assistant line (None: work it out from `lines`).
    first_index: int = 0
    last_message_index: int | None = None
    # A stretch that ends before the session does: how many lines a prompt may send, summaries
    # aside, come after it (a message's depth counts them: regex scripts' min / max depth).
    depth_after: int = 0
    # read_session_recent: what the lines before the stretch hold (None: nothing left out).
    lines_before: LinesBefore | None = None
    # read_session_recent: the tokens of the messages read, by text, as the line index counted
    # them (a prompt then need not count them again).
    token_counts: dict[str, int] = field(default_factory=dict)
    # A stretch read: the line index's kind (line_index.USER, ...) of each of the session's lines.
    line_kinds: np.ndarray | None = None
    # read_session_recent: the lines before the stretch, parsed when asked for (a
    # session_stretch.LinesSource: a group's prompt weighs them as each speaker reads them).
    before_source: Any = None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("role") in ("user", "assistant")]

    @property
    def messages_shown_to_model(self) -> list[dict[str, Any]]:
        """The messages without those the player hid (`hidden`: SillyTavern's ghosted ones)."""
        return [line for line in self.messages if not line.get("hidden")]

    @property
    def summaries(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("type") == "summary"]

    @property
    def last_turn(self) -> int:
        turn = self.turn_max if self.turn_max is not None else records_turn_max(self.lines)
        if self.partial and isinstance(self.partial.get("turn"), int):
            turn = max(turn, self.partial["turn"])
        return turn


def records_turn_max(records: list[dict[str, Any]]) -> int:
    turns = [r["turn"] for r in records
             if r.get("role") in ("user", "assistant") and isinstance(r.get("turn"), int)]
    return max(turns, default=0)




@dataclass
class LinesBefore:
    """What a prompt needs of the lines before a stretch, without parsing them: how many it
    could send, what the messages among them weigh, and the summaries (rendered each turn)."""

    usable: int
    messages: int
    message_tokens: int  # the messages' contents only, no per-message overhead
    summaries: Sequence[dict[str, Any]]  # read, never changed (lines_before.HeldLines)
    # The messages among them whose text may hold a macro (its bytes hold "{{", "<" or an
    # escape of either), parsed: what such a message costs once sent depends on the macros.
    macro_messages: list[dict[str, Any]] = field(default_factory=list)
    # Its lines a SillyTavern chat holds (messages, notes, summaries; hidden ones too):
    # where {{lastMessageId}} counts from.
    chat_messages: int = 0




@dataclass(frozen=True)
class ParsedLines:
    """The whole lines of a file's first `size` bytes as parsed, with those bytes' CRC-32 and
    the generation under which this process knows them (personalab/lib/file_trust.py; None:
    not known, a reader compares the CRC)."""

    size: int
    crc: int
    line_count: int
    records: list[dict[str, Any]]
    problems: list[LineProblem]
    turn_max: int
    generation: int | None = None


def parsed_extend(parsed: ParsedLines | None, data: bytes, path: Path, *,
                  generation: int | None = None) -> ParsedLines:
    """The whole lines of `data`, reusing `parsed` when `data` starts with its very bytes."""
    cut = data.rfind(b"\n") + 1
    if (parsed is None or parsed.size > cut
            or zlib.crc32(memoryview(data)[:parsed.size]) != parsed.crc):
        records, problems = lines_parse(data[:cut], path, 1, session_line_problem)
        return ParsedLines(cut, zlib.crc32(memoryview(data)[:cut]),
                           data.count(b"\n", 0, cut), records, problems,
                           records_turn_max(records), generation)
    return parsed_extend_tail(parsed, data[parsed.size:], path, generation=generation)


def parsed_extend_tail(parsed: ParsedLines, tail: bytes, path: Path, *,
                       generation: int | None) -> ParsedLines:
    """`parsed` and the whole lines of `tail`, the bytes that follow its lines in the file."""
    cut = tail.rfind(b"\n") + 1
    if not cut:
        return parsed if parsed.generation == generation else ParsedLines(
            parsed.size, parsed.crc, parsed.line_count, parsed.records, parsed.problems,
            parsed.turn_max, generation)
    added = tail[:cut]
    records, problems = lines_parse(added, path, parsed.line_count + 1, session_line_problem)
    return ParsedLines(parsed.size + cut, zlib.crc32(added, parsed.crc),
                       parsed.line_count + added.count(b"\n"), parsed.records + records,
                       parsed.problems + problems,
                       max(parsed.turn_max, records_turn_max(records)), generation)


def unfinished_take(path: Path, tail_bytes: bytes, line_number: int,
                     records: list[dict[str, Any]], problems: list[LineProblem]
                     ) -> dict[str, Any] | None:
    """The line without its newline: a reply streaming (returned as the partial), a whole
    line missing only its newline (added to `records`), or an unfinished one (a problem)."""
    tail = tail_decode(tail_bytes)
    if not tail.strip():
        return None
    partial = parse_partial_line(tail)
    if partial is None:
        try:
            record = json_loads(tail)
            reason = session_line_problem(record) if isinstance(record, dict) else None
            if reason:
                problems.append(LineProblem(str(path), line_number, reason))
            elif isinstance(record, dict):
                records.append(record)
        except json.JSONDecodeError:
            problems.append(LineProblem(str(path), line_number, "unfinished line"))
    return partial


def session_from_parsed(path: Path, rest: bytes, size: int, parsed: ParsedLines) -> SessionRead:
    """`rest`: the file's bytes after the parsed lines (an unfinished line); `size`: the file's."""
    records, problems = list(parsed.records), list(parsed.problems)
    whole = len(records)
    partial = unfinished_take(path, rest, parsed.line_count + 1, records, problems)
    turn_max = max(parsed.turn_max, records_turn_max(records[whole:]))
    metadata: dict[str, Any] = {}
    if records and records[0].get("type") == "metadata":
        metadata = records.pop(0)
    else:
        problems.append(LineProblem(str(path), 1, "first line is not the metadata line"))
    return SessionRead(path=path, metadata=metadata, lines=records, problems=problems,
                       partial=partial, size_bytes=size, turn_max=turn_max)


def read_session_file(path: Path) -> SessionRead:
    return read_session_bytes(path, file_bytes(path))


def read_session_bytes(path: Path, data: bytes) -> SessionRead:
    """`data` read as the session file at `path` (an earlier state of it, say)."""
    parsed = parsed_extend(None, data, path)
    return session_from_parsed(path, data[parsed.size:], len(data), parsed)


def read_session_tail(path: Path, *, messages: int) -> SessionRead:
    """The metadata line, the newest whole lines back to the `messages`-th newest user or
    assistant line, and the unfinished last line; nothing older is parsed, so the cost does
    not grow with the session. Bad lines in that stretch are reported and skipped exactly as
    read_session_file does (same line numbers); `complete` is False when older lines were left."""
    data = file_bytes(path)
    cut = data.rfind(b"\n") + 1
    head_end = data.find(b"\n") + 1
    line_count = data.count(b"\n", 0, cut)
    picked: list[dict[str, Any]] = []
    problems: list[LineProblem] = []
    found = 0
    end = cut
    number = line_count
    # Walk back line by line from the last whole one, stopping above the metadata line.
    while end > head_end and found < messages:
        start = data.rfind(b"\n", 0, end - 1) + 1
        records, bad = lines_parse(data[start:end], path, number, session_line_problem)
        picked.extend(records)
        problems.extend(bad)
        found += sum(1 for record in records if record.get("role") in ("user", "assistant"))
        end, number = start, number - 1
    picked.reverse()
    problems.reverse()
    head_records, head_problems = lines_parse(data[:head_end], path, 1, session_line_problem)
    partial = unfinished_take(path, data[cut:], line_count + 1, picked, problems)
    metadata: dict[str, Any] = {}
    if head_records and head_records[0].get("type") == "metadata":
        metadata = head_records[0]
    else:
        picked[:0] = head_records
        problems[:0] = [*head_problems,
                        LineProblem(str(path), 1, "first line is not the metadata line")]
    return SessionRead(path=path, metadata=metadata, lines=picked, problems=problems,
                       partial=partial, size_bytes=len(data), turn_max=records_turn_max(picked),
                       complete=end <= head_end)
