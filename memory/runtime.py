"""The process's handle on the memory index, and the after-turn work queue.

Indexing a finished turn embeds text, which is too slow for the streaming path, so it runs
on one background thread. What it indexes is derived from the files (memory/vectors/sync.py): a turn
lost from this queue (a crash, Chroma down) is indexed by the next sync of its instance or by
the catch-up that runs at startup and periodically.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import socket
import threading
import time
from pathlib import Path
from typing import Any

from django.conf import settings

from memory.keyword_index.live import (
    history_keywords_follow,
    live_drain,
    live_schedule,
    turn_keywords_index,
)
from memory.keyword_index.sync import instance_keywords_sync
from memory.selectors import recall_enabled
from memory.vectors.fill import session_keywords_index
from memory.vectors.index import MemoryIndex
from memory.vectors.store_check import pid_alive, process_mark, store_check
from memory.vectors.sync import instance_sync, instances_sync
from personalab.lib.filestore.jsonfile import write_text_atomic
from personalab.lib.filestore.store import FileStore
from personalab.lib.jsontext import json_loads
from personalab.storage import get_store

log = logging.getLogger(__name__)

_indexes: dict[str, Any] = {}
_index_lock = threading.Lock()
_jobs: "queue.Queue[tuple[Any, tuple, dict]]" = queue.Queue()
_worker: threading.Thread | None = None
# Clear while the embedded store is checked at a server's start (memory/vectors/store_check.py):
# nothing here opens it meanwhile.
_store_checked = threading.Event()
_store_checked.set()
# Clear from a server's start until what a turn's recall uses is built (recall_warm): a turn
# waits at most RECALL_WARM_WAIT_SECONDS for it, then goes on without recall. After a restart
# the first turn's recall waited 14-26 s in silence for Chroma and the engines at load 12.
_recall_warm = threading.Event()
_recall_warm.set()
RECALL_WARM_WAIT_SECONDS = 2.0


PROGRESS_FILE = ".memory_progress.json"
PROGRESS_STALE_SECONDS = 15 * 60  # an action killed mid-way leaves its file; it stops showing


def _progress_path(instance_id: str) -> Path:
    return get_store().instance_dir(instance_id) / PROGRESS_FILE


def progress_set(instance_id: str, text: str | None,
                 values: dict[str, int] | None = None) -> None:
    """What a long memory action is doing now, for the page to poll: `text` untranslated (any
    worker may poll it, in its reader's language), with the `values` its placeholders take.
    Kept in the instance folder every worker shares, not in this process."""
    path = _progress_path(instance_id)
    try:
        if text is None:
            path.unlink(missing_ok=True)
        else:
            # Written on the event loop, once a part of a recap rebuild: no fsync (a durable
            # write took 8 ms, up to 164 ms on a loaded disk, 2,000 times for a long chat); a
            # line lost to a power cut is an action the next poll reports stopped anyway.
            write_text_atomic(path, json.dumps(
                {"text": text, "values": values or {}, "at": time.time(), "pid": os.getpid(),
                 "host": socket.gethostname()}, ensure_ascii=False), durable=False)
    except OSError as exc:  # the action goes on; only its progress line is missing
        log.warning("memory progress of %s not saved: %s", instance_id, exc)


def progress_get(instance_id: str) -> str | None:
    state, step, _ = progress_state(instance_id)
    return step if state == "running" else None


def progress_state(instance_id: str) -> tuple[str, str | None, dict[str, int]]:
    """("running", its stage, the stage's values), ("stopped", None, {}) when the process that
    ran it is gone (killed, restarted: the file it left says so), or ("idle", None, {})."""
    try:
        record = json_loads(_progress_path(instance_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "idle", None, {}
    if not isinstance(record, dict) or not isinstance(record.get("at"), (int, float)):
        return "idle", None, {}
    if not _process_alive(record) or time.time() - record["at"] > PROGRESS_STALE_SECONDS:
        return "stopped", None, {}
    values = record.get("values")
    values = {key: value for key, value in values.items() if isinstance(value, int)} \
        if isinstance(values, dict) else {}
    return "running", str(record.get("text") or "") or None, values


def _process_alive(record: dict) -> bool:
    """False only when the action ran on this machine and its process is gone; a process of
    another machine is trusted until its progress goes stale."""
    pid = record.get("pid")
    if record.get("host") != socket.gethostname() or not isinstance(pid, int):
        return True
    return pid_alive(pid)


def index_for(store: FileStore):
    key = settings.PERSONALAB_CHROMA_URL or str(Path(store.chroma_dir).resolve())
    with _index_lock:
        if key not in _indexes:
            keywords = Path(store.chroma_dir).parent / "keywords"
            if settings.PERSONALAB_CHROMA_URL:
                _indexes[key] = MemoryIndex(chroma_url=settings.PERSONALAB_CHROMA_URL,
                                            keywords_path=keywords)
            else:
                process_mark(chroma_path=Path(store.chroma_dir))
                _indexes[key] = MemoryIndex(chroma_path=store.chroma_dir, keywords_path=keywords,
                                            set_aside_damaged=True)
        return _indexes[key]


def index_renewed(store: FileStore) -> tuple[MemoryIndex, str]:
    """The memory index, opened, and what was done to open it ("" when nothing was). An
    embedded store that cannot be opened (a corrupt chroma.sqlite3: every turn went without
    recall, and `reindex --memory` failed the same way) is moved aside, kept, and made anew
    for a rebuild from the files; a Chroma server's error is raised as it is."""
    index = index_for(store)
    if settings.PERSONALAB_CHROMA_URL:
        return index, ""
    try:
        index.client()
        return index, ""
    except Exception as exc:  # noqa: BLE001 — chromadb raises several kinds for one bad file
        broken = Path(store.chroma_dir)
        aside = broken.with_name(f"{broken.name}.unreadable-{time.strftime('%Y%m%d-%H%M%S')}")
        os.replace(broken, aside)
        forget_indexes()
        index = index_for(store)
        index.client()
        return index, f"the memory index could not be opened ({exc}); it was moved to {aside}"


def index_or_warning(store: FileStore) -> tuple[Any, dict | None]:
    if not _store_checked.is_set():
        return None, _recall_warning("the memory store is being checked")
    try:
        return index_for(store), None
    except Exception as exc:  # noqa: BLE001 — chat goes on without recall (SPEC §5)
        log.warning("memory index unavailable: %s", exc)
        return None, _recall_warning(str(exc))


def index_for_turn(store: FileStore, *, wait: float | None = None) -> tuple[Any, dict | None]:
    """`index_or_warning` for a turn's recall: while a server is still building what recall
    uses after its start, at most `wait` seconds, then none and the recall_unavailable warning."""
    if not _recall_warm.wait(timeout=RECALL_WARM_WAIT_SECONDS if wait is None else wait):
        return None, _recall_warning("the memory is still loading after the server's start")
    return index_or_warning(store)


def recall_warm_pending() -> None:
    """A server's start, before it listens: turns wait (bounded) for `recall_warm`."""
    _recall_warm.clear()


def recall_warm(store: FileStore) -> None:
    """Build what a turn's recall uses (the store checked, the index and its collections open,
    a query embedded: e5's engines, MiniLM when on), then let turns stop waiting; also when a
    part fails (recall then meets the failure itself, with its own warning)."""
    try:
        _store_checked.wait()
        if recall_enabled(store):
            index, _ = index_or_warning(store)
            if index is not None:
                index.collection_ids()
                index.query_embed("warm")
    except Exception:  # noqa: BLE001 — recall then fails as it would have, with its warning
        log.exception("memory warm-up failed")
    finally:
        _recall_warm.set()


def _recall_warning(reason: str) -> dict:
    return {"type": "warning", "category": "recall_unavailable",
            "message": f"记忆检索不可用，本轮不使用历史回忆（{reason}）",
            "current_value": None, "threshold": None,
            "suggestion": "检查 Chroma 存储或 PERSONALAB_CHROMA_URL"}


def store_check_start(store: FileStore) -> threading.Thread | None:
    """Check the embedded store on a thread before this server uses it, and mend what is
    damaged (memory/vectors/store_check.py); turns meanwhile go without recall, with the
    recall_unavailable warning. Also with recall off (it may be turned on while the server
    runs); nothing for a Chroma server."""
    if settings.PERSONALAB_CHROMA_URL:
        return None
    chroma_path = Path(store.chroma_dir)
    _store_checked.clear()

    def check() -> None:
        try:
            store_check(chroma_path=chroma_path)
        except Exception:  # noqa: BLE001 — recall then fails as it would have, with its warning
            log.exception("memory store check failed")
        finally:
            _store_checked.set()

    thread = threading.Thread(target=check, name="memory-store-check", daemon=True)
    thread.start()
    return thread


def forget_indexes() -> None:
    """Drop the open indexes; their keyword files are closed (Chroma's client is left to
    whoever may still be reading through it)."""
    with _index_lock:
        indexes = list(_indexes.values())
        _indexes.clear()
    for index in indexes:
        index.keywords.close()


def _run_jobs() -> None:
    while True:
        func, args, kwargs = _jobs.get()
        try:
            func(*args, **kwargs)
        except Exception:  # noqa: BLE001 — background work must not kill the worker
            log.exception("memory job failed")
        finally:
            _jobs.task_done()


def schedule(func, *args, **kwargs) -> None:
    global _worker
    with _index_lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_run_jobs, name="memory-jobs", daemon=True)
            _worker.start()
    _jobs.put((func, args, kwargs))


def drain() -> None:
    """Wait for queued memory work (tests and management commands)."""
    live_drain()
    _jobs.join()


def jobs_drop() -> int:
    """Drop the queued memory work that has not started (a job running finishes); how many.
    For a process whose data folder is going away (the tests'); the files stay the truth, and
    the next sync of an instance queues its work again."""
    dropped = 0
    while True:
        try:
            _jobs.get_nowait()
        except queue.Empty:
            break
        _jobs.task_done()
        dropped += 1
    with _index_lock:
        _syncs_queued.clear()  # their jobs were among those dropped
    return dropped


_syncs_queued: set[tuple[str, str]] = set()


def _instance_sync(store: FileStore, instance_id: str) -> None:
    with _index_lock:
        _syncs_queued.discard((str(store.root), instance_id))
    index, _ = index_or_warning(store)
    if index is None:
        return
    try:
        instance_sync(store, index, instance_id=instance_id)
    except Exception as exc:  # noqa: BLE001 — behind its watermark; the next sync catches up
        log.warning("memory index of %s is behind the files: %s", instance_id, exc)


def schedule_sync(store: FileStore, *, instance_id: str) -> None:
    """Index what the instance's files hold and the index does not (memory/vectors/sync.py): after a
    turn, a history edit, or when its chat opens."""
    if not recall_enabled(store):
        return
    key = (str(store.root), instance_id)
    with _index_lock:
        if key in _syncs_queued:  # one queued sync covers every request before it starts
            return
        _syncs_queued.add(key)
    schedule(_instance_sync, store, instance_id)


_keyword_syncs_queued: set[tuple[str, str]] = set()


def _instance_keywords_sync(store: FileStore, index: Any, instance_id: str) -> None:
    with _index_lock:
        _keyword_syncs_queued.discard((str(store.root), instance_id))
    instance_keywords_sync(store, index, instance_id=instance_id)


def files_follow(store: FileStore, *, instance_id: str) -> None:
    """Follow what the instance's files hold now (its chat opened, a session archived, an undo):
    the keyword side at once on the small live thread (memory/keyword_index/sync.py), the dense side
    queued behind whatever the memory-jobs thread is doing (an import's fill)."""
    if not recall_enabled(store):
        return
    index, _ = index_or_warning(store)
    key = (str(store.root), instance_id)
    if index is not None:
        with _index_lock:
            queued = key in _keyword_syncs_queued
            _keyword_syncs_queued.add(key)
        if not queued:  # one queued keyword sync covers every request before it starts
            live_schedule(_instance_keywords_sync, store, index, instance_id)
    schedule_sync(store, instance_id=instance_id)


def turn_lines_live(store: FileStore, *, instance_id: str, session_id: str,
                    lines: list[dict[str, Any]], round_on: bool = False) -> None:
    """A finished turn's lines into the keyword store now, on their own small thread, not
    behind a fill on the memory-jobs thread (memory/keyword_index/live.py; `round_on`: there)."""
    if not recall_enabled(store):
        return
    index, _ = index_or_warning(store)
    if index is not None and lines:
        live_schedule(turn_keywords_index, store, index, instance_id=instance_id,
                      session_id=session_id, lines=list(lines), round_on=round_on)


def history_lines_live(store: FileStore, *, instance_id: str, session_id: str, backup: Path,
                       lines: list[dict[str, Any]]) -> None:
    """A history change on the keyword side (and out of Chroma) now, on the small thread, not
    behind a fill on the memory-jobs thread (memory/keyword_index/live.py)."""
    if not recall_enabled(store):
        return
    index, _ = index_or_warning(store)
    if index is not None:
        live_schedule(history_keywords_follow, store, index, instance_id=instance_id,
                      session_id=session_id, backup=backup, lines=list(lines))


def session_imported(store: FileStore, *, instance_id: str, session_id: str) -> None:
    """After an import: the keyword side now, the dense side queued (the player's first turn
    does not wait for it). A keyword store that fails leaves the lines to the sync."""
    if not recall_enabled(store):
        return
    index, _ = index_or_warning(store)
    if index is not None:
        try:
            session_keywords_index(store, index, instance_id=instance_id, session_id=session_id)
        except Exception as exc:  # noqa: BLE001 — the queued sync writes them with the vectors
            log.warning("imported lines of %s not in the keyword store yet: %s", instance_id, exc)
    schedule_sync(store, instance_id=instance_id)


def _catch_up() -> None:
    _store_checked.wait()
    store = get_store()
    if not recall_enabled(store):
        return
    index, _ = index_or_warning(store)
    if index is None:
        return
    totals = instances_sync(store, index)
    if totals["turns"] or totals["summaries"] or totals["plots"] or totals["deleted"]:
        log.info("memory index caught up with the files: %s", dict(totals))


_catch_up_started = False


def catch_up_start(*, every_seconds: float) -> None:
    """Index what every instance's files hold and the index does not: now (turns written while
    Chroma was down or before a crash) and then every `every_seconds` (a server process calls
    this once; personalab/asgi.py)."""
    global _catch_up_started
    with _index_lock:
        if _catch_up_started:
            return
        _catch_up_started = True

    def loop() -> None:
        while True:
            schedule(_catch_up)
            time.sleep(every_seconds)

    threading.Thread(target=loop, name="memory-catch-up", daemon=True).start()
