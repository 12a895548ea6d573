"""How many characters, backgrounds, lorebooks and personas one account may own (settings:
PERSONALAB_<KIND>_PER_ACCOUNT, 0 for no limit). Counted on the index rows; the system (no
user: seed, admin commands) has no limit.

A create asks twice: before it writes (`library_room_check`: nothing is written when the
account is full) and once its index row is written (`library_room_kept`). Creates at once
(two tabs, two workers) each pass the first; the second, one create of the account at a time
(a lock on the account's row where the database has one, and in the process), finds whether
the account is over its limit, and a create that is undoes itself before the next looks.
Never more than the limit, and creates at once that fit under it are kept: without the one at
a time, eight at once on two workers all counted eight rows and all undid themselves."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Model

from library.models import Background, Character, Lorebook, Persona
from personalab.lib.errors import LimitReached
from personalab.lib.filestore.store import FileStore

OWNED: dict[str, tuple[str, type[Model]]] = {
    "characters": ("PERSONALAB_CHARACTERS_PER_ACCOUNT", Character),
    "backgrounds": ("PERSONALAB_BACKGROUNDS_PER_ACCOUNT", Background),
    "lorebooks": ("PERSONALAB_LOREBOOKS_PER_ACCOUNT", Lorebook),
    "personas": ("PERSONALAB_PERSONAS_PER_ACCOUNT", Persona),
}
FOLDERS = {"characters": "character_dir", "backgrounds": "background_dir",
           "lorebooks": "lorebook_dir", "personas": "persona_dir"}
# One per account, re-entrant: a create may run inside (library/personas/services.py
# persona_first_named). One for every account made each request's thread wait for every
# other account's creates.
_kept_locks: dict[object, threading.RLock] = {}
_kept_locks_guard = threading.Lock()


def library_room_check(*, kind: str, user, adding: int = 1) -> None:
    """Raises LimitReached (403 `limit_reached`) when `user` may not own `adding` more of
    `kind`."""
    if user is None or kind not in OWNED:
        return
    setting, model = OWNED[kind]
    limit = getattr(settings, setting)
    if limit and model.objects.filter(owner=user).count() + adding > limit:
        raise LimitReached(kind=kind, limit=limit, setting=setting)


def library_room_kept(store: FileStore, *, kind: str, user, item_id: str) -> None:
    """Called by a create once the new item's index row is written: when the account now owns
    more of `kind` than allowed (creates at once that each passed `library_room_check`), the
    item is removed outright (file and row: it was never shown) and LimitReached raised."""
    if user is None or kind not in OWNED:
        return
    setting, model = OWNED[kind]
    limit = getattr(settings, setting)
    if not limit:
        return
    with account_creates_one_at_a_time(user):
        if model.objects.filter(owner=user).count() <= limit:
            return
        model.objects.filter(pk=item_id).delete()
    shutil.rmtree(getattr(store, FOLDERS[kind])(item_id), ignore_errors=True)
    raise LimitReached(kind=kind, limit=limit, setting=setting)


@contextmanager
def account_creates_one_at_a_time(user) -> Iterator[None]:
    """The account's creates (its library items, and its chats: chat/services/quotas.py) count
    and undo one after another: in this process by a lock, and across workers by a lock on the
    account's row (PostgreSQL's SELECT … FOR UPDATE, held until the undo is committed; SQLite
    serves from one process)."""
    with _account_lock(getattr(user, "pk", user)), transaction.atomic():
        if connection.features.has_select_for_update:
            list(get_user_model().objects.select_for_update().filter(pk=getattr(user, "pk", user))
                 .values_list("pk", flat=True))
        yield


def _account_lock(key: object) -> threading.RLock:
    with _kept_locks_guard:
        return _kept_locks.setdefault(key, threading.RLock())
