"""When a chat opens, what its instance's files hold reaches the keyword side at once (issue 30
item 4c), even while an import's fill holds the memory-jobs thread for minutes.

The chat-open sync (memory/vectors/sync.py) does two things: it embeds what the files hold and the index
lacks, and it takes out of the index what the files no longer hold. Lines written behind the
app's back (another server process, a file restored by hand, a branch, an undo, an archived
session) are otherwise seen only by it, after the fill. This is its keyword half, run on the
small live thread (memory/keyword_index/live.py): lines the keyword store lacks go in, lines whose
text changed get the file's text (their old vectors leave Chroma, so no side serves the old
text), lines and sessions the files no longer have leave both. The dense sync queued behind
the fill embeds them later (the ids left Chroma or were never there, so it finds them missing).

Its own watermark, data/event_library/index_state/{instance_id}.keywords.json, has the dense
sync's per-session form (file identity, offset, hash of the last line, newest backup), so an
unchanged chat costs a `stat` per session and an appended one a read of the new bytes; a
session changed in place (a new backup, another inode) is compared line by line with the
keyword store. Its first run starts from the dense sync's watermark, which covers both sides.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from memory.vectors.fill_guard import FileLines, lines_still_current
from memory.vectors.index import MemoryIndex
from memory.vectors.sync import session_drop, session_last_change, state_dir, state_lock, state_read
from memory.vectors.turn_docs import turn_doc_id, turns_indexable
from personalab.lib.filestore.jsonfile import write_json_atomic
from personalab.lib.filestore.jsonl import jsonl_lines_since
from personalab.lib.filestore.store import FileStore
from personalab.lib.jsontext import json_loads
from personalab.lib.lines import session_line_problem

MARKS_VERSION = 1


def _marks_path(store: FileStore, instance_id: str) -> Path:
    return state_dir(store) / f"{instance_id}.keywords.json"


def _marks_read(store: FileStore, instance_id: str) -> dict[str, Any] | None:
    try:
        record = json_loads(_marks_path(store, instance_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(record, dict) and record.get("version") == MARKS_VERSION
    return record if ok and isinstance(record.get("sessions"), dict) else None


def instance_keywords_sync(store: FileStore, index: MemoryIndex, *,
                           instance_id: str) -> Counter[str]:
    """Bring the keyword side up to the instance's files (see the module's text); returns how
    many lines were written to the keyword store and how many left the index."""
    with state_lock(store, instance_id, "keywords"):
        generation, held = index.keywords.held(instance_id, "turns")  # before the listing
        record = _marks_read(store, instance_id)
        if record is None:  # first run: the dense watermark covers the keyword side too
            marks = dict(state_read(store, instance_id).get("sessions") or {})
        else:
            marks = record["sessions"] if record.get("generation") == generation else {}
        instance = store.instance_state_read(instance_id)
        owner = {"instance_id": instance_id, "character_id": instance.get("character_id") or "",
                 "background_id": instance.get("background_id")}
        present = set(store.session_ids(instance_id))  # after `held`: see _session_leave
        counts: Counter[str] = Counter()
        for session_id in sorted((set(marks) | held) - present):
            counts["deleted"] += _session_leave(index, instance_id, session_id)
            marks.pop(session_id, None)
        for session_id in sorted(present):
            marks[session_id] = _session_follow(store, index, owner, session_id,
                                                marks.get(session_id), counts)
        if not generation:  # the file was made by this run's writes
            generation, _ = index.keywords.held(instance_id, "turns")
        write_json_atomic(_marks_path(store, instance_id),
                          {"version": MARKS_VERSION, "generation": generation,
                           "sessions": {key: mark for key, mark in marks.items() if mark}})
        return counts


def _session_leave(index: MemoryIndex, instance_id: str, session_id: str) -> int:
    """An archived (or removed) session's lines out of the keyword store and Chroma. A session
    the keyword store holds had its file before its lines were written (a turn, an import), and
    the store was read before the folder was listed, so a session made meanwhile is never taken
    for a gone one."""
    held = index.keywords.session_held(instance_id, "turns", session_id)
    index.documents_delete("turns", instance_id, sorted(held))
    return len(held) + session_drop(index, instance_id, session_id)


def _session_follow(store: FileStore, index: MemoryIndex, owner: dict[str, Any],
                    session_id: str, mark: dict[str, Any] | None,
                    counts: Counter[str]) -> dict[str, Any] | None:
    instance_id = owner["instance_id"]
    path = store.session_path(instance_id, session_id)
    changed, history = session_last_change(store, instance_id, session_id, mark)
    try:
        stat = path.stat()
    except FileNotFoundError:
        return mark
    guard = FileLines(path, store.sessions_dir(instance_id) / "history", session_id)
    offset = 0
    if (mark and mark.get("file") == [stat.st_dev, stat.st_ino]
            and stat.st_size >= mark.get("offset", 0) and mark.get("change") == changed):
        offset = int(mark["offset"])
    read = jsonl_lines_since(path, offset, check=session_line_problem,
                             back=int(mark.get("tail_length", 0)) if offset and mark else 0)
    if offset and mark and read.tail_hash_before != mark.get("tail_hash"):
        offset = 0  # the bytes before the offset changed in place: compare the whole session
        read = jsonl_lines_since(path, 0, check=session_line_problem)
    lines = turns_indexable(read.records)
    if offset:
        lacking = set(index.keywords.missing(instance_id, "turns",
                                             [turn_doc_id(session_id, line) for line in lines]))
        written = [line for line in lines if turn_doc_id(session_id, line) in lacking]
    else:
        written = _session_compare(index, owner, session_id, lines, counts)
    index.add_turns(session_id=session_id, before=None, keywords_only=True, **owner,
                    turns=written)
    lines_still_current(index, owner, guard, written)  # changed while this ran: made right
    counts["keywords"] += len(written)
    if read.end == offset and mark:
        return {**mark, "history": history}
    return {"file": [stat.st_dev, stat.st_ino], "offset": read.end, "tail_hash": read.tail_hash,
            "tail_length": read.tail_length, "change": changed, "history": history}


def _session_compare(index: MemoryIndex, owner: dict[str, Any], session_id: str,
                     lines: list[dict[str, Any]], counts: Counter[str]) -> list[dict[str, Any]]:
    """The session's lines the keyword store lacks or holds with other words, to be written;
    on the way, the ids the file no longer has and the old text of the changed lines leave
    the keyword store and Chroma (both models)."""
    instance_id = owner["instance_id"]
    wanted = {turn_doc_id(session_id, line): line for line in lines}
    stored = index.keywords.documents(instance_id, "turns", list(wanted))
    changed = {doc_id for doc_id, line in wanted.items()
               if doc_id in stored and not _same(stored[doc_id], line)}
    gone = sorted(index.keywords.session_held(instance_id, "turns", session_id) - set(wanted))
    index.documents_delete("turns", instance_id, [*gone, *sorted(changed)])
    counts["deleted"] += len(gone)
    return [line for doc_id, line in wanted.items() if doc_id not in stored or doc_id in changed]


def _same(stored: tuple[str, dict[str, Any]], line: dict[str, Any]) -> bool:
    text, meta = stored
    return text == str(line["content"]) and all(
        str(meta.get(key) or "") == str(line.get(key) or "") for key in ("speaker", "name"))
