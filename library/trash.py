"""Deleted characters, backgrounds, lorebooks and personas: what an account may bring back
(its own; staff: any) and bringing one back, for the library's pages and the REST API alike.

A delete keeps the item's files in data/trash/ and its emptied folder keeps the id
(personalab/lib/filestore/trash.py), so a restore puts the files back under the same id, the
index row is written again and the item is as it was. A restore is refused while a live item
holds the id (a restore done already, in another tab), and for a persona while the account
has a live one of the same name (the name is what `{{user}}` and SillyTavern know it by)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_noop

from library.errors import LibraryConflict, LibraryNotFound
from library.index_rows import background_index, character_index, lorebook_index, persona_index
from library.lore.vector_store import vectors_request
from library.lore.vectors import vectorized_texts
from library.models import Persona
from library.quotas import library_room_check
from library.selectors import item_can_change
from personalab.lib.filestore.store import FileStore
from personalab.lib.filestore.trash import Kept
from personalab.lib.store_errors import StoreError

KINDS = ("character", "background", "lorebook", "persona")
INDEX: dict[str, Callable[[FileStore, str], Any]] = {
    "character": character_index, "background": background_index,
    "lorebook": lorebook_index, "persona": persona_index}
LISTED_MAX = 200  # an account's, per kind, the latest deleted first; older ones stay in data/trash/

NOT_IN_TRASH = gettext_noop("%(kind)s '%(id)s' is not in the trash")
ID_LIVE = gettext_noop("A %(kind)s with the id '%(id)s' is live again (restored already?): "
                       "the deleted one stays in the trash.")
NAME_TAKEN = gettext_noop("You already have a persona named “%(name)s”: rename it first, then "
                          "restore the deleted one.")


class RestoreRefused(LibraryConflict):
    """A restore something live stands in the way of; `words` and `values` say it again in
    the reader's language."""

    def __init__(self, words: str, values: dict[str, str]):
        super().__init__(words % values, field=None)
        self.words, self.values = words, values


def trash_listed(store: FileStore, *, user, kind: str | None = None) -> list[dict[str, Any]]:
    """The deleted items `user` may restore (theirs; staff: all), the latest deleted first:
    kind, id, name, owner and when deleted (None for a delete from before this was noted)."""
    listed = []
    for each in (kind,) if kind else KINDS:
        folders = f"{each}s"
        mine = store.trash_listed(folders, keep=_mine(store, folders, user), limit=LISTED_MAX)
        listed.extend(_shown(each, kept, store.trash_note(folders, kept.path)) for kept in mine)
    return listed


def _mine(store: FileStore, folders: str, user) -> Callable[[str], bool]:
    """Whether a kept copy (its folder) is one `user` may restore, read from its note."""
    joined: dict[str, datetime | None] = {}  # each owner's account asked for once a listing

    def keep(path: str) -> bool:
        note = store.trash_note(folders, path)
        return item_can_change(note, user) and _owner_was_there(note, Path(path), joined=joined)
    return keep


def trash_offered(store: FileStore, *, kind: str, item_id: str, user) -> dict[str, Any] | None:
    """The item just deleted, while the trash holds it for `user` and nothing took its id:
    the note (owner, name, when) a page offers it back with; None otherwise."""
    kept = store.trash_kept(f"{kind}s", item_id)
    if kept is None or store.item_live(f"{kind}s", item_id):
        return None
    note = store.trash_note(f"{kind}s", kept)
    return note if item_can_change(note, user) and _owner_was_there(note, kept) else None


def _shown(kind: str, kept: Kept, note: dict[str, Any]) -> dict[str, Any]:
    name = note.get("name")
    return {"kind": kind, "id": kept.item_id,
            "name": name if isinstance(name, str) and name else kept.item_id,
            "owner": note.get("owner"), "deleted_at": note.get("deleted_at")}


def item_restore(store: FileStore, *, kind: str, item_id: str, user) -> dict[str, Any]:
    """The item `user` deleted (or staff: anyone's) back from the trash, as it was; its kind,
    id and name. Another account's is not found, as it would be live."""
    folders = f"{kind}s"
    kept = store.trash_kept(folders, item_id)
    item = _kept_item(store, folders, kept) if kept is not None else None
    if item is None or not item_can_change(item, user) or not _owner_was_there(item, kept):
        raise LibraryNotFound(NOT_IN_TRASH % {"kind": kind, "id": item_id})
    if store.item_live(folders, item_id):
        raise RestoreRefused(ID_LIVE, {"kind": kind, "id": item_id})
    name = item.get("name") if isinstance(item.get("name"), str) else ""
    if kind == "persona":
        _persona_name_free(item, name)
    if item.get("owner") == user.get_username():
        library_room_check(kind=folders, user=user)
    if not store.trash_restore(folders, kept):
        raise RestoreRefused(ID_LIVE, {"kind": kind, "id": item_id})
    _restored_fix(store, kind, item_id, item)
    INDEX[kind](store, item_id)
    return {"kind": kind, "id": item_id, "name": name or item_id}


def _owner_was_there(item: dict[str, Any], kept: Path, *,
                     joined: dict[str, datetime | None] | None = None) -> bool:
    """The trash names the owner by username only, and an account that owns nothing (its
    items deleted) may be deleted or renamed and its name given again: the owner must be an
    account that existed when the item was deleted, so a newcomer of that name never sees or
    restores the old account's private things."""
    owner = item.get("owner")
    if not owner:
        return True
    try:  # the stamp the delete named the kept folder with
        deleted = datetime.strptime(kept.name.partition(".")[2].removesuffix(".restoring"),
                                    "%Y%m%dT%H%M%S%fZ").replace(tzinfo=UTC)
    except ValueError:
        return False
    joined = {} if joined is None else joined
    if owner not in joined:  # usernames are unique: the one account of that name, if any
        joined[owner] = get_user_model().objects.filter(username=owner).values_list(
            "date_joined", flat=True).first()
    return joined[owner] is not None and joined[owner] <= deleted


def _kept_item(store: FileStore, folders: str, kept) -> dict[str, Any] | None:
    try:
        item = store.trash_item_read(folders, kept)
    except (StoreError, ValueError):
        return None
    return item if isinstance(item, dict) else None


def _persona_name_free(persona: dict[str, Any], name: str) -> None:
    if Persona.objects.filter(owner__username=persona.get("owner"), name=name).exists():
        raise RestoreRefused(NAME_TAKEN, {"name": name})


def _restored_fix(store: FileStore, kind: str, item_id: str, item: dict[str, Any]) -> None:
    """What the item's absence changed elsewhere: a persona that was the default comes back
    as one more while the account picked another since; a book's entries are embedded again
    (its delete dropped their vectors)."""
    if kind == "persona" and item.get("default") and Persona.objects.filter(
            owner__username=item.get("owner"), is_default=True).exists():
        store.persona_write(item_id, {**item, "default": False})
    if kind == "lorebook":
        vectors_request(store.root, vectorized_texts(
            item, limit=settings.PERSONALAB_LORE_VECTOR_ENTRIES_MAX), group=item_id)
