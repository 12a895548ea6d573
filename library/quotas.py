"""How many characters, backgrounds, lorebooks and personas one account may own (settings:
PERSONALAB_<KIND>_PER_ACCOUNT, 0 for no limit). Counted on the index rows; the system (no
user: seed, admin commands) has no limit. Two creates at once may both pass at the limit: the
limit bounds what an account can pile up, not an exact figure."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Model

from library.models import Background, Character, Lorebook, Persona
from personalab.lib.errors import LimitReached

OWNED: dict[str, tuple[str, type[Model]]] = {
    "characters": ("PERSONALAB_CHARACTERS_PER_ACCOUNT", Character),
    "backgrounds": ("PERSONALAB_BACKGROUNDS_PER_ACCOUNT", Background),
    "lorebooks": ("PERSONALAB_LOREBOOKS_PER_ACCOUNT", Lorebook),
    "personas": ("PERSONALAB_PERSONAS_PER_ACCOUNT", Persona),
}


def library_room_check(*, kind: str, user, adding: int = 1) -> None:
    """Raises LimitReached (403 `limit_reached`) when `user` may not own `adding` more of
    `kind`."""
    if user is None or kind not in OWNED:
        return
    setting, model = OWNED[kind]
    limit = getattr(settings, setting)
    if limit and model.objects.filter(owner=user).count() + adding > limit:
        raise LimitReached(kind=kind, limit=limit, setting=setting)
