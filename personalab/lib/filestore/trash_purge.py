"""Emptying the trash (data/trash/{kind}/{id}.{stamp}/) of copies deleted before a given time,
so it does not grow for ever (docs/decisions/trash-retention.md).

Each copy's age is the stamp its delete named it with (`move_aside`), never a note or a file
time, so a copy deleted after the cut-off is never touched. A copy is renamed out of the stamped
names before it is removed: a restore that renamed it first wins and the purge skips it, one
that comes after finds nothing (the copy was past keeping). The item's emptied folder stays (or
is made, for a delete from before folders were kept), so the id stays claimed once its files are
gone. Framework-free."""

from __future__ import annotations

import contextlib
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from personalab.lib.filestore.trash import MARKERS
from personalab.lib.ids import is_valid_id

STAMP = "%Y%m%dT%H%M%S%fZ"
PURGING = ".purging"  # a copy being removed: neither listed nor restored any more


def trash_purge(root: Path, *, before: datetime, dry_run: bool = False) -> list[str]:
    """Remove the kept copies deleted before `before` from the data folder `root`; the
    copies (as `{kind}/{id}.{stamp}`) removed, or with `dry_run` those that would be."""
    purged = []
    for kind in MARKERS:
        trash = root / "trash" / kind
        for name, item_id in _old_copies(trash, before=before):
            if dry_run or _copy_remove(trash / name, root / kind / item_id):
                purged.append(f"{kind}/{name}")
        if not dry_run:
            _leftovers_remove(trash)
    return purged


def _old_copies(trash: Path, *, before: datetime) -> list[tuple[str, str]]:
    try:
        with os.scandir(trash) as entries:
            names = [entry.name for entry in entries if entry.is_dir(follow_symlinks=False)]
    except FileNotFoundError:
        return []
    old = []
    for name in sorted(names):
        item_id, _, stamp = name.partition(".")
        deleted = stamp_time(stamp)
        if deleted is not None and deleted < before and is_valid_id(item_id):
            old.append((name, item_id))
    return old


def stamp_time(stamp: str) -> datetime | None:
    """When the copy named with `stamp` was deleted; None for any other name (a copy being
    restored or purged)."""
    try:
        return datetime.strptime(stamp, STAMP).replace(tzinfo=UTC)
    except ValueError:
        return None


def _copy_remove(kept: Path, folder: Path) -> bool:
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
    if not folder.is_dir():
        return False  # the id could not be kept claimed: its copy stays
    taking = kept.with_name(kept.name + PURGING)
    try:
        os.rename(kept, taking)
    except FileNotFoundError:  # a restore (or another worker's purge) took it first
        return False
    shutil.rmtree(taking, ignore_errors=True)
    return True


def _leftovers_remove(trash: Path) -> None:
    """Copies a purge renamed and was stopped before it removed them."""
    leftovers = []
    with contextlib.suppress(FileNotFoundError), os.scandir(trash) as entries:
        leftovers = [entry.path for entry in entries if entry.name.endswith(PURGING)]
    for path in leftovers:
        shutil.rmtree(path, ignore_errors=True)
