"""The interpreter's cyclic garbage collector run less often in the test processes and the
browser tests' Daphnes (issue 31): at Python's default (a young collection every 700 new
objects) it took 6 % of a pytest worker's CPU and 9 % of a test Daphne's, the two largest
Python users of the suite's two cores; at 20,000 the unit tests' workers spent 10 % less.
What the tests check does not depend on when cycles are freed."""

from __future__ import annotations

import gc
import sys

GC_THRESHOLD = (20_000, 20, 50)


def collector_relaxed() -> None:
    gc.set_threshold(*GC_THRESHOLD)


def daphne_command(port: int) -> list[str]:
    """`python -m daphne` on `port`, its collector relaxed first."""
    start = (f"import gc; gc.set_threshold{GC_THRESHOLD}; "
             "from daphne.cli import CommandLineInterface; CommandLineInterface.entrypoint()")
    return [sys.executable, "-c", start, "-b", "127.0.0.1", "-p", str(port),
            "personalab.asgi:application"]
