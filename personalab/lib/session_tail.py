"""Changing the last lines of a session file without rewriting the rest of it.

Regenerate, continue, a swipe, an edit or a delete near the end of a long session used to copy
the whole file into a backup and write it again (4 MB at 10,000 messages). A tail change
touches only the bytes from the first changed line on:

1. the old tail is written, with a header (where it starts, a CRC-32 of the file before it, and
   the length and CRC-32 of the new tail), to a journal beside the file (`.{name}.tail`),
   fsynced;
2. the new tail is written over the old one in place, the file cut to its end, fsynced;
3. the journal is renamed into `history/`, where it is the backup of the change.

A kill -9 anywhere leaves the old state or the new one once `tail_recover` has run (the next
change, turn or repair under the instance lock calls it first): a journal still beside the file
means step 3 did not happen; a file that holds the whole new tail keeps it (the journal moves
on as the backup), anything else gets its old tail back. A backup holds only the lines it
replaced: `states_back` rebuilds each earlier whole file from the newest state backwards, each
backup checked by the CRC of the file before its tail, so a replay of an old trace still finds
exactly what was sent. Framework-free.
"""

from __future__ import annotations

import contextlib
import json
import os
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from personalab.lib.atomic import fsync_dir, write_bytes_atomic
from personalab.lib.file_trust import RewriteWatch

HEADER_TYPE = "tail_backup"


def journal_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.tail")


def file_fingerprint(data: bytes, *, prefix_size: int = 0, prefix_crc: int = 0) -> str:
    """Which bytes a file held, cheaply (an undo checks that nothing changed since). `data`
    may be only the file's end, after `prefix_size` bytes whose CRC-32 is `prefix_crc`."""
    return f"crc32:{prefix_size + len(data)}:{zlib.crc32(data, prefix_crc)}"


@dataclass(frozen=True)
class TailBackup:
    """A backup's header: the file it came from was `size_before` bytes, the old tail (the
    backup's body) started at `offset` after bytes whose CRC-32 is `prefix_crc`, and the change
    put `new_size` bytes of CRC-32 `new_crc` there instead."""

    offset: int
    size_before: int
    prefix_crc: int
    new_size: int
    new_crc: int
    extra: dict[str, Any]

    def header(self) -> bytes:
        fields = {"type": HEADER_TYPE, **self.extra, "offset": self.offset,
                  "size_before": self.size_before, "prefix_crc": self.prefix_crc,
                  "new_size": self.new_size, "new_crc": self.new_crc}
        return json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def backup_parse(data: bytes) -> tuple[TailBackup, bytes] | None:
    """(header, old tail) of a tail backup; None for anything else (an older backup that is a
    whole copy of the file)."""
    cut = data.find(b"\n") + 1
    try:
        head = json.loads(data[:cut]) if cut else None
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(head, dict) or head.get("type") != HEADER_TYPE:
        return None
    try:
        numbers = {key: int(head.pop(key)) for key in
                   ("offset", "size_before", "prefix_crc", "new_size", "new_crc")}
    except (KeyError, TypeError, ValueError):
        return None
    head.pop("type")
    return TailBackup(**numbers, extra=head), data[cut:]


def tail_replace(path: Path, data: bytes, *, offset: int, new: bytes, backup: Path,
                 extra: dict[str, Any], prefix_crc: int | None = None) -> TailBackup:
    """Replace `data[offset:]` (`data`: the file's bytes now, read under the instance lock)
    with `new`; the old tail ends up in `backup`. `prefix_crc`: the CRC-32 of data[:offset]
    when the caller knows it (the line index does). Steps and crash rules in the module's doc."""
    if prefix_crc is None:
        prefix_crc = zlib.crc32(memoryview(data)[:offset])
    record = TailBackup(offset=offset, size_before=len(data), prefix_crc=prefix_crc,
                        new_size=len(new), new_crc=zlib.crc32(new), extra=extra)
    journal = journal_path(path)
    write_bytes_atomic(journal, record.header() + data[offset:])
    try:
        _tail_write(path, offset, new)
    except OSError:  # a full disk: the old tail back now, not at the next repair
        with contextlib.suppress(OSError):
            tail_recover(path, backup)
        raise
    _journal_keep(journal, backup)
    return record


def _journal_keep(journal: Path, backup: Path) -> None:
    """The journal becomes the change's backup; its leaving the session's folder is durable
    before anything is appended to the session."""
    backup.parent.mkdir(parents=True, exist_ok=True)
    os.replace(journal, backup)
    fsync_dir(journal.parent)


def _tail_write(path: Path, offset: int, tail: bytes) -> None:
    """The file stays known to this process (file_trust) when it was: it wrote these bytes."""
    with open(path, "r+b") as handle:
        watch = RewriteWatch(path, handle)
        watch.before()
        try:
            handle.seek(offset)
            handle.write(tail)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
        except BaseException:
            watch.lose()
            raise
        watch.after()
        watch.done()


def tail_recover(path: Path, backup: Path) -> str | None:
    """Finish a tail change a crash interrupted (the caller holds the instance lock): "kept"
    when the new tail was whole (the journal becomes `backup`), "restored" when the old tail
    was put back. A journal that matches neither (the file was changed by hand since) is kept
    as `backup` and the file left alone: "unmatched". None: nothing to recover."""
    journal = journal_path(path)
    try:
        raw = journal.read_bytes()
    except FileNotFoundError:
        return None
    parsed = backup_parse(raw)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    outcome = "unmatched"
    if parsed is not None:
        record, old = parsed
        if (len(data) == record.offset + record.new_size
                and zlib.crc32(memoryview(data)[record.offset:]) == record.new_crc):
            outcome = "kept"
        elif (len(data) >= record.offset
              and zlib.crc32(memoryview(data)[:record.offset]) == record.prefix_crc):
            _tail_write(path, record.offset, old)
            journal.unlink()
            fsync_dir(path.parent)
            return "restored"
    _journal_keep(journal, backup)
    return outcome


def states_back(data: bytes, backups: Iterable[tuple[str, bytes]]
                ) -> Iterator[tuple[str, bytes]]:
    """The file's earlier whole states, newest first, from its bytes now and its backups
    (name, bytes; newest first): a whole copy is a state itself; a tail backup gives the state
    before its change from the state after it, when the bytes before its tail are still the
    ones it was taken from (the CRC). A tail backup that does not fit ends the walk."""
    state = data
    for name, raw in backups:
        parsed = backup_parse(raw)
        if parsed is None:
            state = raw
        else:
            record, old = parsed
            if (len(state) < record.offset
                    or zlib.crc32(memoryview(state)[:record.offset]) != record.prefix_crc):
                return
            state = state[:record.offset] + old
        yield name, state
