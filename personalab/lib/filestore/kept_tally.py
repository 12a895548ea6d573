"""Tallies of a session's older lines kept beside its file (`.{session}.jsonl.tally`), so a new
process carries on from them instead of parsing every line again (chat/groups/before_tally.py).

A cache, never the truth: each entry names the line index's (end, crc) of the last line it
covers, and its reader uses it only when the file still holds those bytes. The file is replaced
whole by rename, so a kill -9 leaves the old entries or the new ones; one that cannot be read is
no entry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from personalab.lib.atomic import write_bytes_atomic

KEPT_ENTRIES = 16  # a group's members, a persona or two changed since
_VERSION = 1


def kept_tally_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.tally")


def kept_tallies_read(path: Path) -> dict[str, dict[str, Any]]:
    """The entries kept beside session file `path`, by key; none when there are none or the
    file is not one this code wrote."""
    try:
        data = json.loads(kept_tally_path(path).read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != _VERSION:
        return {}
    entries = data.get("entries")
    return {key: entry for key, entry in entries.items() if isinstance(entry, dict)} \
        if isinstance(entries, dict) else {}


def kept_tally_write(path: Path, *, key: str, entry: dict[str, Any]) -> None:
    """`entry` kept under `key` beside session file `path`, the newest KEPT_ENTRIES kept. Not
    fsynced: a power cut may lose it, and the next turn tallies again."""
    entries = kept_tallies_read(path)
    entries.pop(key, None)
    entries[key] = entry
    kept = dict(list(entries.items())[-KEPT_ENTRIES:])
    write_bytes_atomic(kept_tally_path(path),
                       json.dumps({"version": _VERSION, "entries": kept}).encode(),
                       durable=False)


def kept_tally_drop(path: Path) -> None:
    kept_tally_path(path).unlink(missing_ok=True)
