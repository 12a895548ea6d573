"""An export that runs in a real export worker until the test lets it end: the job a test
hands the real pool in place of `_exported` (chat/import_export/export_process.py), so which
export holds which worker can be watched without timing anything. Importable by the spawned
worker (it gets the test process's sys.path)."""

from __future__ import annotations

import os
import time
from pathlib import Path

WAIT_AT_MOST = 300.0  # a worker never left running when a test fails before letting it end


def gated_export(instance_id: str, gate_dir: str, fmt: str,
                 character: str | None) -> tuple[bytes, str]:
    """In the worker: says it started (`<instance_id>.started`, holding the worker's pid),
    then waits for `<instance_id>.go`. The session id carries the gates' folder."""
    gates = Path(gate_dir)
    # Renamed into place: a test that sees the file reads the whole pid (written in place, it
    # was once read empty under load).
    part = gates / f"{instance_id}.started.part"
    part.write_text(str(os.getpid()), encoding="ascii")
    part.rename(gates / f"{instance_id}.started")
    deadline = time.monotonic() + WAIT_AT_MOST
    while not (gates / f"{instance_id}.go").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return instance_id.encode(), "text/plain"


def started(gate_dir: Path, names: list[str], *, count: int,
            wait_at_most: float = WAIT_AT_MOST) -> set[str]:
    """The names among `names` whose export started, once at least `count` did."""
    deadline = time.monotonic() + wait_at_most
    while True:
        found = {name for name in names if (gate_dir / f"{name}.started").exists()}
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def let_end(gate_dir: Path, name: str) -> None:
    (gate_dir / f"{name}.go").touch()
