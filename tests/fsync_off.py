"""fsync off in the test processes and in the browser tests' servers, as tests/cluster.py runs
PostgreSQL (issue 31). An fsync only matters for a power cut, which no test makes, and every
test's folder is thrown away; a kill -9 keeps what was written without one (the page cache is the
kernel's), so the crash tests still test what they say. The kill -9 tests' own servers start as a
deployment does, with fsync on. What it saves is waiting, not CPU: under a whole run each fsync
waits for the file system's journal, and py-spy found the atomic writes blocked there for ~35 s
of the tests without a browser (the data folder's first write alone ~5 s)."""

from __future__ import annotations

import os


def fsync_off() -> None:
    os.fsync = _fsync_skipped


def _fsync_skipped(fd: int) -> None:
    """Nothing: what was written stays in the kernel's page cache."""
