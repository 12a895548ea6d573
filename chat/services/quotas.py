"""How many chats one account may start and how many sessions one chat may hold (settings:
PERSONALAB_INSTANCES_PER_ACCOUNT, PERSONALAB_SESSIONS_PER_INSTANCE; 0 for no limit). A
chat's archived sessions count: "delete" only moves them aside. The system (no owner) and a
summarize's own continuation (its turns are already in the chat) have no limit.

A new chat is counted twice, as a library item is (library/quotas.py): before anything is
written, and once its row is, one at a time for the account: chats started at once never pass
the limit, and as many as fit are kept."""

from __future__ import annotations

import shutil

from django.conf import settings

from chat.models import Instance
from library.quotas import account_creates_one_at_a_time
from personalab.lib.errors import LimitReached
from personalab.lib.filestore.store import FileStore


def instance_room_check(*, owner) -> None:
    """Raises LimitReached (403 `limit_reached`) when `owner` has as many chats as allowed."""
    limit = settings.PERSONALAB_INSTANCES_PER_ACCOUNT
    if owner is not None and limit and Instance.objects.filter(owner=owner).count() >= limit:
        raise LimitReached(kind="instances", limit=limit,
                           setting="PERSONALAB_INSTANCES_PER_ACCOUNT")


def instance_room_kept(store: FileStore, *, owner, instance_id: str) -> None:
    """Called once a new chat's row is written: when `owner` now has more chats than allowed
    (chats started at once that each passed `instance_room_check`), this one is removed
    outright (its folder and rows: nobody has seen it) and LimitReached raised."""
    limit = settings.PERSONALAB_INSTANCES_PER_ACCOUNT
    if owner is None or not limit:
        return
    with account_creates_one_at_a_time(owner):
        if Instance.objects.filter(owner=owner).count() <= limit:
            return
        Instance.objects.filter(instance_id=instance_id).delete()
    shutil.rmtree(store.instance_dir(instance_id), ignore_errors=True)
    raise LimitReached(kind="instances", limit=limit, setting="PERSONALAB_INSTANCES_PER_ACCOUNT")


def session_count(store: FileStore, instance_id: str) -> int:
    taken = set(store.session_ids(instance_id))
    archive = store.sessions_dir(instance_id) / "archive"
    if archive.is_dir():
        taken |= {path.name.split(".")[0] for path in archive.glob("*.jsonl")}
    return len(taken)


def session_room_check(store: FileStore, *, instance_id: str) -> None:
    """Raises LimitReached when the chat holds as many sessions as allowed."""
    limit = settings.PERSONALAB_SESSIONS_PER_INSTANCE
    if limit and session_count(store, instance_id) >= limit:
        raise LimitReached(kind="sessions", limit=limit,
                           setting="PERSONALAB_SESSIONS_PER_INSTANCE")
