"""Lorebook actions for the REST API: create (never overwrites), change, delete, import and
export. The file is written first, then the index row; the owner is recorded in the file."""

from __future__ import annotations

import json
from typing import Any

from library.cards import CardError, lorebook_to_character_book
from library.errors import LibraryError
from library.selectors import lorebook_for_edit, lorebooks_visible_to
from library.services import lorebook_save
from library.worldinfo_files import lorebook_file_read, lorebook_to_st_world
from personalab.lib.filestore import FileStore, StoreError
from personalab.lib.nesting import TooDeep, json_loads_bounded

MAX_LOREBOOK_BYTES = 10 * 1024 * 1024
SERVER_FIELDS = ("lorebook_id", "owner")


def lorebooks_listed(store: FileStore, *, user) -> list[dict[str, Any]]:
    books = []
    for row in lorebooks_visible_to(user=user):
        try:
            books.append({**store.lorebook_read(row.lorebook_id), "lorebook_id": row.lorebook_id})
        except (StoreError, ValueError):
            continue
    return books


def lorebook_create(store: FileStore, *, owner, data: dict[str, Any],
                    imported: bool = False) -> str:
    """A new lorebook owned by `owner`; an existing `lorebook_id` is a 409, never overwritten."""
    return lorebook_save(store, data={k: v for k, v in data.items() if k != "owner"}, user=owner,
                         imported=imported)


def lorebook_update(store: FileStore, *, actor, lorebook_id: str, data: dict[str, Any]) -> None:
    """A whole lorebook replaces the old one; the owner stays (only owner or staff)."""
    clean = {k: v for k, v in data.items() if k not in SERVER_FIELDS}
    lorebook_save(store, data=clean, lorebook_id=lorebook_id, user=actor)


def lorebook_remove(store: FileStore, *, actor, lorebook_id: str) -> None:
    """Moved aside under data/trash/lorebooks/, never destroyed."""
    from library.models import Lorebook

    lorebook_for_edit(store, user=actor, lorebook_id=lorebook_id)
    store.lorebook_delete(lorebook_id)
    Lorebook.objects.filter(lorebook_id=lorebook_id).delete()


def lorebook_import(store: FileStore, *, owner, data: bytes, filename: str) -> str:
    """A SillyTavern world-info JSON, a card's character_book or a card JSON with one."""
    if len(data) > MAX_LOREBOOK_BYTES:
        raise LibraryError("file is larger than 10 MB", {"file": "at most 10 MB"})
    try:
        parsed = json_loads_bounded(data.decode("utf-8-sig"))
        name = filename.rsplit("/", 1)[-1].removesuffix(".json") or "Imported lorebook"
        lorebook = lorebook_file_read(parsed, fallback_name=name)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LibraryError(f"file is not JSON: {exc}", {"file": "not JSON"}) from None
    except TooDeep as exc:
        raise LibraryError(f"file is refused: {exc}", {"file": str(exc)}) from None
    except CardError as exc:
        raise LibraryError(str(exc), {"file": str(exc)}) from None
    return lorebook_create(store, owner=owner, data=lorebook, imported=True)


def lorebook_export(lorebook: dict[str, Any], *, fmt: str) -> dict[str, Any]:
    """`st`: a SillyTavern world-info file; `card`: a card's character_book."""
    clean = {k: v for k, v in lorebook.items() if k not in (*SERVER_FIELDS, "visibility")}
    if fmt == "st":
        return lorebook_to_st_world(clean)
    if fmt == "card":
        book = lorebook_to_character_book({k: v for k, v in clean.items() if k != "st_extra"})
        for entry in book["entries"]:
            entry.pop("st_extra", None)
        return book
    raise LibraryError("format must be st or card", {"format": "st or card"})
