"""The session half of FileStore: create, read, append, rewrite a tail (journaled), archive and
repair session files, and open the streaming reply line. Mixed into FileStore (store.py),
whose paths, module settings and instance lock it uses."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from personalab.lib.atomic import write_bytes_atomic
from personalab.lib.file_trust import file_known
from personalab.lib.filestore.cache import SESSION_CACHE
from personalab.lib.filestore.defaults import DEFAULT_MODULES
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.jsonl import append_whole, file_bytes, line_dump, tail_decode
from personalab.lib.filestore.kept_tally import kept_tally_drop
from personalab.lib.filestore.session_read import SessionRead, read_session_file, read_session_tail
from personalab.lib.filestore.session_stretch import (
    no_lines,
    read_session_picked,
    read_session_recent,
    read_session_stretch,
    session_indexed,
)
from personalab.lib.filestore.variables import session_variables_carry, session_variables_path
from personalab.lib.filestore.writer import AssistantLineWriter, parse_partial_line
from personalab.lib.ids import is_valid_id, next_numbered_id
from personalab.lib.line_index import (
    BAD,
    BLANK,
    LineIndex,
    Unindexable,
    index_path,
    line_index_cut,
    line_index_hold,
    line_index_read,
)
from personalab.lib.locks import held_lock
from personalab.lib.session_tail import file_fingerprint, journal_path, tail_recover, tail_replace
from personalab.lib.store_errors import InstanceBusy, MissingFile, StoreError


@dataclass(frozen=True)
class TailChange:
    """A session tail change: its backup, where the bytes after the lines (`then`) start,
    and the file's fingerprint after it (session_tail.file_fingerprint)."""

    backup: Path
    then_start: int
    fingerprint: str


class SessionFiles:
    """FileStore's session methods (FileStore mixes this in): they use its session_path,
    sessions_dir, module_read and instance_lock."""

    def session_ids(self, instance_id: str) -> list[str]:
        folder = self.sessions_dir(instance_id)
        if not folder.is_dir():
            return []
        return sorted(p.stem for p in folder.glob("*.jsonl") if is_valid_id(p.stem))

    def session_next_id(self, instance_id: str) -> str:
        taken = set(self.session_ids(instance_id))
        archive = self.sessions_dir(instance_id) / "archive"
        if archive.is_dir():
            taken |= {p.name.split(".")[0] for p in archive.glob("*.jsonl")}
        return next_numbered_id("sess", taken)

    def session_create(self, instance_id: str, session_id: str, *,
                       continued_from: str | None = None,
                       lines: list[dict[str, Any]] | None = None,
                       created_at: str | None = None,
                       branched_from: dict[str, Any] | None = None,
                       imported: dict[str, Any] | None = None) -> dict[str, Any]:
        path = self.session_path(instance_id, session_id)
        if path.exists():
            raise StoreError(f"session {session_id} already exists in {instance_id}")
        metadata = {"type": "metadata", "instance_id": instance_id, "session_id": session_id,
                    "created_at": created_at or utc_now(), "continued_from": continued_from}
        if branched_from:
            metadata["branched_from"] = branched_from
        if imported:
            # The chat's own header, written back when the session is exported.
            metadata["imported"] = imported
        body = "".join(line_dump(line) + "\n" for line in [metadata, *(lines or [])])
        path.parent.mkdir(parents=True, exist_ok=True)
        # Before the session file: a kill between the two never leaves it without them.
        session_variables_carry(self, instance_id=instance_id, session_id=session_id,
                                source_id=continued_from or (branched_from or {}).get("session_id"))
        _session_write(path, body.encode("utf-8"))
        return metadata

    def session_read(self, instance_id: str, session_id: str, *,
                     cached: bool = False, newest: int | None = None,
                     shown: int | None = None, before: int | None = None,
                     usable: int | None = None, tokens: int | None = None,
                     overhead: int = 0, spared: int = 0,
                     pick: Callable[[np.ndarray], tuple[int, int]] | None = None
                     ) -> SessionRead:
        """The session as it is in the file now. `cached` parses only what was appended since
        the last cached read of this file (a rewrite is noticed and parsed again in full);
        its lines are shared with the cache, so the caller must not change them. `newest`
        parses only the newest lines holding that many messages (read_session_tail); `shown`
        only the stretch a chat page of that many lines before `before` needs
        (read_session_stretch); `usable` only the newest lines a prompt of that many messages
        needs, `tokens` those a prompt of that many tokens needs (the newest `spared` messages
        not counted), the older ones tallied (read_session_recent: its lines too may be shared
        with the next such read); `pick`
        the lines it picks from the kinds of all of them (read_session_picked)."""
        path = self.session_path(instance_id, session_id)
        if pick is not None:
            return read_session_picked(path, pick=pick)
        if shown is not None:
            return read_session_stretch(path, shown=shown, before=before)
        if usable is not None or tokens is not None:
            return read_session_recent(path, usable=usable, tokens=tokens, overhead=overhead,
                                       spared=spared)
        if newest is not None:
            return read_session_tail(path, messages=newest)
        return SESSION_CACHE.read(path) if cached else read_session_file(path)

    def session_read_head(self, instance_id: str, session_id: str) -> SessionRead:
        """The metadata, problems and (`line_kinds`) what kind each line is, no line parsed:
        enough to list a session. A session the index cannot describe is read whole."""
        return self.session_read(instance_id, session_id, pick=no_lines)

    def session_append(self, instance_id: str, session_id: str, record: dict[str, Any], *,
                       durable: bool = True) -> None:
        """Append one whole line. The caller holds the instance lock. `durable=False` leaves
        the fsync to the caller's next durable write to the file (a turn's reply line)."""
        path = self.session_path(instance_id, session_id)
        if not path.exists():
            raise MissingFile(path, f"session {session_id}")
        append_whole(path, (line_dump(record) + "\n").encode("utf-8"), durable=durable)

    def session_rewrite(self, instance_id: str, session_id: str,
                        lines: list[dict[str, Any]]) -> Path:
        """Replace a session file atomically, keeping the previous file as a backup copy
        under sessions/history/ (edits never lose the original)."""
        path = self.session_path(instance_id, session_id)
        backup = self._backup_path_new(instance_id, session_id)
        backup_dir = backup.parent
        backup_dir.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, backup)
        _session_write(path, "".join(line_dump(line) + "\n" for line in lines).encode("utf-8"))
        self._backups_prune(backup_dir, session_id)
        return backup

    def session_tail_replace(self, instance_id: str, session_id: str, *, first: int,
                             lines: list[dict[str, Any]], then: bytes = b"",
                             action: str = "") -> TailChange:
        """Replace the session's lines from position `first` (among SessionRead.lines) to the
        end with `lines`, then the bytes `then` (a reply's streaming head), touching only the
        file's tail (personalab/lib/session_tail.py: journaled, kill -9 safe); the lines
        replaced are kept as the change's backup under sessions/history/. The caller holds the
        instance lock and has repaired the file (no unfinished line). A file the line index
        cannot describe, or with an unreadable line among those replaced, is rewritten whole
        as before (session_rewrite), its unreadable lines dropped as then."""
        path = self.session_path(instance_id, session_id)
        body = "".join(line_dump(line) + "\n" for line in lines).encode("utf-8")
        # A file this process knows is not read whole: only the tail replaced is (FileView).
        indexed = session_indexed(path)
        data, index, generation = (indexed[0], indexed[1], indexed[3]) if indexed is not None \
            else (b"", None, None)
        positions = index.line_records() if index is not None else []
        if (index is None or index.covered != len(data) or not 0 <= first <= len(positions)
                or (first < len(positions)
                    and (index.records["kind"][positions[first]:] == BAD).any())):
            return self._session_rewrite_whole(instance_id, session_id, first=first, lines=lines,
                                               then=then)
        kept = int(positions[first]) if first < len(positions) else len(index.records)
        offset = index.span(kept)[0] if kept < len(index.records) else index.covered
        return self._tail_change(instance_id, session_id, data, index, kept=kept,
                                 offset=offset, body=body, then=then,
                                 extra={"first_line": first, "action": action},
                                 generation=generation)

    def session_tail_pending(self, instance_id: str, session_id: str) -> bool:
        """Whether a tail change was cut short by a crash (session_repair finishes it)."""
        return journal_path(self.session_path(instance_id, session_id)).exists()

    def session_tail_restore(self, instance_id: str, session_id: str, *, offset: int,
                             tail: bytes, action: str = "undo") -> TailChange | None:
        """Put `tail` (a tail backup's lines) back in place of the file's bytes from `offset`
        (the start of a line) on, as a tail change with its own backup. None: the file has no
        line starting there (the caller restores another way)."""
        path = self.session_path(instance_id, session_id)
        data = file_bytes(path)
        try:
            index = line_index_read(path, data)
        except Unindexable:
            return None
        ends = index.records["end"]
        kept = int(np.searchsorted(ends, offset, side="right"))
        if index.covered != len(data) or offset > len(data) or (
                kept and int(ends[kept - 1]) != offset):
            return None
        return self._tail_change(instance_id, session_id, data, index, kept=kept, offset=offset,
                                 body=tail, then=b"", extra={"action": action})

    def _tail_change(self, instance_id: str, session_id: str, data: bytes, index: LineIndex, *,
                     kept: int, offset: int, body: bytes, then: bytes,
                     extra: dict[str, Any], generation: int | None = None) -> TailChange:
        """`generation`: the one this process knew `data` under before the change, if any."""
        path = self.session_path(instance_id, session_id)
        backup = self._backup_path_new(instance_id, session_id)
        # The index's CRC of the file up to the last line kept: that of the bytes before offset.
        record = tail_replace(path, data, offset=offset, new=body + then, backup=backup,
                              extra={"session_id": session_id, **extra},
                              prefix_crc=int(index.records["crc"][kept - 1]) if kept else 0)
        line_index_cut(path, kept)
        # The tail write left the file known under a new generation when it was known: the
        # index of the lines before the tail is held under it, so the next read is not whole.
        known = file_known(path)
        if known is not None:
            line_index_hold(path, LineIndex(index.records[:kept]), known.generation)
        kinds = index.records["kind"][:kept]
        SESSION_CACHE.cut(path, offset=offset, records=int(np.count_nonzero(
            (kinds != BLANK) & (kinds != BAD))), lines=kept,
            crc=int(index.records["crc"][kept - 1]) if kept else 0, generation=generation,
            renewed=known.generation if known is not None else None)
        self._backups_prune(backup.parent, session_id)
        return TailChange(backup=backup, then_start=offset + len(body),
                          fingerprint=file_fingerprint(body + then, prefix_size=offset,
                                                       prefix_crc=record.prefix_crc))

    def _session_rewrite_whole(self, instance_id: str, session_id: str, *, first: int,
                               lines: list[dict[str, Any]], then: bytes) -> TailChange:
        whole = self.session_read(instance_id, session_id)
        backup = self.session_rewrite(instance_id, session_id,
                                      [whole.metadata, *whole.lines[:first], *lines])
        path = self.session_path(instance_id, session_id)
        start = path.stat().st_size
        if then:
            append_whole(path, then)
        return TailChange(backup=backup, then_start=start,
                          fingerprint=file_fingerprint(file_bytes(path)))

    def _backup_path_new(self, instance_id: str, session_id: str) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        return self.sessions_dir(instance_id) / "history" / f"{session_id}.{stamp}.jsonl"

    def _backups_prune(self, backup_dir: Path, session_id: str) -> None:
        """Keep the newest `history.backups_keep` copies of a session: each edit copies the
        whole file, so an uncapped history grows by the session's size per edit."""
        keep = self.module_read("history").get("backups_keep")
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            keep = DEFAULT_MODULES["history"]["backups_keep"]
        for old in sorted(backup_dir.glob(f"{session_id}.*.jsonl"))[:-keep]:
            with contextlib.suppress(FileNotFoundError):
                old.unlink()

    def session_archive(self, instance_id: str, session_id: str) -> Path:
        path = self.session_path(instance_id, session_id)
        if not path.exists():
            raise MissingFile(path, f"session {session_id}")
        archive_dir = self.sessions_dir(instance_id) / "archive"
        archive_dir.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        target = archive_dir / f"{session_id}.{stamp}.jsonl"
        os.replace(path, target)
        index_path(path).unlink(missing_ok=True)
        kept_tally_drop(path)
        variables = session_variables_path(self, instance_id=instance_id, session_id=session_id)
        with contextlib.suppress(FileNotFoundError):  # the chat's variables go with it
            os.replace(variables, target.with_suffix(".variables.json"))
        return target

    def session_repair(self, instance_id: str, session_id: str) -> dict[str, Any] | None:
        """Complete a line left unfinished by a crash, in the file itself (its text kept,
        marked interrupted), after a tail change a crash cut short (old or new tail, never a
        torn one). The caller holds the instance lock, so nothing is streaming."""
        path = self.session_path(instance_id, session_id)
        tail_recover(path, self._backup_path_new(instance_id, session_id))
        with path.open("r+b") as handle:
            start = _unfinished_tail_start(handle)
            if start is None:
                return None
            handle.seek(start)
            tail = tail_decode(handle.read())
            record = parse_partial_line(tail)
            if record is None:
                try:
                    json.loads(tail)
                    fixed = tail
                    record = None
                except json.JSONDecodeError:
                    fixed = None
                if fixed is not None:
                    handle.seek(0, os.SEEK_END)
                    handle.write(b"\n")
                    handle.flush()
                    os.fsync(handle.fileno())
                    return None
                # An unreadable half line is kept as text in a repair record, never dropped.
                record = {"type": "repaired_fragment", "raw": tail, "timestamp": utc_now()}
            else:
                record["interrupted"] = True
            handle.seek(start)
            handle.write((line_dump(record) + "\n").encode("utf-8"))
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
            return record

    def session_repair_when_idle(self, instance_id: str, session_id: str, *,
                                 patience: float = 0.1) -> bool:
        """session_repair unless a turn is writing the session: True when it ran. Another
        reader's repair holds the instance lock for milliseconds and a streaming turn for the
        whole reply, so waiting `patience` seconds tells one from the other."""
        deadline = time.monotonic() + patience
        while True:
            try:
                with self.instance_lock(instance_id):
                    self.session_repair(instance_id, session_id)
                return True
            except InstanceBusy:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.02)

    def assistant_writer(self, instance_id: str, session_id: str, *, turn: int,
                         extra: dict[str, Any] | None = None,
                         replace_from: int | None = None,
                         action: str = "") -> AssistantLineWriter:
        """`replace_from`: the line replaces the session's lines from that position on
        (session_tail_replace), as a regenerate or continue replaces the last reply."""
        lock = held_lock(instance_id)
        replace = None
        if replace_from is not None:
            def replace(head: bytes) -> int:
                return self.session_tail_replace(instance_id, session_id, first=replace_from,
                                                 lines=[], then=head, action=action).then_start
        return AssistantLineWriter(self.session_path(instance_id, session_id), turn=turn,
                                   extra=extra, fence=lock.check if lock else None,
                                   replace=replace)



def _session_write(path: Path, data: bytes) -> None:
    """Write a whole session file and its line index, so that an imported or rewritten session
    is never indexed by the first reader (a page or a turn); the index is a cache, so failing to
    write it only leaves that to the next read."""
    write_bytes_atomic(path, data)
    with contextlib.suppress(Unindexable, OSError):
        line_index_read(path, data)


def _unfinished_tail_start(handle) -> int | None:
    """Offset of the last line when it lacks its newline, reading only the file's tail."""
    size = handle.seek(0, os.SEEK_END)
    if size == 0:
        return None
    handle.seek(size - 1)
    if handle.read(1) == b"\n":
        return None
    block = 64 * 1024
    position = size
    while position > 0:
        position = max(0, position - block)
        handle.seek(position)
        chunk = handle.read(min(block, size - position))
        cut = chunk.rfind(b"\n")
        if cut >= 0:
            return position + cut + 1
    return 0
