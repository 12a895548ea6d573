"""The owners of what the trash keeps, after the database is rebuilt from the files (`migrate &&
reindex`): a deleted item is offered back only to an account that existed when it was deleted
(library/trash.py `_owner_was_there`), and the accounts a rebuild recreates by name joined at
the rebuild, after every delete, so their deleted items were offered to no one though their
folders stayed on disk.

An account the rebuild recreates is the owner the files name (as for their live items,
library/index_rows.py `user_for_username`), so it is dated back to its first kept delete; on a
fresh database an owner only the trash names is recreated too. An account that existed before
the rebuild keeps its date: a newcomer given a deleted account's name still gets nothing of
it."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth import get_user_model

from library.index_rows import user_for_username
from personalab.lib.filestore.store import FileStore
from personalab.lib.filestore.trash import MARKERS
from personalab.lib.filestore.trash_purge import stamp_time


def trash_owners_rebuild(store: FileStore, *, accounts_before: set[str], fresh: bool) -> int:
    """Date back (and on a `fresh` database, recreate) the owners of the trash's restorable
    copies that were not among `accounts_before`; how many accounts changed."""
    User = get_user_model()
    created = set(User.objects.values_list("username", flat=True)) - accounts_before
    if not created and not fresh:
        return 0  # nothing recreated: no note needs reading
    changed = 0
    for username, deleted in _first_deletes(store).items():
        if username in accounts_before:
            continue
        user = User.objects.filter(username=username).first()
        if user is None and fresh:
            user = user_for_username(username)
        if user is not None and user.date_joined > deleted:
            user.date_joined = deleted
            user.save(update_fields=["date_joined"])
            changed += 1
    return changed


def _first_deletes(store: FileStore) -> dict[str, datetime]:
    """Each owner named by a restorable copy: when the first of them was deleted."""
    first: dict[str, datetime] = {}
    for kind in MARKERS:
        for kept in store.trash_listed(kind):
            owner = store.trash_note(kind, kept.path).get("owner")
            deleted = stamp_time(kept.stamp)
            if isinstance(owner, str) and owner and deleted is not None:
                first[owner] = min(first.get(owner, deleted), deleted)
    return first
