"""How many threads each embedding engine runs on (PERSONALAB_EMBED_THREADS).

A module of its own so that memory.apps can hand the setting over at every process's start
without importing `engine`, whose graph builder imports onnx (and ml_dtypes): 1.4 s of CPU that
every `manage.py` command, server and test process paid before any embedding was asked for.
"""

from __future__ import annotations

import os

THREADS_DEFAULT = 2
THREADS = THREADS_DEFAULT  # PERSONALAB_EMBED_THREADS, set by memory.apps at start-up


def threads_setting() -> int:
    """PERSONALAB_EMBED_THREADS: threads of each embedding engine, 2 by default; 0 (or less)
    means one per core. A value that is not a number stops the server at start-up
    (personalab/settings.py)."""
    return THREADS if THREADS > 0 else max(1, os.cpu_count() or 1)
