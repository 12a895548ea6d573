"""How many characters, backgrounds, lorebooks and personas one account may own (settings:
PERSONALAB_<KIND>_PER_ACCOUNT, 0 for no limit). Counted on the index rows; the system (no
user: seed, admin commands) has no limit.

A create asks twice: before it writes (`library_room_check`: nothing is written when the
account is full) and once its index row is written (`library_room_kept`). Creates at once
(two tabs, two workers) each pass the first; the second finds the account over its limit, and
a create that does undoes itself. Never more than the limit; two at the last free place may
both be refused, and a second try passes."""

from __future__ import annotations

import shutil

from django.conf import settings
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
    if not limit or model.objects.filter(owner=user).count() <= limit:
        return
    model.objects.filter(pk=item_id).delete()
    shutil.rmtree(getattr(store, FOLDERS[kind])(item_id), ignore_errors=True)
    raise LimitReached(kind=kind, limit=limit, setting=setting)
