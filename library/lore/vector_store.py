"""Vectors of `vectorized` lore entries: made in the background when a book is saved, kept on
disk, read by turns that never embed lore themselves.

A turn once embedded every vectorized entry it had not seen, holding its instance's lock (200
entries: 97-199 s on a loaded machine, issue 29). Now saving or importing a book asks for its
entries' vectors; one thread per process embeds them one entry at a time, outside any lock and
off the event loop, and writes each to `<data>/lore_vectors/<model>/<hh>/<sha256>.f32` (raw
float32): every server process reads what another wrote and a restart keeps them. A turn reads
the vectors that exist and asks for the rest; an entry without one fires by its keys only, and
the trace says so.

The embedding model lives on a floor above (memory/): memory.apps installs it at start-up with
`embedder_install`. Without one, requests are dropped and vectorized entries fire by keys.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from personalab.lib.atomic import write_bytes_atomic

log = logging.getLogger(__name__)

Embed = Callable[[list[str]], np.ndarray]
FOLDER = "lore_vectors"
# Texts waiting for the worker; past this, requests are dropped (a turn that needs one asks
# again), so a flood of saves costs a bounded queue, not unbounded memory.
PENDING_MAX = 5000
CACHE_SIZE = 4096  # vectors kept in this process in front of the disk (384 floats each)

_embedder: tuple[str, Embed] | None = None
_max_chars: int | None = None
_pending: OrderedDict[tuple[Path, str], str] = OrderedDict()
# The same keys by the book that asked (a turn's requests: ""), taken round-robin: one account's
# 1,000-entry book must not hold another account's 5-entry book behind it (issue 29).
_groups: OrderedDict[str, OrderedDict[tuple[Path, str], None]] = OrderedDict()
_changed = threading.Condition()
_worker: threading.Thread | None = None
_cache: OrderedDict[tuple[Path, str], np.ndarray] = OrderedDict()
_cache_lock = threading.Lock()


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def embedder_install(*, name: str, embed_passages: Embed, max_chars: int | None = None) -> None:
    """The model that embeds lore (memory.apps, at start-up). `name` names its vector space:
    vectors of another model or setting are kept in a folder of their own. `max_chars`: what
    the model reads of a text; a waiting text keeps no more (the queue's memory stays bounded)."""
    global _embedder, _max_chars
    _embedder, _max_chars = (name, embed_passages), max_chars


def vector_folder(root: Path) -> Path | None:
    """Where the installed model's lore vectors live under the data folder `root`."""
    return None if _embedder is None else Path(root) / FOLDER / _embedder[0]


def _path(folder: Path, digest: str) -> Path:
    return folder / digest[:2] / f"{digest}.f32"


def vectors_ready(folder: Path | None, texts: Iterable[str]) -> dict[str, np.ndarray]:
    """The vectors of `texts` that exist (by content_hash); the others are asked for in the
    background. Never embeds: a turn calls this under its instance's lock."""
    if folder is None:
        return {}
    found: dict[str, np.ndarray] = {}
    missing: dict[str, str] = {}
    for text in texts:
        digest = content_hash(text)
        if digest in found or digest in missing:
            continue
        vector = _read(folder, digest)
        if vector is None:
            missing[digest] = text
        else:
            found[digest] = vector
    if missing:
        _request(folder, missing)
    return found


def _read(folder: Path, digest: str) -> np.ndarray | None:
    key = (folder, digest)
    with _cache_lock:
        vector = _cache.get(key)
        if vector is not None:
            _cache.move_to_end(key)
            return vector
    try:
        data = _path(folder, digest).read_bytes()
    except OSError:
        return None
    if not data or len(data) % 4:
        return None  # a torn or foreign file: embedded again
    vector = np.frombuffer(data, dtype=np.float32)
    with _cache_lock:
        _cache[key] = vector
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return vector


def cache_forget() -> None:
    """Drop the in-process vectors (tests: a restart reads them from disk)."""
    with _cache_lock:
        _cache.clear()


def vectors_request(root: Path, texts: Iterable[str], *, group: str = "") -> int:
    """Ask for the vectors of `texts` (a saved book's vectorized entries; `group`: the book's
    id) in the background; returns how many were not on disk yet."""
    folder = vector_folder(root)
    if folder is None:
        return 0
    missing = {content_hash(t): t for t in texts}
    missing = {d: t for d, t in missing.items() if not _path(folder, d).exists()}
    _request(folder, missing, group=group)
    return len(missing)


def vectors_forget(*, group: str) -> int:
    """Drop what a deleted book still waits for; returns how many texts were dropped."""
    with _changed:
        keys = _groups.pop(group, {})
        for key in keys:
            _pending.pop(key, None)
        _changed.notify_all()
        return len(keys)


def _request(folder: Path, texts: dict[str, str], *, group: str = "") -> None:
    global _worker
    with _changed:
        for digest, text in texts.items():
            if len(_pending) >= PENDING_MAX:
                log.warning("lore vectors: %d texts already wait; the others are asked for "
                            "again by the turns that need them", PENDING_MAX)
                break
            if (folder, digest) not in _pending:
                _pending[(folder, digest)] = text[:_max_chars]
                _groups.setdefault(group, OrderedDict())[(folder, digest)] = None
        if _pending and (_worker is None or not _worker.is_alive()):
            _worker = threading.Thread(target=_run, name="lore-vectors", daemon=True)
            _worker.start()
        _changed.notify_all()


def _run() -> None:
    while True:
        with _changed:
            while not _pending:
                _changed.wait()
            # Stays pending while embedded: a request for it meanwhile is not queued twice.
            (folder, digest), text = _next()
        try:
            _embed_one(folder, digest, text)
        except Exception:  # one bad text must not stop the others
            log.exception("lore vector of %s not made", digest[:12])
        finally:
            with _changed:
                _pending.pop((folder, digest), None)
                _changed.notify_all()


def _next() -> tuple[tuple[Path, str], str]:
    """The first waiting text of the first book in turn; that book goes to the back of the
    line (called with _changed held, _pending not empty)."""
    while _groups:
        group, keys = next(iter(_groups.items()))
        _groups.move_to_end(group)
        while keys:
            key = next(iter(keys))
            del keys[key]
            if key in _pending:
                if not keys:
                    del _groups[group]
                return key, _pending[key]
        del _groups[group]
    return next(iter(_pending.items()))  # not reached: every pending key is in a group


def _embed_one(folder: Path, digest: str, text: str) -> None:
    path = _path(folder, digest)
    if _embedder is None or path.exists():  # another process made it meanwhile
        return
    vector = np.asarray(_embedder[1]([text])[0], dtype=np.float32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(path, vector.tobytes(), durable=False)  # a cache: lost, remade
    except OSError as exc:  # a data folder removed meanwhile (tests), a full disk
        log.warning("lore vector not saved: %s", exc)


def pending_count() -> int:
    with _changed:
        return len(_pending)


def drain(timeout: float | None = None) -> bool:
    """Wait until every asked-for vector is made (tests, benchmarks); False on timeout."""
    with _changed:
        return _changed.wait_for(lambda: not _pending, timeout)
