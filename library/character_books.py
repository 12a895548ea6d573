"""The books a SillyTavern settings.json links to characters besides their own world
(`world_info.charLore`: `[{"name": "<avatar file>", "extraBooks": [names]}]`, the character
panel's "Additional lorebooks"), which SillyTavern reads as that character's lore in every
chat with it (`getCharacterLore`). Given here, each becomes a book linked to the account's own
character of that name (SillyTavern names a character's avatar file after it)."""

from __future__ import annotations

from typing import Any

from library.character_services import character_save
from library.lore.st_settings import settings_world_info
from library.models import Character
from library.selectors import lorebooks_named
from personalab.lib.filestore.store import FileStore

LINKS_MAX = 1000
NAME_SHOWN_CHARS = 200


def char_lore_links(data: bytes) -> list[tuple[str, list[str]]]:
    """(avatar file name, book names) for each character settings.json gives extra books."""
    world_info = settings_world_info(data).get("world_info")
    char_lore = world_info.get("charLore") if isinstance(world_info, dict) else None
    links = []
    for item in char_lore if isinstance(char_lore, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        books = item.get("extraBooks") if isinstance(item.get("extraBooks"), list) else []
        names = list(dict.fromkeys(b.strip() for b in books if isinstance(b, str) and b.strip()))
        if names:
            links.append((item["name"], names))
    return links[:LINKS_MAX]


def _stem(avatar: str) -> str:
    return avatar[:-4] if avatar.lower().endswith(".png") else avatar


def _shown(name: str) -> str:
    return name if len(name) <= NAME_SHOWN_CHARS else name[:NAME_SHOWN_CHARS - 1] + "…"


def character_books_from_settings(store: FileStore, *, user, data: bytes) -> dict[str, Any]:
    """Each character's extra books added to the account's own character of that name (its
    avatar file's name), for each book name the book the account may read, its own first.
    Characters and books not found are listed; nothing linked before is taken away."""
    links = char_lore_links(data)
    named = lorebooks_named([book for _, books in links for book in books], user=user)
    own: dict[str, str] = {}
    for character_id, name in Character.objects.filter(owner=user).order_by(
            "character_id").values_list("character_id", "name"):
        own.setdefault(name, character_id)
    linked, missing_characters, missing_books = [], [], []
    for avatar, books in links:
        character_id = own.get(_stem(avatar))
        if character_id is None:
            missing_characters.append(_shown(avatar))
            continue
        missing_books += [_shown(book) for book in books if book not in named]
        definition = store.character_read(character_id)
        current = [i for i in definition.get("lorebook_ids") or [] if isinstance(i, str)]
        ids = list(dict.fromkeys([*current, *(named[b] for b in books if b in named)]))
        if ids != current:
            character_save(store, data={**definition, "lorebook_ids": ids},
                           character_id=character_id, user=user)
        linked.append({"character_id": character_id, "name": definition.get("name", ""),
                       "lorebook_ids": ids})
    return {"linked": linked, "missing_characters": missing_characters,
            "missing_books": list(dict.fromkeys(missing_books))}
