"""The SillyTavern tags an account gave (tag id -> name, from its settings.json), kept so that
the account's later books, and "Name the SillyTavern tags" without a file, are named too.

One file per account, as its global variables are (personalab/lib/filestore/variables.py):

    st_tags/{digest of the username}.json   {"username": name, "tags": {id: name}}

read only for that account's own requests. A new settings.json merges over the list (its names
win); at most MAX_TAGS ids are kept, the oldest given dropped first; only ids of SillyTavern's
shape (ST_TAG_ID) with names of at most MAX_KEPT_NAME_CHARS are kept, so the file stays under
3 MB whatever was uploaded. Written atomically under the account's lock: two imports at once
each keep their tags.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from library.lore.character_filter import ST_TAG_ID
from library.lore.st_tags import MAX_TAGS
from personalab.lib.filestore.jsonfile import read_json, write_json_atomic
from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import StoreError

MAX_KEPT_NAME_CHARS = 200  # SillyTavern's tag names are a few words


def st_tags_kept_path(store: FileStore, *, username: str) -> Path:
    # A username may hold characters a file name must not: the file is named by its digest.
    digest = hashlib.sha256(username.encode("utf-8", "replace")).hexdigest()[:40]
    return store.root / "st_tags" / f"{digest}.json"


def st_tags_kept(store: FileStore, *, username: str | None) -> dict[str, str]:
    """The account's kept tag id -> name ({} when it gave none, or its file is unreadable)."""
    if not username:
        return {}
    try:
        found = read_json(st_tags_kept_path(store, username=username), what="SillyTavern tags")
    except StoreError:
        return {}
    if not isinstance(found, dict) or found.get("username") != username \
            or not isinstance(found.get("tags"), dict):
        return {}
    return dict(list(_keepable(found["tags"]).items())[-MAX_TAGS:])


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
    lock = store.lock_factory(path.with_name(f".{path.stem}.lock"), f"st-tags-{path.stem}")
    with lock.acquire(blocking=True):
        merged = st_tags_merged(st_tags_kept(store, username=username), given)
        write_json_atomic(path, {"username": username, "tags": merged})
    return merged


def _keepable(names: dict) -> dict[str, str]:
    return {tag: name for tag, name in names.items()
            if isinstance(tag, str) and isinstance(name, str) and ST_TAG_ID.fullmatch(tag)
            and 0 < len(name) <= MAX_KEPT_NAME_CHARS}
