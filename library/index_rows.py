"""The database rows that index the library's files (characters, backgrounds, lorebooks,
personas): written from the file after every change, and by `reindex` on a fresh database."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from library.models import Background, Character, Lorebook, Persona
from library.selectors import visibility_of
from personalab.lib.filestore.store import FileStore


def user_for_username(username: str | None):
    """The account a file names as its owner; reindex on a fresh database recreates it
    (without a usable password) so ownership survives."""
    if not username:
        return None
    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save()
    return user

def index_owner(item: dict[str, Any]) -> dict[str, Any]:
    return {"owner": user_for_username(item.get("owner")), "visibility": visibility_of(item)}

def index_fitted(model, field: str, text: str) -> str:
    """Index text cut to its column (PostgreSQL refuses longer); the file keeps it whole."""
    return text[:model._meta.get_field(field).max_length]


def character_index(store: FileStore, character_id: str) -> Character:
    definition = store.character_read(character_id)
    tags = ", ".join(str(tag) for tag in definition.get("tags", []))
    row, _ = Character.objects.update_or_create(
        character_id=character_id,
        defaults={"name": index_fitted(Character, "name", definition.get("name", character_id)),
                  "tags": index_fitted(Character, "tags", tags),
                  **index_owner(definition)},
    )
    return row

def background_index(store: FileStore, background_id: str) -> Background:
    background = store.background_read(background_id)
    row, _ = Background.objects.update_or_create(
        background_id=background_id,
        defaults={"name": background.get("name", background_id),
                  "outline_length": len(background.get("story_outline", [])),
                  **index_owner(background)},
    )
    return row

def lorebook_index(store: FileStore, lorebook_id: str) -> Lorebook:
    lorebook = store.lorebook_read(lorebook_id)
    row, _ = Lorebook.objects.update_or_create(
        lorebook_id=lorebook_id,
        defaults={"name": index_fitted(Lorebook, "name", lorebook.get("name", lorebook_id)),
                  "entry_count": len(lorebook.get("entries", [])),
                  **index_owner(lorebook)},
    )
    return row

def persona_index(store: FileStore, persona_id: str) -> Persona:
    persona = store.persona_read(persona_id)
    row, _ = Persona.objects.update_or_create(
        persona_id=persona_id,
        defaults={"name": persona.get("name") or persona_id,
                  "owner": user_for_username(persona.get("owner")),
                  "visibility": persona.get("visibility", "private"),
                  "is_default": bool(persona.get("default"))},
    )
    return row
