"""The chats that play a character or background: the copies other accounts' chats keep when
its author makes it private or deletes it, and the chats a delete would break."""

from __future__ import annotations

import errno
from typing import Any

from library.chat_use import ChatRow, chat_titles, chats_playing
from library.errors import CopyNotKept, LibraryConflict
from library.selectors import visibility_of
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import InstanceBusy

SHOWN_CHATS = 5  # a refusal names at most this many chats, then says how many more


def chats_of_others(*, kind: str, item_id: str, owner: str | None) -> list[str]:
    """Instances of accounts other than the item's owner (and not staff, who read everything)
    that play it: as the story's character or background, or as a member of a group."""
    return sorted({row.instance_id for row in chats_playing(kind=kind, item_id=item_id)
                   if row.owner_id is not None and not row.owner_is_staff
                   and not (owner and row.owner_username == owner)})


def chat_copies_keep(store: FileStore, *, kind: str, item_id: str, item: dict[str, Any],
                     chats: list[str] | None = None) -> list[str]:
    """Another author's character/background is being made private or deleted: every chat of
    another account that plays it keeps `item` (the last version it could read) in its own
    folder, and plays that from now on. Called before the item's file changes, so a turn reads
    either the shared file or the copy. Under each instance's lock; a chat busy in a turn gets
    the copy all the same (one atomic write no other writer touches). Returns the instances.
    `chats`: those instances, when the caller has just looked them up."""
    if chats is None:
        chats = chats_of_others(kind=kind, item_id=item_id, owner=item.get("owner"))
    for instance_id in chats:
        try:
            lock = store.instance_lock(instance_id).acquire()
        except InstanceBusy:
            lock = None
        try:
            store.kept_copy_write(instance_id, kind, item_id, {**item, "kept_at": utc_now()})
        except OSError as exc:  # another account's instance id is not named
            refused = CopyNotKept(
                f"the {kind} was not changed: a chat of another account that uses it could not "
                f"keep its copy ({exc.strerror or exc}); nothing was changed, try again later")
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                refused.status = 500
            raise refused from exc
        finally:
            if lock is not None:
                lock.release()
    return chats


def chats_kept_apart(store: FileStore, item: dict[str, Any], *, kind: str,
                      item_id: str) -> list[str]:
    """Other accounts' chats that do not stop a delete: they keep a copy now (a shared item)
    or kept one when it was made private. A chat from before copies were kept has none and
    still holds the delete back: its author's text was never its to keep. Only an owned
    item's: a site item has no author to take it back."""
    if not item.get("owner"):
        return []
    chats = chats_of_others(kind=kind, item_id=item_id, owner=item["owner"])
    if visibility_of(item) == "shared":
        return chats
    return [instance_id for instance_id in chats
            if store.kept_copy_read(instance_id, kind, item_id) is not None]


def copies_keep_on_delete(store: FileStore, *, kind: str, item_id: str,
                           item: dict[str, Any], chats: list[str]) -> None:
    # A private item's text was never theirs to read: the copy kept when it was made
    # private stays as it is (a chat from before copies were kept has none and is refused).
    # `chats`: chats_kept_apart's, which for a shared item are every other account's chat.
    if item.get("owner") and visibility_of(item) == "shared":
        chat_copies_keep(store, kind=kind, item_id=item_id, item=item, chats=chats)


def copies_keep_on_change(store: FileStore, *, kind: str, item_id: str,
                           existing: dict[str, Any], changed: dict[str, Any]) -> None:
    if existing and visibility_of(existing) == "shared" and visibility_of(changed) == "private":
        chat_copies_keep(store, kind=kind, item_id=item_id, item=existing)

def users_named(chats: list[ChatRow], user) -> str:
    """The chats still using an item, as the refusal names them (by name and characters, as
    the player knows them): another account's chats are not this user's to learn, only how
    many there are."""
    rows = sorted((row.instance_id, row.owner_id) for row in chats)
    if user is None or user.is_staff:
        shown, others = [instance_id for instance_id, _ in rows], 0
    else:
        shown = [instance_id for instance_id, owner_id in rows if owner_id == user.pk]
        others = sum(1 for _, owner_id in rows if owner_id != user.pk)
    titles = chat_titles(shown[:SHOWN_CHATS])
    named = [titles[instance_id] for instance_id in shown[:SHOWN_CHATS]]
    if len(shown) > SHOWN_CHATS:
        named.append(f"{len(shown) - SHOWN_CHATS} more")
    return "; ".join(named + ([f"{others} of other accounts"] if others else []))


def chat_ids_shown(chats: list[ChatRow], user) -> list[str]:
    """The chats a refusal may name to `user` by id (theirs; staff: all), for API clients."""
    return sorted(row.instance_id for row in chats
                  if user is None or user.is_staff or row.owner_id == user.pk)


def chats_using(kind: str, item_id: str, apart: list[str]) -> list[ChatRow]:
    return [row for row in chats_playing(kind=kind, item_id=item_id, as_member=False)
            if row.instance_id not in apart]


def in_use_refusal(chats: list[ChatRow], user, *, what: str, advice: str) -> LibraryConflict:
    """The refusal of a delete while chats play the item, a sentence (`what` starts with a
    capital: "Character Mira"): the chats by the names their players know (ids only in
    `instance_ids`, for API clients, and only their own)."""
    refused = LibraryConflict(f"{what} is used by these chats: {users_named(chats, user)}; "
                              f"{advice}.", field=None)
    refused.extra = {"instance_ids": chat_ids_shown(chats, user)}
    return refused
