"""Per-account slots for heavy actions (exports, imports): at most N at once per account.

A slot is an exclusive `flock` on one of N small files, so it holds across threads, processes
and workers on one machine and is given back by the kernel when a process dies (a crash never
leaves an account locked out). Framework-free: the caller passes the folder and the count.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from personalab.lib import errors


class Busy(errors.Busy):
    code, status = "busy", 429

    def __init__(self, what: str, slots: int):
        super().__init__(message=f"you already have {slots} {what} running; wait until one "
                                 "finishes, then try again")


def _slot_take(path: Path) -> int | None:
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


@contextlib.contextmanager
def busy_slot(folder: Path, *, account: str, action: str, slots: int,
              what: str) -> Iterator[None]:
    """Hold one of `slots` slots of `account` for `action`, or raise Busy (429) at once."""
    # Hashed: a username may hold characters a file name should not.
    key = hashlib.sha256(account.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    place = folder / action
    place.mkdir(parents=True, exist_ok=True)
    for number in range(max(slots, 1)):
        fd = _slot_take(place / f"{key}.{number}.lock")
        if fd is None:
            continue
        try:
            yield
        finally:
            os.close(fd)  # closing the only descriptor gives the flock back
        return
    raise Busy(what, max(slots, 1))
