"""The SillyTavern tags an account gave (tag id -> name, from its settings.json), kept so that
the account's later books, and "Name the SillyTavern tags" without a file, are named too.

One file per account, as its global variables are (personalab/lib/filestore/variables.py):

    st_tags/{digest of the username}.json   {"username": name, "tags": {id: name}}

read only for that account's own requests. A new settings.json merges over the list (its names
win); at most MAX_TAGS ids are kept, the oldest given dropped first; only ids of SillyTavern's
shape (ST_TAG_ID) with names of at most MAX_KEPT_NAME_CHARS are kept, so the file stays under
3 MB whatever was uploaded. Written atomically under the account's lock: two imports at once
each keep their tags. The account sees its list (st_tags_kept_read: a damaged file is a refusal
saying how to mend it, where naming reads it as empty) and forgets all or one of it
(st_tags_forget); forgetting touches no book: the names already written beside ids stay.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from library.errors import LibraryError, LibraryNotFound
from library.lore.character_filter import ST_TAG_ID
from library.lore.st_tags import MAX_TAGS
from personalab.lib.errors import Conflict
from personalab.lib.filestore.jsonfile import read_json, write_json_atomic
from personalab.lib.filestore.store import FileStore
from personalab.lib.locks import InstanceLock
from personalab.lib.shown import value_shown
from personalab.lib.store_errors import MissingFile, StoreError

MAX_KEPT_NAME_CHARS = 200  # SillyTavern's tag names are a few words


def st_tags_kept_path(store: FileStore, *, username: str) -> Path:
    # A username may hold characters a file name must not: the file is named by its digest.
    digest = hashlib.sha256(username.encode("utf-8", "replace")).hexdigest()[:40]
    return store.root / "st_tags" / f"{digest}.json"


class KeptTagsDamaged(LibraryError, Conflict):
    """The account's kept list cannot be read: naming goes on without it, and forgetting it
    (then giving the settings.json again) mends it."""

    code, status = "damaged", 409

    def __init__(self) -> None:
        super().__init__("your kept SillyTavern tag names cannot be read (the file is damaged): "
                         "forget them, then give your settings.json again")


def st_tags_kept_read(store: FileStore, *, username: str) -> dict[str, str]:
    """The account's kept tag id -> name, oldest given first ({} when it gave none); a damaged
    file is a KeptTagsDamaged."""
    try:
        found = read_json(st_tags_kept_path(store, username=username), what="SillyTavern tags")
    except MissingFile:
        return {}
    except StoreError:
        raise KeptTagsDamaged() from None
    if not isinstance(found, dict) or found.get("username") != username \
            or not isinstance(found.get("tags"), dict):
        raise KeptTagsDamaged()
    return dict(list(_keepable(found["tags"]).items())[-MAX_TAGS:])


def st_tags_kept(store: FileStore, *, username: str | None) -> dict[str, str]:
    """The account's kept tag id -> name ({} when it gave none, or its file is unreadable:
    a book is named as if nothing were kept)."""
    if not username:
        return {}
    try:
        return st_tags_kept_read(store, username=username)
    except KeptTagsDamaged:
        return {}


def st_tags_merged(kept: dict[str, str], given: dict[str, str]) -> dict[str, str]:
    """`given` over `kept` (its names win), the newest MAX_TAGS."""
    merged = {**{tag: name for tag, name in kept.items() if tag not in given}, **given}
    return dict(list(merged.items())[-MAX_TAGS:])


def st_tags_keep(store: FileStore, *, username: str, names: dict[str, str]) -> dict[str, str]:
    """The tags of a settings.json the account gave, merged over its kept list."""
    given = _keepable(names)
    if not given:
        return st_tags_kept(store, username=username)
    path = st_tags_kept_path(store, username=username)
    with _lock(store, path).acquire(blocking=True):
        merged = st_tags_merged(st_tags_kept(store, username=username), given)
        write_json_atomic(path, {"username": username, "tags": merged})
    return merged


def st_tags_forget(store: FileStore, *, username: str, tag_id: str | None = None) -> int:
    """Forget the account's kept names (`tag_id`: that one alone, a LibraryNotFound when it is
    not kept); how many were forgotten. A damaged list is forgotten whole (0: none could be
    read); one id of it is a KeptTagsDamaged. No other account's list and no book is touched."""
    path = st_tags_kept_path(store, username=username)
    if not path.exists():
        if tag_id is not None:
            raise _not_kept(tag_id)
        return 0
    with _lock(store, path).acquire(blocking=True):
        if tag_id is None:
            return _forget_all(store, path, username=username)
        kept = st_tags_kept_read(store, username=username)
        if kept.pop(tag_id, None) is None:
            raise _not_kept(tag_id)
        write_json_atomic(path, {"username": username, "tags": kept})
        return 1


def _forget_all(store: FileStore, path: Path, *, username: str) -> int:
    try:
        count = len(st_tags_kept_read(store, username=username))
    except KeptTagsDamaged:
        count = 0
    path.unlink(missing_ok=True)
    return count


def _not_kept(tag_id: str) -> LibraryNotFound:
    return LibraryNotFound(f"no SillyTavern tag name is kept for {value_shown(tag_id)}",
                           {"tag_id": "not kept"})


def _lock(store: FileStore, path: Path) -> InstanceLock:
    return store.lock_factory(path.with_name(f".{path.stem}.lock"), f"st-tags-{path.stem}")


def _keepable(names: dict) -> dict[str, str]:
    return {tag: name for tag, name in names.items()
            if isinstance(tag, str) and isinstance(name, str) and ST_TAG_ID.fullmatch(tag)
            and 0 < len(name) <= MAX_KEPT_NAME_CHARS}
