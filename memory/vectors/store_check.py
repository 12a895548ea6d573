"""A damaged embedded Chroma store must not stop the chat (docs/decisions/chroma-damaged-store.md).

A segment damaged by a kill -9 mid-write made every search abort the server in native code,
right after the player's line was written; the catch-up sync at start did too. So before a
server's first use of the store (`store_check`):

- the vector segments' file sizes are compared with their headers (milliseconds, every start;
  personalab/lib/embedding/chroma_check.py);
- when a process that had the store open stopped without closing it (its mark, written by
  `process_mark` and removed at a clean exit, is still there), each collection is also opened
  and searched once in a child process;
- a collection found damaged either way is deleted and its segment folder moved aside (kept,
  next to the store, for a look); the catch-up sync fills it in again from the files (a new
  collection id makes memory/vectors/sync.py compare every session), recall going on meanwhile
  with the keyword store and whatever is filled in.

Not while another live process has the store open (its files may be half written that moment;
the other process's own next start checks them). A Chroma server is not checked: its files are
its own.
"""

from __future__ import annotations

import atexit
import fcntl
import logging
import os
import threading
import time
from pathlib import Path

from personalab.lib.embedding.chroma_check import (
    collections_delete,
    collections_probe,
    segment_ids,
    segment_problem,
    segments_damaged,
)
from personalab.lib.errors import Unavailable

log = logging.getLogger(__name__)

SETTLE_SECONDS = 2.0  # a collection found damaged under a running server is read again after
MARKS = "chroma_db.open"  # beside the store: one file per process that has it open
ASIDE = "chroma_db.damaged"

_marked: set[Path] = set()


def _marks_dir(chroma_path: Path) -> Path:
    return chroma_path.parent / MARKS


def process_started(pid: int) -> str:
    """When the process `pid` started (clock ticks since boot, Linux), "" when it cannot be
    read: with it a mark tells its process from a later one given the same pid (a container's
    server is often pid 1 at every start)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return ""
    fields = stat.rpartition(")")[2].split()
    return fields[19] if len(fields) > 19 else ""


def process_mark(*, chroma_path: Path) -> None:
    """Note that this process has the embedded store at `chroma_path` open, until it exits
    cleanly; a mark left behind means it was killed or crashed (maybe in Chroma's native code)."""
    marks = _marks_dir(Path(chroma_path))
    if marks in _marked:
        return
    _marked.add(marks)
    mark = marks / str(os.getpid())
    try:
        marks.mkdir(parents=True, exist_ok=True)
        mark.write_text(process_started(os.getpid()), encoding="ascii")
    except OSError as exc:  # the check after a crash will not run; the cheap one still does
        log.warning("memory store mark not written: %s", exc)
        return
    atexit.register(mark.unlink, missing_ok=True)


def marks_read(*, chroma_path: Path) -> tuple[list[Path], list[Path]]:
    """(marks of processes gone, marks of other live processes), this process's own left out;
    a mark whose pid now names another process is of one gone."""
    marks = _marks_dir(Path(chroma_path))
    gone, live = [], []
    try:
        entries = sorted(marks.iterdir())
    except FileNotFoundError:
        return [], []
    for mark in entries:
        try:
            started = mark.read_text(encoding="ascii", errors="replace").strip()
        except OSError:
            continue  # removed meanwhile: a clean exit
        if not mark.name.isdigit():
            continue
        pid = int(mark.name)
        if not (pid_alive(pid) and (not started or started == process_started(pid))):
            gone.append(mark)
        elif pid != os.getpid():
            live.append(mark)
    return gone, live


def pid_alive(pid: int) -> bool:
    """Whether a process of this machine has `pid` (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def store_check(*, chroma_path: Path) -> dict[str, str]:
    """Check the embedded store before this process uses it, and mend what is damaged:
    collection name -> what was wrong with it, for the collections deleted (to be filled in
    again from the files). One process at a time (a lock file beside the store)."""
    chroma_path = Path(chroma_path)
    if not (chroma_path / "chroma.sqlite3").is_file():
        return {}
    with (chroma_path.parent / f"{MARKS}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            gone, live = marks_read(chroma_path=chroma_path)
            if live:
                return {}
            started = time.monotonic()
            damaged = segments_damaged(chroma_path)
            if gone:
                log.warning("the memory store was left open by a process that stopped "
                            "uncleanly; checking each collection in a child process")
                others = [name for name in segment_ids(chroma_path) if name not in damaged]
                damaged |= collections_probe(chroma_path, others)
                log.warning("memory store checked in %.1f s: %s", time.monotonic() - started,
                            ", ".join(damaged) + " damaged" if damaged else "no damage found")
            if damaged:
                collections_set_aside(chroma_path=chroma_path, damaged=damaged)
            for mark in gone:
                mark.unlink(missing_ok=True)
            return damaged
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def collections_set_aside(*, chroma_path: Path, damaged: dict[str, str],
                          whole_store: bool = True) -> Path:
    """Delete the damaged collections, then move their segment folders (which Chroma leaves
    behind) aside with why; the folder they were moved to. When they cannot be deleted, the
    whole store is moved aside (as memory.runtime.index_renewed does with an unreadable one),
    or, without `whole_store` (a running server has it open), the error is raised."""
    segments = segment_ids(chroma_path)
    try:
        collections_delete(chroma_path, list(damaged))
    except Exception as exc:  # noqa: BLE001 — a store Chroma cannot delete from: all of it
        if not whole_store:
            raise
        aside = chroma_path.with_name(
            f"{chroma_path.name}.unreadable-{time.strftime('%Y%m%d-%H%M%S')}")
        os.replace(chroma_path, aside)
        log.warning("memory collections %s were damaged and could not be deleted (%s): the "
                    "whole store was moved to %s and is filled in again from the files",
                    ", ".join(damaged), exc, aside)
        return aside
    aside = chroma_path.parent / ASIDE / time.strftime("%Y%m%d-%H%M%S")
    aside.mkdir(parents=True, exist_ok=True)
    for name, why in damaged.items():
        if name in segments and (chroma_path / segments[name]).is_dir():
            os.replace(chroma_path / segments[name], aside / name)
        (aside / f"{name}.txt").write_text(f"{why}\n", encoding="utf-8")
    log.warning("memory collections %s were damaged (%s): deleted, their files moved to %s; "
                "they are filled in again from the files", ", ".join(damaged),
                "; ".join(f"{name}: {why}" for name, why in damaged.items()), aside)
    return aside


class CollectionDamaged(Unavailable):
    """A collection whose segment files were found damaged before this process first used it
    (`collection_problem`): it is not touched until a restart's check sets it aside."""

    code = "memory_damaged"


def collection_problem(*, chroma_path: Path, name: str) -> tuple[str, str]:
    """Collection `name`'s vector segment (its id, "" when it has none) and what is wrong with
    its files, or "". Read before a process's first use of the collection, which loads them: a
    graph damaged after the start's check (another process killed mid-write) killed the server
    that loaded it, in Chroma's native code, after the player's line was written. A segment
    already loaded is searched in memory: damage to its files does nothing to this process
    (tried, docs/security.md)."""
    chroma_path = Path(chroma_path).resolve()  # segment_ids opens it by URI: absolute only
    segment = collection_segment(chroma_path=chroma_path, name=name)
    return segment, (segment_problem(chroma_path / segment) if segment else "")


def collection_segment(*, chroma_path: Path, name: str) -> str:
    """The id of collection `name`'s vector segment now ("" when none): a rebuild (`reindex
    --memory`, a collection set aside and filled in again) makes a new one."""
    return segment_ids(Path(chroma_path).resolve()).get(name, "")


class CollectionsRead:
    """The collections of an embedded store whose files this process read before its first use
    of each (`collection_problem`, tens of ms at 20,000 lines, once), and those found damaged,
    with the segment that was. A damaged one stays off until the collection has a new segment
    (a rebuild: `reindex --memory` in another process, an index's `reset`): it stayed off until
    the server's restart before the ninth red-team pass."""

    def __init__(self, chroma_path: Path, *, set_aside: bool = False) -> None:
        self.chroma_path = chroma_path
        self._read: set[str] = set()
        self._damaged: dict[str, tuple[str, str]] = {}  # name → (its segment, the damage)
        # A server's (memory.runtime): a collection found damaged is set aside on a thread, as
        # the start's check does, and made anew; it stayed off until a restart or a rebuild
        # by hand before the tenth red-team pass.
        self.set_aside = set_aside
        self.setting_aside: dict[str, threading.Thread] = {}

    def checked(self, name: str) -> bool:
        """Raises CollectionDamaged; True when the collection was made anew since it was found
        damaged (a handle to the old one is stale)."""
        if name in self._read:
            return False
        damaged = self._damaged.get(name)
        renewed = damaged is not None and collection_segment(
            chroma_path=self.chroma_path, name=name) != damaged[0]
        if renewed:
            log.warning("memory collection %s was made anew since it was found damaged: its "
                        "files are read again", name)
            del self._damaged[name]
            damaged = None
        if damaged is None:
            damaged = collection_problem(chroma_path=self.chroma_path, name=name)
            if damaged[1]:
                self._damaged[name] = damaged
                log.error("memory collection %s is damaged (%s): recall goes on without it "
                          "until it is rebuilt (manage.py reindex --memory) or the server is "
                          "started again, which sets it aside and fills it in again from the "
                          "files", name, damaged[1])
                if self.set_aside:
                    self._set_aside_start(name, *damaged)
        if damaged[1]:
            raise CollectionDamaged(f"the memory store's {name} collection is damaged "
                                    f"({damaged[1]}); rebuild it (manage.py reindex --memory) "
                                    f"or start the server again")
        self._read.add(name)
        return renewed

    def _set_aside_start(self, name: str, segment: str, why: str) -> None:
        def run() -> None:
            if not collection_set_aside_live(chroma_path=self.chroma_path, name=name,
                                             segment=segment, why=why) \
                    and self._damaged.get(name, ("",))[0] == segment:
                self._damaged.pop(name, None)  # whole when read again: used after all

        thread = threading.Thread(target=run, daemon=True, name=f"memory-set-aside-{name}")
        self.setting_aside[name] = thread
        thread.start()

    def forget(self, name: str | None = None) -> None:
        """Read again at the next use: `name`, or every collection."""
        if name is None:
            self._read.clear()
        else:
            self._read.discard(name)


def collection_set_aside_live(*, chroma_path: Path, name: str, segment: str, why: str) -> bool:
    """Under a running server: collection `name`, found damaged in `segment`, deleted (in a
    child process: seconds) and its files moved aside, as the start's check does; the next use
    makes it anew (CollectionsRead sees the new segment) and the sync fills it in again from
    the files (its new id makes memory/vectors/sync.py compare every session). Its files are
    read again SETTLE_SECONDS later first: another process may have been writing them. False
    when they are whole by then, or the collection has another segment (another worker set
    it aside, a rebuild); when Chroma cannot delete it, it stays off, as before (the whole
    store is not moved from under the server)."""
    chroma_path = Path(chroma_path).resolve()
    time.sleep(SETTLE_SECONDS)
    with (chroma_path.parent / f"{MARKS}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            now, problem = collection_problem(chroma_path=chroma_path, name=name)
            if now != segment or not problem:
                return False
            collections_set_aside(chroma_path=chroma_path, damaged={name: why},
                                  whole_store=False)
        except Exception:  # noqa: BLE001 — it stays off until a rebuild or a restart
            log.exception("memory collection %s could not be set aside", name)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return True
