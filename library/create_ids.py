"""The id of a new library item. Ids are one namespace on disk, but which ids exist is not
something one account may learn about another's private items: an id asked for that holds an
item you cannot see is answered as if it were free — the item gets that id with a suffix
(`char_mira_2`), and the answer (201) names the id it got. An id you can see (yours, or a
shared one) still answers 409: create never overwrites (SPEC §10)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from library.errors import LibraryConflict, LibraryError
from library.quotas import library_room_check
from library.selectors import item_can_see
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import InvalidId, slug_candidates, suffixed_candidates, validate_id
from personalab.lib.store_errors import IdTaken, StoreError


def _visible(read: Callable[[str], dict[str, Any]], item_id: str, user) -> bool:
    """Whether `user` may see what holds `item_id`; a folder still being created (no file
    yet) or unreadable is nobody's to see. The system (user None) sees everything."""
    try:
        item = read(item_id)
    except (StoreError, ValueError, OSError):
        return user is None
    return user is None or item_can_see(item, user)


def _asked(data: dict[str, Any], key: str) -> str:
    try:
        return validate_id(data[key], kind=key.replace("_", " "))
    except InvalidId as exc:
        raise LibraryError(str(exc), {key: str(exc)}) from None


def id_claim(store: FileStore, data: dict[str, Any], *, key: str, prefix: str, name: str,
             kind: str, read: Callable[[str], dict[str, Any]], user) -> str:
    """Claims the new item's folder: create never overwrites, and two workers creating at
    once get two ids. Refused (LimitReached) when `user` owns as many as allowed."""
    library_room_check(kind=kind, user=user)
    if data.get(key) in (None, ""):
        return store.dir_claim(kind, slug_candidates(prefix, name))
    item_id = _asked(data, key)
    try:
        return store.dir_claim(kind, [item_id])
    except IdTaken:
        if _visible(read, item_id, user):
            raise LibraryConflict(f"{key.replace('_', ' ')} {item_id} already exists; "
                                  "choose another id or edit the existing one",
                                  field=key) from None
    return store.dir_claim(kind, suffixed_candidates(item_id))


def persona_id_claim(store: FileStore, *, asked: str | None, name: str, user) -> str:
    """The new persona's folder, claimed as `id_claim` claims an item's: the first id free
    when the persona was written was the slug of its name checked against a list read
    earlier, so two creates at once (another account's, or two tabs) got one id and the later
    write replaced the other's persona. An id asked for that the account can see is a 409."""
    library_room_check(kind="personas", user=user)
    if not asked:
        return store.dir_claim("personas", slug_candidates("persona", name))
    try:
        return store.dir_claim("personas", [asked])
    except IdTaken:
        if _visible(store.persona_read, asked, user):
            raise LibraryConflict(f"persona {asked} already exists") from None
    return store.dir_claim("personas", suffixed_candidates(asked))
