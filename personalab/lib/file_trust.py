"""What this process knows of a session file's bytes, so a turn need not read the whole file
to learn that only its own appends changed it.

A file is *known* after a whole read: its stamp (device, inode, size, mtime and ctime to the
nanosecond) before and after the read was the same. While the file's stamp stays that one the
bytes are the ones read; every write to the file (a rewrite, a hand edit in place even with
its size and mtime put back, a rename over it) changes its ctime, which no program can set.
The stamp is believed only when its ctime was older than the read's start by more than a
timestamp tick (TICK_NS): a write within the same tick could otherwise keep the same ctime, so
such a file is read whole again next time. A write of this process that only appends
(AppendWatch: each of its writes started on the stamp the previous one left) keeps the file
known, with the stamp it leaves: the bytes before the append are still the ones known. A
rewrite of the file's tail by this process (RewriteWatch: a regenerate's tail change) keeps it
known too, under a new generation: the writer knows the bytes it wrote, and readers keep what
they made of the bytes before the tail themselves (the line index's CRC up to a line).
Anything else, another process's append included, is seen as a changed stamp and the next
reader reads the file whole. The one case not seen: a write by another program that keeps the
size, within one timestamp tick after this process's own append, on a kernel without
fine-grained timestamps (Linux before 6.13; on later ones a write after a stat gets a new ctime).

Each knowledge has a `generation`: readers keep what they made of the bytes (parsed lines, the
line index) under it, and reuse it only while the file is known under that same generation.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

TICK_NS = 20_000_000  # more than a jiffy at HZ=100 (10 ms)
KNOWN_FILES = 256

Stamp = tuple[int, int, int, int, int]


def file_stamp(stat: os.stat_result) -> Stamp:
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def path_stamp(path: Path) -> Stamp | None:
    """The file's stamp now, or None when it cannot be read."""
    try:
        return file_stamp(os.stat(path))
    except OSError:
        return None


@dataclass(frozen=True)
class Known:
    stamp: Stamp
    generation: int

    @property
    def size(self) -> int:
        return self.stamp[2]


_known: dict[str, Known] = {}
_lock = threading.Lock()
_generations = itertools.count(1)


def _key(path: Path | str) -> str:
    return os.path.abspath(path)


def file_known(path: Path) -> Known | None:
    """What this process knows of the file as it is now (one stat), or None: read it whole."""
    key = _key(path)
    with _lock:
        known = _known.get(key)
    if known is None:
        return None
    return known if path_stamp(path) == known.stamp else None


def read_started() -> int:
    """The time a whole read starts (give it to file_read_whole)."""
    return time.time_ns()


def file_read_whole(path: Path, *, stamp: Stamp, started: int) -> int | None:
    """The file was read whole from `started` on, its stamp `stamp` before the read: it is
    known now if its stamp is still that one and old enough. Its generation, or None."""
    key = _key(path)
    after = path_stamp(path)
    with _lock:
        if after != stamp or stamp[4] + TICK_NS > started:
            _known.pop(key, None)
            return None
        known = _known.get(key)
        if known is None or known.stamp != stamp:
            known = Known(stamp, next(_generations))
            _known.pop(key, None)
            while len(_known) >= KNOWN_FILES:
                _known.pop(next(iter(_known)))
            _known[key] = known
        return known.generation


def file_forget(path: Path) -> None:
    with _lock:
        _known.pop(_key(path), None)


class AppendWatch:
    """This process's appends to a file through one handle: `before()` ahead of each write,
    `after()` once it is written, `done()` at the end. The file stays known when it was known
    as the first write began and each write began on the stamp the previous one left."""

    def __init__(self, path: Path, handle) -> None:
        self.key = _key(path)
        with _lock:
            self.known = _known.get(self.key)
        self.last: Stamp | None = self.known.stamp if self.known is not None else None
        self.broken = self.known is None
        self.handle = handle

    def _stamp(self) -> Stamp | None:
        try:
            return file_stamp(os.fstat(self.handle.fileno()))
        except (OSError, ValueError):
            return None

    def before(self) -> None:
        if not self.broken and self._stamp() != self.last:
            self.lose()

    def after(self) -> None:
        """The write is done: the file is known with the stamp it left (a page reading while a
        reply streams reads only past the lines it parsed)."""
        if self.broken:
            return
        self.last = self._stamp()
        with _lock:
            if self.last is None or _known.get(self.key) is not self.known:
                self.broken = True
                _known.pop(self.key, None)
                return
            self.known = _known[self.key] = Known(self.last, self._generation_next())

    def _generation_next(self) -> int:
        """An append keeps what was parsed: the generation stays."""
        return self.known.generation

    def lose(self) -> None:
        """A write failed or found the file changed: no longer known."""
        self.broken = True
        with _lock:
            if _known.get(self.key) is self.known:
                _known.pop(self.key, None)

    def done(self) -> None:
        if self.broken:
            self.lose()


class RewriteWatch(AppendWatch):
    """This process's rewrite of a file's tail through one handle (one write, then `done()`):
    the file stays known, under a new generation, when it was known as the write began and
    still had the stamp it was known by. `generation`: the new one, or None."""

    generation: int | None = None

    def _generation_next(self) -> int:
        self.generation = next(_generations)
        return self.generation
