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
from typing import Any

from personalab.lib.filestore.store import FileStore

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
                        lines: list[dict[str, Any]]) -> None:
    instance = store.instance_state_read(instance_id)
    index.add_turns(instance_id=instance_id, character_id=instance.get("character_id") or "",
                    background_id=instance.get("background_id"), session_id=session_id,
                    turns=lines, before=None, keywords_only=True)
