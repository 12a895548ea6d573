"""Reads that decide what an account may see in the library."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from library.models import Persona
from library.services import LibraryNotFound
from personalab.lib.filestore import FileStore, StoreError
from personalab.lib.ids import is_valid_id

DEFAULT_USER_NAME = "User"


def personas_visible_to(*, user) -> QuerySet[Persona]:
    rows = Persona.objects.select_related("owner")
    return rows if user.is_staff else rows.filter(Q(owner=user) | Q(visibility="shared"))


def persona_for_user(*, user, persona_id: str) -> Persona:
    """Unknown and not-visible look the same."""
    row = (personas_visible_to(user=user).filter(persona_id=persona_id).first()
           if is_valid_id(persona_id) else None)
    if row is None:
        raise LibraryNotFound(f"persona {persona_id!r} not found")
    return row


def persona_effective(store: FileStore, *, owner: str | None,
                      persona_id: str | None) -> dict[str, Any]:
    """Who `{{user}}` is in an instance: the persona it picked, else the owner's default,
    else the name in the prompt settings with no description."""
    candidates = [persona_id] if persona_id else []
    if owner:
        candidates += list(Persona.objects.filter(owner__username=owner, is_default=True)
                           .values_list("persona_id", flat=True)[:1])
    for candidate in candidates:
        try:
            persona = store.persona_read(candidate)
        except (StoreError, ValueError):
            continue
        if persona.get("owner") != owner and persona.get("visibility") != "shared":
            continue
        return {"persona_id": candidate, "name": persona.get("name") or DEFAULT_USER_NAME,
                "description": persona.get("description", "")}
    name = store.module_read("prompt").get("user_name") or DEFAULT_USER_NAME
    return {"persona_id": None, "name": name, "description": ""}
