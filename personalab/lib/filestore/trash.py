"""The trash (data/trash/{kind}/{id}.{stamp}/): a deleted library item's files, kept while its
emptied folder keeps the id claimed, listed, and brought back.

Framework-free. Beside the files, a small note (who owned the item, its name, when it went)
lets the trash be listed per account without reading every kept file; a copy kept before the
note existed is read from its own file instead."""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from personalab.lib.filestore.jsonfile import read_json, write_json_atomic
from personalab.lib.filestore.trash_index import trash_kept_names
from personalab.lib.ids import is_valid_id
from personalab.lib.store_errors import StoreError

# The file that holds each kind's item: what a kept copy is read from and restored with.
MARKERS = {"characters": "definition.json", "backgrounds": "background.json",
           "lorebooks": "lorebook.json", "personas": "persona.json"}
NOTE = ".trashed.json"  # a dot name: no item file is called so, and it never goes back
RESTORING = ".restoring"  # a kept copy being brought back: no second restore takes it too


@dataclass(frozen=True)
class Kept:
    """One deleted item's newest kept copy."""

    item_id: str
    path: Path
    stamp: str


def move_aside(folder: Path, trash: Path, *, marker: str | None = None) -> None:
    """The item's files go to the trash; its folder stays, empty, so its id stays claimed
    (`dir_claim`). Files that still name the id (a character's or a chat's book, a chat's
    persona) must never reach whatever another account would make under it next. The files
    move rather than the folder, so no create can claim the id in between."""
    if not folder.exists():
        return
    trash.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    kept = trash / f"{folder.name}.{stamp}"
    kept.mkdir()
    for child in folder.iterdir():
        os.replace(child, kept / child.name)
    if marker is not None:
        _note_write(kept, marker)


def _note_write(kept: Path, marker: str) -> None:
    item = _item_read(kept / marker)
    note = {"owner": item.get("owner"), "name": item.get("name"),
            "deleted_at": datetime.now(UTC).isoformat(timespec="seconds")}
    with contextlib.suppress(OSError):  # the files are kept: the note only speeds the list
        write_json_atomic(kept / NOTE, note)


def _item_read(path: Path) -> dict[str, Any]:
    try:
        item = read_json(path, what=path.name)
    except (StoreError, ValueError, OSError):
        return {}
    return item if isinstance(item, dict) else {}


def _stamp_of(name: str, item_id: str) -> str | None:
    stamp = name[len(item_id) + 1:]
    return stamp if stamp.endswith("Z") and "." not in stamp else None


def kept_newest(trash: Path, item_id: str) -> Path | None:
    """The newest copy a delete kept of `item_id`, whatever now stands in its folder."""
    kept = trash_kept_names(trash, item_id)
    return trash / kept[-1] if kept else None


def kept_listed(trash: Path, folders: Path, *, keep: Callable[[str], bool] | None = None,
                limit: int | None = None) -> list[Kept]:
    """Each deleted item's newest kept copy whose folder is still empty (nothing made or
    restored under its id since), the latest deleted first, the first `limit` of them; `keep`
    (given the copy's folder: an account's own, read from the note) is asked before the item's
    folder is, so another account's thousands of deletes cost a name each, not a folder read
    each, and neither is asked of a copy older than the `limit` listed (staff's list of 30,000
    asked both of each, a query each, to show 200)."""
    if not trash.is_dir():
        return []
    newest: dict[str, tuple[str, str]] = {}
    with os.scandir(trash) as entries:
        for entry in entries:
            item_id, _, _ = entry.name.partition(".")
            stamp = _stamp_of(entry.name, item_id)
            if stamp and (item_id not in newest or newest[item_id][0] < stamp) \
                    and is_valid_id(item_id) and entry.is_dir():
                newest[item_id] = (stamp, entry.path)
    latest = sorted(newest.items(), key=lambda each: each[1][0], reverse=True)
    listed = (Kept(item_id, Path(path), stamp) for item_id, (stamp, path) in latest
              if (keep is None or keep(path)) and not folder_live(folders / item_id))
    return list(itertools.islice(listed, limit))


# A kept copy's note never changes once written (a restore renames the copy first), so each is
# read once per process; bounded, as an account can delete without end.
_NOTES: dict[str, dict[str, Any]] = {}
NOTES_REMEMBERED = 50_000


def kept_note(kept: Path | str, marker: str) -> dict[str, Any]:
    """Owner, name and when it was deleted; read from the item itself where no note was kept."""
    remembered = _NOTES.get(str(kept))
    if remembered is not None:
        return dict(remembered)  # callers may add to it; the remembered one stays as read
    kept = Path(kept)
    note = _item_read(kept / NOTE)
    if note:
        if len(_NOTES) >= NOTES_REMEMBERED:
            _NOTES.clear()
        _NOTES[str(kept)] = note
    else:  # not remembered: a delete under way writes its note last
        item = _item_read(kept / marker)
        note = {"owner": item.get("owner"), "name": item.get("name"), "deleted_at": None}
    return note


def folder_live(folder: Path) -> bool:
    """Whether the item's folder holds files (a live item), not just the claim of its id."""
    try:
        return any(folder.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return False


def kept_bring_back(kept: Path, folder: Path) -> bool:
    """The kept copy's files back in the item's folder; False when another restore took it
    first or the folder holds files again. The copy is renamed before anything moves, so two
    restores at once never mix their files; a crash in between leaves it under its new name in
    the trash (nothing is lost, and the id stays claimed)."""
    if folder_live(folder):
        return False
    taking = kept.with_name(kept.name + RESTORING)
    try:
        os.rename(kept, taking)
    except FileNotFoundError:
        return False
    folder.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        (taking / NOTE).unlink()
    for child in taking.iterdir():
        os.replace(child, folder / child.name)
    taking.rmdir()
    return True
