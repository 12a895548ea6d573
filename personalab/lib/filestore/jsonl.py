"""JSONL files line by line: whole lines appended or nothing, lines parsed with bad ones reported
(file and line number) and skipped, never rewritten; reads from a byte offset on."""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from personalab.lib.file_trust import AppendWatch
from personalab.lib.jsontext import json_lines_at_once, json_loads_for
from personalab.lib.lines import line_parse
from personalab.lib.store_errors import MissingFile


@dataclass
class LineProblem:
    path: str
    line_number: int
    reason: str

    def describe(self) -> str:
        return f"{self.path}:{self.line_number}: {self.reason} (line skipped, left in the file)"



def line_dump(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def append_whole(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Append whole lines or nothing: a torn write (disk full) is cut back off. A file this
    process knows (personalab/lib/file_trust.py) stays known."""
    with path.open("ab") as handle:
        size = handle.seek(0, os.SEEK_END)
        watch = AppendWatch(path, handle)
        watch.before()
        try:
            handle.write(data)
            handle.flush()
            watch.after()
            if durable:
                os.fsync(handle.fileno())
        except OSError:
            watch.lose()
            with contextlib.suppress(OSError):
                os.ftruncate(handle.fileno(), size)
            raise
        finally:
            watch.done()


def tail_decode(data: bytes) -> str:
    """A torn write can cut a character in half: drop the unfinished character, keep the rest."""
    return codecs.getincrementaldecoder("utf-8")(errors="replace").decode(data, final=False)


def lines_parse(data: bytes, path: Path, first_number: int,
                 check: Callable[[dict[str, Any]], str | None] | None = None
                 ) -> tuple[list[dict[str, Any]], list[LineProblem]]:
    """Parse whole lines (`data` ends at a newline); bad lines (and those `check` objects to)
    are reported and skipped."""
    records: list[dict[str, Any]] = []
    problems: list[LineProblem] = []
    loads = json_loads_for(data)
    whole = _lines_parse_at_once(data, path, first_number, check, loads)
    if whole is not None:
        return whole
    for number, raw in enumerate(data.split(b"\n")[:-1], start=first_number):
        record, reason = line_parse(raw, check, loads=loads)
        if record is not None:
            records.append(record)
        elif reason is not None:
            problems.append(LineProblem(str(path), number, reason))
    return records, problems


def _lines_parse_at_once(data: bytes, path: Path, first_number: int,
                         check: Callable[[dict[str, Any]], str | None] | None,
                         loads: Callable[[bytes], Any]
                         ) -> tuple[list[dict[str, Any]], list[LineProblem]] | None:
    """lines_parse's answer from one parse of the whole block (json_lines_at_once); None when
    its lines must be parsed one by one."""
    parsed = json_lines_at_once(data, loads)
    if parsed is None or check is None:
        return None if parsed is None else (parsed, [])
    records: list[dict[str, Any]] = []
    problems: list[LineProblem] = []
    for number, record in enumerate(parsed, start=first_number):
        if reason := check(record):
            problems.append(LineProblem(str(path), number, reason))
        else:
            records.append(record)
    return records, problems


def file_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise MissingFile(path, path.name) from None


def line_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


@dataclass(frozen=True)
class LinesSince:
    """The whole lines after a byte offset: `end` is the offset after the last of them and
    `tail_hash`/`tail_length` describe the whole line that ends at `end`."""

    records: list[dict[str, Any]]
    end: int
    tail_hash: str
    tail_length: int
    tail_hash_before: str  # of the `back` bytes before the offset


def jsonl_lines_since(path: Path, offset: int, *, back: int = 0,
                      check: Callable[[dict[str, Any]], str | None] | None = None) -> LinesSince:
    """Parse the whole lines of a JSONL file from byte `offset` on (an unfinished last line is
    left for later); bad lines are skipped as in every read. `back` bytes before the offset
    are read too and hashed, so the caller can tell whether the line it stopped at is still
    there."""
    back = min(back, offset)
    with path.open("rb") as handle:
        handle.seek(offset - back)
        data = handle.read()
    before = data[:back]
    cut = data.rfind(b"\n") + 1
    if cut <= back:
        return LinesSince([], offset, line_hash(before), back, line_hash(before))
    records, _ = lines_parse(data[back:cut], path, 1, check)
    start = data.rfind(b"\n", 0, cut - 1) + 1
    return LinesSince(records, offset - back + cut, line_hash(data[start:cut]), cut - start,
                      line_hash(before))


def read_jsonl_records(path: Path) -> tuple[list[dict[str, Any]], list[LineProblem], str]:
    """Whole lines parsed, bad lines reported and skipped, and the unterminated tail."""
    data = file_bytes(path)
    cut = data.rfind(b"\n") + 1
    records, problems = lines_parse(data[:cut], path, 1)
    return records, problems, tail_decode(data[cut:])
