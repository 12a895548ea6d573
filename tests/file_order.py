"""The order `--dist loadfile` hands test files to its workers: the heaviest first.

A heavy file handed out last leaves one core idle while the other finishes it (issue 31), so the
files go out by their seconds in a recent run of the suite (tests/durations.json, written by
bench/test_durations.py), longest first; a file not measured yet goes with the other browser
and scale files (a server or a browser start each) when it is one, else after every measured
file. A file's tests stay together and in their order. Every worker computes the same order, as
xdist requires.
"""

from __future__ import annotations

import json
from pathlib import Path

DURATIONS_PATH = Path(__file__).resolve().parent / "durations.json"
SLOW_FOLDERS = ("tests/e2e/", "tests/scale/")
UNMEASURED_SLOW_SECONDS = 15.0  # about a browser file's median


def durations_read() -> dict[str, float]:
    try:
        found = json.loads(DURATIONS_PATH.read_text())
    except (OSError, ValueError):
        return {}
    return {path: float(seconds) for path, seconds in found.items()
            if isinstance(seconds, (int, float))} if isinstance(found, dict) else {}


def file_weight(path: str, durations: dict[str, float]) -> float:
    if path in durations:
        return durations[path]
    return UNMEASURED_SLOW_SECONDS if path.startswith(SLOW_FOLDERS) else 0.0
