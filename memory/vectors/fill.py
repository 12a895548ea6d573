"""A large session (an imported chat) is searchable at once and embedded in the background.

The keyword store answers as soon as a session's lines are in it, which takes a moment; the
dense side (e5 and MiniLM into Chroma) takes minutes for 10,000 lines. So an import writes
the keyword side while the player waits (`session_imported` in memory/runtime.py, which queues
the jobs), and the sync (memory/vectors/sync.py) embeds the rest in chunks, newest lines first (what
the player asks about next is most likely recent), recording after each chunk how far it got.

That record, data/event_library/index_state/{instance_id}.progress.json, is what
`GET /api/v1/instances/{id}` shows as `index: {"lines": N, "embedded": M}`: a file every
worker reads (SPEC §8), one small read per request. A fill killed mid-way leaves its record
behind M; the catch-up finds the lines Chroma lacks and embeds only those (every write is an
upsert by line id: nothing is stored twice).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from memory.vectors.fill_guard import FileLines, lines_still_current
from memory.vectors.index import MemoryIndex
from memory.vectors.turn_docs import turns_indexable
from personalab.lib.embedding.embeddings import fill_scope
from personalab.lib.filestore.jsonfile import write_json_atomic
from personalab.lib.filestore.jsonl import jsonl_lines_since
from personalab.lib.filestore.store import FileStore
from personalab.lib.jsontext import json_loads
from personalab.lib.lines import session_line_problem

log = logging.getLogger(__name__)

# Lines embedded per chunk: large enough to batch both models well, small enough that the
# progress moves every few seconds and a turn's own sync is not queued long behind a chunk.
FILL_CHUNK = 256


def _progress_path(store: FileStore, instance_id: str) -> Path:
    return Path(store.chroma_dir).parent / "index_state" / f"{instance_id}.progress.json"


def _progress_read(store: FileStore, instance_id: str) -> dict[str, dict[str, int]]:
    try:
        record = json_loads(_progress_path(store, instance_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    sessions = record.get("sessions") if isinstance(record, dict) else None
    return sessions if isinstance(sessions, dict) else {}


def progress_session_set(store: FileStore, *, instance_id: str, session_id: str,
                         lines: int | None, embedded: int = 0) -> None:
    """Record a session's indexable lines and how many are embedded (None: the session left)."""
    sessions = _progress_read(store, instance_id)
    if lines is None:
        if session_id not in sessions:
            return
        sessions.pop(session_id)
    else:
        if sessions.get(session_id) == {"lines": lines, "embedded": embedded}:
            return
        sessions[session_id] = {"lines": lines, "embedded": min(embedded, lines)}
    path = _progress_path(store, instance_id)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(path, {"sessions": sessions})
    except OSError as exc:  # indexing goes on; only its progress figure is behind
        log.warning("index progress of %s not saved: %s", instance_id, exc)


def progress_get(store: FileStore, *, instance_id: str) -> dict[str, int]:
    """`{"lines": N, "embedded": M}` over the instance's sessions, as the last sync left it."""
    lines = embedded = 0
    for record in _progress_read(store, instance_id).values():
        if isinstance(record, dict):
            lines += int(record.get("lines") or 0)
            embedded += int(record.get("embedded") or 0)
    return {"lines": lines, "embedded": embedded}


def session_keywords_index(store: FileStore, index: MemoryIndex, *, instance_id: str,
                           session_id: str) -> int:
    """Put a new session's lines into the keyword store now (no embedding), so recall finds
    them on the next turn; the sync embeds them later. Returns the indexable lines."""
    instance = store.instance_state_read(instance_id)
    read = jsonl_lines_since(store.session_path(instance_id, session_id), 0,
                             check=session_line_problem)
    lines = turns_indexable(read.records)
    progress_session_set(store, instance_id=instance_id, session_id=session_id,
                         lines=len(lines), embedded=0)
    index.add_turns(instance_id=instance_id, character_id=instance.get("character_id") or "",
                    background_id=instance.get("background_id"), session_id=session_id,
                    turns=lines, before=None, keywords_only=True)
    return len(lines)


def newest_first_chunks(runs: list[list[int]], size: int = FILL_CHUNK) -> list[list[int]]:
    """The positions of `runs` (consecutive line positions) cut into chunks of at most `size`,
    the newest chunk first; each chunk stays consecutive, so its first line's context is the
    line before it in the file."""
    chunks: list[list[int]] = []
    for run in reversed(runs):
        stop = len(run)
        while stop > 0:
            start = max(0, stop - size)
            chunks.append(run[start:stop])
            stop = start
    return chunks


def positions_runs(positions: list[int]) -> list[list[int]]:
    """`positions` (ascending) cut into runs of consecutive ones."""
    runs: list[list[int]] = []
    for position in positions:
        if runs and runs[-1][-1] == position - 1:
            runs[-1].append(position)
        else:
            runs.append([position])
    return runs


def chunk_embed(index: MemoryIndex, owner: dict[str, Any], session_id: str,
                lines: list[dict[str, Any]], chunk: list[int], *, fill_lines: int = 0,
                guard: FileLines | None = None) -> int:
    """Embed the lines at positions `chunk` of `lines` (as the sync read the file); returns
    how many it wrote. `fill_lines`: how many lines the whole fill embeds (a long one runs each
    line through e5 once, personalab.lib.embedding.embeddings.lines_once). `guard`: the file as
    the sync read it; lines edited, deleted or hidden since are left out (memory/vectors/fill_guard.py)."""
    kept = {id(line) for line in lines_still_current(index, owner, guard,
                                                     [lines[p] for p in chunk])}
    positions = [p for p in chunk if id(lines[p]) in kept]
    with fill_scope(fill_lines):
        for run in positions_runs(positions):
            first = run[0]
            index.add_turns(session_id=session_id, turns=[lines[p] for p in run],
                            before=lines[first - 1] if first else None, **owner)
    # A change that landed while the chunk embedded: its old text leaves again at once.
    lines_still_current(index, owner, guard, [lines[p] for p in positions])
    return len(positions)
