"""A finished turn's lines go into the keyword store at once (issue 30).

The dense sync runs on the single memory-jobs thread, which an import's fill can hold for
minutes; a turn played meanwhile must still be keyword-searchable on the next turn. So the
turn's own lines (never the whole session) are written keywords-only on a second small
thread. The keyword store serialises writers with its own lock and opens one SQLite
connection per call, so two threads may write it. The later sync embeds the same lines under
the same ids (upsert): no duplicates.
"""

from __future__ import annotations

import logging
import queue
import threading
from pathlib import Path
from typing import Any

from memory.vectors.turn_docs import turn_doc_id, turns_indexable
from personalab.lib.filestore.store import FileStore
from personalab.lib.jsontext import json_loads
from personalab.lib.session_tail import backup_parse

log = logging.getLogger(__name__)

_jobs: queue.Queue[tuple[Any, tuple, dict]] = queue.Queue()
_worker: threading.Thread | None = None
_lock = threading.Lock()


def _run() -> None:
    while True:
        func, args, kwargs = _jobs.get()
        try:
            func(*args, **kwargs)
        except Exception:  # the sync writes these lines later anyway
            log.exception("live keyword indexing failed")
        finally:
            _jobs.task_done()


def live_schedule(func, *args, **kwargs) -> None:
    global _worker
    with _lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_run, name="memory-live", daemon=True)
            _worker.start()
    _jobs.put((func, args, kwargs))


def live_drain() -> None:
    """Wait for queued live keyword work (tests)."""
    _jobs.join()


def turn_keywords_index(store: FileStore, index: Any, *, instance_id: str, session_id: str,
                        lines: list[dict[str, Any]], round_on: bool = False) -> None:
    """A turn's lines into the keyword store. A regenerated or continued reply keeps its
    line's id: the old text it replaces leaves Chroma (both models) too, or a dense hit would
    show it until the sync (behind a fill) embeds the new one. `round_on`: a later reply of a
    group's round, whose document holds the round's replies before it, still true: the sync
    writes the whole round over it, and deleting it here raced that sync (written just before
    the delete, the round's document left Chroma for good)."""
    wanted = {turn_doc_id(session_id, line): str(line.get("content") or "")
              for line in turns_indexable(lines)}
    if not round_on:
        held = index.keywords.documents(instance_id, "turns", list(wanted))
        index.documents_delete("turns", instance_id, [
            doc_id for doc_id, (text, _) in held.items() if text != wanted[doc_id]])
    instance = store.instance_state_read(instance_id)
    index.add_turns(instance_id=instance_id, character_id=instance.get("character_id") or "",
                    background_id=instance.get("background_id"), session_id=session_id,
                    turns=lines, before=None, keywords_only=True)


def history_keywords_follow(store: FileStore, index: Any, *, instance_id: str, session_id: str,
                            backup: Path, lines: list[dict[str, Any]]) -> None:
    """A history change (edit, delete, hide) followed at once, not behind a fill: the lines it
    replaced (read back from its tail backup) whose text changed or that are gone leave the
    keyword store and Chroma, and the new text goes into the keyword store. The later sync
    embeds the new text (the ids left Chroma, so it sees them as missing)."""
    parsed = backup_parse(backup.read_bytes())
    if parsed is None:  # a whole-file backup (older versions): the sync does it all
        return
    replaced = []
    for raw in parsed[1].splitlines():
        try:
            replaced.append(json_loads(raw))
        except ValueError:
            continue
    old = {turn_doc_id(session_id, line): line for line in turns_indexable(replaced)}
    new = {turn_doc_id(session_id, line): line for line in turns_indexable(lines)}
    gone = [doc_id for doc_id, line in old.items()
            if doc_id not in new or new[doc_id].get("content") != line.get("content")]
    # A sync that ran since the change (this thread may run late) already wrote the new text
    # under the same id, in both stores: deleting by id would take that out of Chroma again,
    # and that sync's mark is past the line, so no later sync would put it back.
    held = index.keywords.documents(instance_id, "turns", gone)
    gone = [doc_id for doc_id in gone if doc_id not in new or doc_id not in held
            or held[doc_id][0] != str(new[doc_id].get("content") or "")]
    index.documents_delete("turns", instance_id, gone)
    turn_keywords_index(store, index, instance_id=instance_id, session_id=session_id,
                        lines=[line for doc_id, line in new.items()
                               if doc_id not in old or doc_id in gone])
