"""The order `--dist loadfile` hands test files to its workers: the heaviest first.

A heavy file handed out last leaves one core idle while the other finishes it (issue 31), so the
files go out by their seconds in a recent run of the suite (tests/durations.json, written by
bench/test_durations.py), longest first; a file not measured yet counts as a browser file's
median when it is a browser or scale file, else as nothing. In three blocks, each longest first:
the heavy files without a browser, the browser files, the rest. A worker closes its Chromium
before a test outside tests/e2e and launches it again for the next browser file (tests/browser.py,
about 2 s of CPU), so the browser files go out together, not between the others. A file's tests
stay together and in their order. Every worker computes the same order, as xdist requires.
"""

from __future__ import annotations

import json
from pathlib import Path

DURATIONS_PATH = Path(__file__).resolve().parent / "durations.json"
SLOW_FOLDERS = ("tests/e2e/", "tests/scale/")
BROWSER_FOLDER = "tests/e2e/"
UNMEASURED_SLOW_SECONDS = 15.0  # about a browser file's median
HEAVY_SECONDS = 20.0  # a file without a browser this long goes before the browser files


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


def file_order_key(path: str, durations: dict[str, float]) -> tuple[int, float]:
    weight = file_weight(path, durations)
    block = 1 if path.startswith(BROWSER_FOLDER) else 0 if weight >= HEAVY_SECONDS else 2
    return block, -weight
