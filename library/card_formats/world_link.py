"""A card's world-info book by name (SillyTavern's `data.extensions.world`): an import links the
importer's own book of that name (library/selectors.py `lorebooks_named`); with none, it says
so, since SillyTavern would have read that book with the card."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

MAX_WORLD_NAME = 200  # a lorebook name is at most 200 characters
NAME_SHOWN_CHARS = 80


def card_world_name(card: Any) -> str | None:
    """The book name a card gives in `data.extensions.world`, or None."""
    data = card.get("data") if isinstance(card, dict) else None
    extensions = data.get("extensions") if isinstance(data, dict) else None
    name = extensions.get("world") if isinstance(extensions, dict) else None
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_WORLD_NAME:
        return None
    return name.strip()


def card_world_unlinked_said(character: dict[str, Any]) -> list[str]:
    """The import's warning, in the reader's language, when the card names a world book and no
    book was linked: the importer has no book of that name (another account's is never
    linked)."""
    name = card_world_name(character.get("card"))
    if name is None or character.get("lorebook_ids"):
        return []
    shown = name if len(name) <= NAME_SHOWN_CHARS else name[:NAME_SHOWN_CHARS - 1] + "…"
    return [gettext("This card reads the world info book “%(name)s”, and you have no book of "
                    "that name, so none is linked. Import that book, then tick it in the "
                    "character's editor.") % {"name": shown}]
