"""How long this process has run, read from Linux's /proc: `make run`'s "ready (N s)" counts
Python's and Django's start too, which a newcomer waited through (7-9 s of a 16 s first start
on a busy two-core machine) and the figure left out."""

from __future__ import annotations

import os
from pathlib import Path


def process_age_seconds() -> float | None:
    """Seconds since this process started; None where /proc does not say (not Linux)."""
    try:
        stat = Path("/proc/self/stat").read_text()
        uptime = Path("/proc/uptime").read_text()
        ticks = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return None
    return age_from_proc(stat=stat, uptime=uptime, ticks=ticks)


def age_from_proc(*, stat: str, uptime: str, ticks: int) -> float | None:
    """From /proc/self/stat's field 22 (start time, clock ticks after boot) and /proc/uptime.
    The fields are counted after the command's name, which is in parentheses and may hold
    spaces and parentheses of its own."""
    try:
        start = int(stat.rsplit(")", 1)[1].split()[19]) / ticks
        return max(0.0, float(uptime.split()[0]) - start)
    except (IndexError, ValueError, ZeroDivisionError):
        return None
