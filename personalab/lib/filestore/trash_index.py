"""What `data/trash/<kind>/` holds, found without listing it at every request. The trash keeps
every account's deletes for ever (`<id>.<stamp>` folders), and every create listed it whole to
check its new id, as did the library's restore offer: at 50,000 kept folders 50 ms of CPU per
create and 76 ms per look-up, for every account (red team, 2026-12-02, fourth pass)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

_lock = threading.Lock()
_spent: dict[str, frozenset[str]] = {}
_kept: dict[str, tuple[tuple[int, int], dict[str, list[str]]]] = {}


def trash_spent_before(trash: Path) -> frozenset[str]:
    """The ids with files in `trash` when this process first asked. An id deleted before a
    delete kept its folder (trash.py `move_aside`) is among them, and it is the only kind a
    create must look up here: any delete since leaves the id's folder as its claim. So the
    trash is read once per process, not at every create."""
    key = str(trash)
    with _lock:
        spent = _spent.get(key)
    if spent is None:
        spent = frozenset(_listed(trash).values())
        with _lock:
            spent = _spent.setdefault(key, spent)
    return spent


def trash_kept_names(trash: Path, item_id: str) -> list[str]:
    """The names of the folders a delete kept for `item_id` (`<id>.<stamp>`), oldest first; the
    trash is listed again only when it changed (its mtime or link count)."""
    try:
        stat = os.stat(trash)
    except FileNotFoundError:
        return []
    key, stamp = str(trash), (stat.st_mtime_ns, stat.st_nlink)
    with _lock:
        hit = _kept.get(key)
    if hit is None or hit[0] != stamp:
        by_id: dict[str, list[str]] = {}
        for name, kept_id in _listed(trash).items():
            by_id.setdefault(kept_id, []).append(name)
        hit = (stamp, by_id)
        with _lock:
            _kept[key] = hit
    return sorted(name for name in hit[1].get(item_id, ())
                  if _stamped(name[len(item_id) + 1:]) and (trash / name).is_dir())


def _stamped(stamp: str) -> bool:
    return stamp.endswith("Z") and "." not in stamp


def _listed(trash: Path) -> dict[str, str]:
    """Entry name -> the id it kept (`<id>.<stamp>`)."""
    try:
        with os.scandir(trash) as entries:
            return {entry.name: entry.name.partition(".")[0] for entry in entries}
    except FileNotFoundError:
        return {}
