"""Indexing derived from the files: the index gets what the session files and ledgers hold and
it does not, whoever wrote them and whenever.

Each instance has a watermark, data/event_library/index_state/{instance_id}.json:
- per session file: its identity (device, inode), the byte offset indexed up to (whole lines
  only, so a reply still streaming is never indexed), a hash of the line that ends there and
  the last indexable line (the context of the next one), and the name of the newest backup
  under sessions/history/ with the folder's mtime it was found at. Appends keep the identity,
  that line and that backup (the folder, unchanged, is not listed again), so only the bytes
  after the offset are read and indexed. A change (history edit, delete, undo, swipe,
  regenerate) rewrites the file's tail and leaves a new backup, so the session is compared
  with what the index holds: changed lines are embedded again, lines no longer in the file are
  deleted. A session file that is gone (archived) loses its documents.
- per ledger (summaries, plots): identity, size and modification time; a change compares the
  ledger's events with the stored ones the same way.
- the collections' ids: a collection created anew (reindex, a Chroma server that lost its
  data) makes every watermark of the instance void.

The watermark moves only after the index took the documents, so turns written while Chroma was
down, or before a crash, are indexed by the next sync: after each turn (instance_sync) and in a
periodic catch-up over every instance (memory/runtime.py). Every write is an upsert by line
id, so two workers syncing the same instance at once do no harm; a lock file per instance
keeps them from doing the work twice.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memory.vectors.fill import (
    chunk_embed,
    newest_first_chunks,
    positions_runs,
    progress_session_set,
)
from memory.vectors.fill_guard import FileLines, lines_still_current
from memory.vectors.index import (
    MemoryIndex,
    ledger_events,
    turn_context_text,
)
from memory.vectors.turn_docs import turn_doc_id, turns_indexable
from personalab.lib.embedding.embeddings import second_wanted
from personalab.lib.filestore.jsonfile import write_json_atomic
from personalab.lib.filestore.jsonl import jsonl_lines_since
from personalab.lib.filestore.store import FileStore
from personalab.lib.jsontext import json_loads
from personalab.lib.lines import session_line_problem

log = logging.getLogger(__name__)

STATE_VERSION = 1
# The fields of a stored turn that must equal the file's line for it to count as indexed.
TURN_FIELDS = ("role", "turn", "timestamp", "speaker", "name")


def state_dir(store: FileStore) -> Path:
    return Path(store.chroma_dir).parent / "index_state"


def _state_path(store: FileStore, instance_id: str) -> Path:
    return state_dir(store) / f"{instance_id}.json"


def state_read(store: FileStore, instance_id: str) -> dict[str, Any]:
    try:
        state = json_loads(_state_path(store, instance_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) and state.get("version") == STATE_VERSION else {}


def state_forget(store: FileStore, instance_id: str | None = None) -> None:
    """Drop the watermarks of an instance (None: of every instance)."""
    if instance_id is None:
        shutil.rmtree(state_dir(store), ignore_errors=True)
        return
    _state_path(store, instance_id).unlink(missing_ok=True)


@contextlib.contextmanager
def state_lock(store: FileStore, instance_id: str, kind: str = "") -> Iterator[None]:
    """One sync of an instance at a time, across processes: the dense sync (`kind` "") or the
    keyword sync ("keywords": its own lock, since a fill holds the dense one)."""
    folder = state_dir(store)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{instance_id}{'.' + kind if kind else ''}.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _file_id(stat: os.stat_result) -> list[int]:
    return [stat.st_dev, stat.st_ino]


def _context_of(line: dict[str, Any] | None) -> dict[str, Any] | None:
    if line is None:
        return None
    return {key: line.get(key)
            for key in ("role", "turn", "content", "speaker", "name", "timestamp")}


def _goes_on(context: Any, line: dict[str, Any]) -> bool:
    """Whether `line` is the same document as the last one the sync wrote (`context`): a
    round's replies share a turn (chat/groups/round.py)."""
    return isinstance(context, dict) and (context.get("turn"), context.get("role")) == (
        line["turn"], line["role"])


def instance_sync(store: FileStore, index: MemoryIndex, *, instance_id: str,
                  collections: dict[str, str] | None = None) -> Counter[str]:
    """Bring the index up to the instance's files; returns how many documents of each
    collection were written, and how many were deleted. Raises when the index is unavailable
    (the watermark then stays behind). `collections`: index.collection_ids() when the caller
    has just read them."""
    with state_lock(store, instance_id):
        state = before = state_read(store, instance_id)
        collections = collections or index.collection_ids()
        if state.get("collections") != collections:
            # Every session is compared again, and those gone since the last sync still leave
            # (a collection added, such as MiniLM's, leaves the others' documents in place).
            state = {"sessions": dict.fromkeys(state.get("sessions") or {})}
        state = {"version": STATE_VERSION, "collections": collections,
                 "sessions": state.get("sessions") or {}, "ledgers": state.get("ledgers") or {}}
        instance = store.instance_state_read(instance_id)
        owner = {"instance_id": instance_id, "character_id": instance.get("character_id") or "",
                 "background_id": instance.get("background_id")}
        counts: Counter[str] = Counter()
        present = set(store.session_ids(instance_id))
        for session_id in sorted(set(state["sessions"]) - present):
            counts["deleted"] += session_drop(index, instance_id, session_id)
            progress_session_set(store, instance_id=instance_id, session_id=session_id,
                                 lines=None)
            del state["sessions"][session_id]
            write_json_atomic(_state_path(store, instance_id), state)
        for session_id in sorted(present):
            mark = _session_sync(store, index, owner, session_id, state["sessions"].get(session_id),
                                 counts)
            if mark != state["sessions"].get(session_id):
                state["sessions"][session_id] = mark
                write_json_atomic(_state_path(store, instance_id), state)
        ledgers = _ledgers_mark(store, instance_id)
        if ledgers != state["ledgers"] or state != before:
            if ledgers != state["ledgers"]:
                _events_sync(store, index, owner, counts)
                state["ledgers"] = ledgers
            write_json_atomic(_state_path(store, instance_id), state)
        return counts


def instances_sync(store: FileStore, index: MemoryIndex) -> Counter[str]:
    """Catch up every instance (startup, the periodic catch-up)."""
    totals: Counter[str] = Counter()
    try:
        collections = index.collection_ids()  # once per pass, not per instance
    except Exception as exc:  # noqa: BLE001 — Chroma down: the next catch-up tries again
        log.warning("memory index not caught up: %s", exc)
        totals["failed"] += 1
        return totals
    for instance_id in store.instance_ids():
        try:
            totals += instance_sync(store, index, instance_id=instance_id,
                                    collections=collections)
        except Exception as exc:  # noqa: BLE001 — the next catch-up tries again
            log.warning("memory index of %s not caught up: %s", instance_id, exc)
            totals["failed"] += 1
            continue
        totals["instances"] += 1
    return totals


def index_rebuild(index: MemoryIndex, store: FileStore) -> dict[str, int]:
    """Rebuild every collection from the files (`reindex --memory`): session lines (turns) and
    the memory ledgers (summaries.jsonl / plots.jsonl of each instance). Every instance must
    be read: one that fails stops the rebuild."""
    index.reset()
    state_forget(store)
    counts = {"instances": 0, "turns": 0, "summaries": 0, "plots": 0}
    for instance_id in store.instance_ids():
        written = instance_sync(store, index, instance_id=instance_id)
        counts["instances"] += 1
        for name in ("turns", "summaries", "plots"):
            counts[name] += written[name]
    return counts


# --- sessions -------------------------------------------------------------------------------


def _session_sync(store: FileStore, index: MemoryIndex, owner: dict[str, Any], session_id: str,
                  mark: dict[str, Any] | None, counts: Counter[str]) -> dict[str, Any] | None:
    path = store.session_path(owner["instance_id"], session_id)
    # before the file is read
    changed, history = session_last_change(store, owner["instance_id"], session_id, mark)
    try:
        stat = path.stat()
    except FileNotFoundError:
        return mark
    guard = FileLines(path, store.sessions_dir(owner["instance_id"]) / "history", session_id)
    offset = 0
    if (mark and mark.get("file") == _file_id(stat) and stat.st_size >= mark.get("offset", 0)
            and mark.get("change") == changed):
        offset = int(mark["offset"])
    read = jsonl_lines_since(path, offset, check=session_line_problem,
                             back=int(mark.get("tail_length", 0)) if offset else 0)
    if offset and read.tail_hash_before != mark.get("tail_hash"):
        offset = 0  # the bytes before the offset changed in place: compare the whole file
        read = jsonl_lines_since(path, 0, check=session_line_problem)
    lines = turns_indexable(read.records)
    joined, previous = False, None  # previous: the line before the last document written
    if offset:
        before, previous = mark.get("context"), mark.get("context_before")
        if lines and _goes_on(before, lines[0]):
            # A group's next reply of the same round (one turn, one document): the document
            # is the round so far and this reply, not this reply alone over it.
            lines = turns_indexable([before, *read.records])
            before, joined = mark.get("context_before"), True
        if lines:
            index.add_turns(session_id=session_id, turns=lines, before=before, **owner)
            lines_still_current(index, owner, guard, lines)  # changed while they embedded
            counts["turns"] += len(lines)
            total = int(mark.get("lines") or 0) + len(lines) - joined
            progress_session_set(store, instance_id=owner["instance_id"], session_id=session_id,
                                 lines=total, embedded=total)
    else:
        before = None
        written, deleted = _session_replace(store, index, owner, session_id, lines, guard)
        counts["turns"] += written
        counts["deleted"] += deleted
    if read.end == offset and mark:
        return {**mark, "history": history}
    return {"file": _file_id(stat), "offset": read.end, "tail_hash": read.tail_hash,
            "tail_length": read.tail_length, "change": changed, "history": history,
            "context": _context_of(lines[-1]) if lines else before,
            "context_before": (_context_of(lines[-2]) if len(lines) > 1 else before) if lines
            else previous,
            "lines": (int(mark.get("lines") or 0) if offset and mark else 0) + len(lines)
            - joined}


# A folder's mtime moves in clock ticks: a backup made in the tick the sync looked at the
# folder may leave it unchanged, so a time this recent is not trusted (as git's "racily clean").
HISTORY_SETTLED_NS = 2_000_000_000


def session_last_change(store: FileStore, instance_id: str, session_id: str,
                        mark: dict[str, Any] | None) -> tuple[str | None, int | None]:
    """The newest backup a history change or a regenerate left of the session, and the
    history folder's mtime it was found at (None: not to be trusted next time). A change
    rewrites the file's tail in place (same file, maybe the same length), so a new backup is
    how the sync knows to compare the session instead of reading on from its offset. Listing
    the folder grows with its backups, so it is listed only when its mtime moved (a backup
    added or pruned, of any session) since the mark: a turn costs one stat."""
    folder = store.sessions_dir(instance_id) / "history"
    try:
        stamp: int | None = folder.stat().st_mtime_ns
    except FileNotFoundError:
        return None, None
    if mark and stamp is not None and mark.get("history") == stamp:
        return mark.get("change"), stamp
    newest = max((path.name for path in folder.glob(f"{session_id}.*.jsonl")), default=None)
    if time.time_ns() - stamp < HISTORY_SETTLED_NS:
        stamp = None
    return newest, stamp


def _session_replace(store: FileStore, index: MemoryIndex, owner: dict[str, Any],
                     session_id: str, lines: list[dict[str, Any]],
                     guard: FileLines | None = None) -> tuple[int, int]:
    """Make the session's stored turns equal the file's: embed the lines whose text, fields or
    context changed, delete the ids the file no longer has. The keyword store gets every
    changed line first (recall finds them at once), then the lines are embedded in chunks,
    newest first, the progress recorded after each (memory/vectors/fill.py); a line changed in the
    file meanwhile is left to the next sync, never written as it was read (`guard`)."""
    instance_id = owner["instance_id"]
    stored = index.documents_stored("turns", where={"instance_id": instance_id,
                                                   "session_id": session_id})
    # MiniLM's collection may hold lines e5's has not (a failure between their deletes).
    vectored = index.second_stored(instance_id, session_id)
    wanted = {turn_doc_id(session_id, line): line for line in lines}
    gone = [doc_id for doc_id in {**stored, **dict.fromkeys(sorted(vectored))}
            if doc_id not in wanted]
    index.documents_delete("turns", instance_id, gone)
    stale: list[int] = []
    current: list[dict[str, Any]] = []
    previous: dict[str, Any] | None = None
    for position, line in enumerate(lines):
        if _turn_current(session_id, line, previous, stored):
            current.append(line)
        else:
            stale.append(position)
        previous = line
    # A line rewritten into Chinese gets no MiniLM vector: the one of its old words goes.
    index.second_delete(instance_id, [
        turn_doc_id(session_id, lines[p]) for p in stale
        if turn_doc_id(session_id, lines[p]) in vectored
        and not second_wanted(str(lines[p]["content"]))])
    # The keyword store may lack lines Chroma has (a lost or older keyword file).
    lacking = set(index.keywords.missing(instance_id, "turns",
                                         [turn_doc_id(session_id, line) for line in current]))
    index.add_turns(session_id=session_id, before=None, keywords_only=True, **owner,
                    turns=[line for line in current if turn_doc_id(session_id, line) in lacking])
    # MiniLM's collection may lack lines e5's has (an index built before it, or without it).
    index.second_add(owner={**owner, "session_id": session_id},
                     turns=[line for line in current
                            if turn_doc_id(session_id, line) not in vectored])
    index.add_turns(session_id=session_id, before=None, keywords_only=True, **owner,
                    turns=[lines[p] for p in stale])
    lines_still_current(index, owner, guard, [lines[p] for p in stale])  # edited meanwhile
    embedded = len(lines) - len(stale)
    progress_session_set(store, instance_id=instance_id, session_id=session_id,
                         lines=len(lines), embedded=embedded)
    # Lines are written in runs, each with the line before it as its context.
    written = 0
    for chunk in newest_first_chunks(positions_runs(stale)):
        written += chunk_embed(index, owner, session_id, lines, chunk, fill_lines=len(stale),
                               guard=guard)
        progress_session_set(store, instance_id=instance_id, session_id=session_id,
                             lines=len(lines), embedded=embedded + written)
    return written, len(gone)


def _turn_current(session_id: str, line: dict[str, Any], previous: dict[str, Any] | None,
                  stored: dict[str, tuple[str, dict[str, Any]]]) -> bool:
    doc_id = turn_doc_id(session_id, line)
    if doc_id not in stored:
        return False
    text, meta = stored[doc_id]
    if text != str(line["content"]) or any(
            str(meta.get(key) or "") != str(line.get(key) or "") for key in TURN_FIELDS):
        return False
    previous_id = turn_doc_id(session_id, previous) if previous else ""
    context_id = meta.get("context_id")
    if context_id is None:  # stored before context ids: the line before by turn and role
        turn = int(line["turn"])
        context_id = (f"turn_{session_id}_{turn}_user" if line["role"] == "assistant"
                      else f"turn_{session_id}_{turn - 1}_assistant")
        if previous is None:
            return context_id not in stored
    if context_id != previous_id:
        return False
    if previous is None:
        return True
    stored_previous = stored.get(previous_id)
    return stored_previous is not None and turn_context_text(line, previous) == turn_context_text(
        line, {"content": stored_previous[0], "speaker": stored_previous[1].get("speaker"),
               "name": stored_previous[1].get("name")})


def session_drop(index: MemoryIndex, instance_id: str, session_id: str) -> int:
    stored = index.documents_stored("turns", where={"instance_id": instance_id,
                                                   "session_id": session_id})
    gone = [*stored, *sorted(index.second_stored(instance_id, session_id) - set(stored))]
    index.documents_delete("turns", instance_id, gone)
    return len(gone)


# --- ledgers ---------------------------------------------------------------------------------


def _ledgers_mark(store: FileStore, instance_id: str) -> dict[str, Any]:
    marks: dict[str, Any] = {}
    for name in ("summaries", "plots"):
        try:
            stat = (store.memory_dir(instance_id) / f"{name}.jsonl").stat()
        except FileNotFoundError:
            continue
        marks[name] = [*_file_id(stat), stat.st_size, stat.st_mtime_ns]
    return marks


def _events_sync(store: FileStore, index: MemoryIndex, owner: dict[str, Any],
                 counts: Counter[str]) -> None:
    """Make the stored summaries and plots equal the ledgers' events."""
    instance_id = owner["instance_id"]
    stored = {name: index.documents_stored(name, where={"instance_id": instance_id})
              for name in ("summaries", "plots")}
    wanted: dict[str, set[str]] = {"summaries": set(), "plots": set()}
    for event_owner, session_id, event in ledger_events(store, owner):
        index_value = event.get("index", 0)
        fresh = []
        for name, field_name, prefix in (("summaries", "summary", "summary"),
                                         ("plots", "plot", "plot")):
            text = str(event.get(field_name) or "")
            if not text.strip():
                continue
            doc_id = f"{prefix}_{session_id}_{index_value}"
            wanted[name].add(doc_id)
            have = stored[name].get(doc_id)
            if have is None or have[0] != text or any(
                    str(have[1].get(key) or "") != str(value or "")
                    for key, value in (("session_id", session_id),
                                       ("character_id", event_owner["character_id"]),
                                       ("background_id", event_owner["background_id"]),
                                       ("speakers", event.get("speakers")),
                                       ("created_at", event.get("created_at")))):
                fresh.append(name)
        written = index.add_events(instance_id=instance_id, session_id=session_id,
                                   character_id=event_owner["character_id"],
                                   background_id=event_owner["background_id"],
                                   events=[event], speakers=event.get("speakers") or "",
                                   created_at=event.get("created_at") or "",
                                   keywords_only=not fresh)
        if fresh:
            counts.update("summaries" if doc_id.startswith("summary_") else "plots"
                          for doc_id in written)
    for name in ("summaries", "plots"):
        gone = [doc_id for doc_id in stored[name] if doc_id not in wanted[name]]
        index.documents_delete(name, instance_id, gone)
        counts["deleted"] += len(gone)
