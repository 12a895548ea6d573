"""How a card's loosely typed JSON values read: text as SillyTavern's JavaScript would write
it, lists of text, optional objects; anything else is refused naming the field."""

from __future__ import annotations

import unicodedata
from typing import Any

from library.errors import CardError
from library.fields import MAX_TAG_CHARS, MAX_TAGS, TAG_PARTS_MAX


def card_text(value: Any, field: str) -> str:
    """A card's text field: null is empty, a number or true/false is written as SillyTavern's
    JavaScript would write it, an object or a list is refused naming the field."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)
    raise CardError(f"card JSON is invalid: field '{field}' must be text", f"data.{field}")


def card_text_list(value: Any, field: str) -> list[str]:
    """A list of text: an empty value of any type is none, one text is a list of it (tags
    are split on commas, as SillyTavern's tag box does), null items are dropped; a number or
    an object is refused naming the field."""
    if field == "tags" and (value.count(",") if isinstance(value, str) else len(value)
                            if isinstance(value, list) else 0) >= TAG_PARTS_MAX:
        # A 10 MB card's "a,a,a…" was 5 million tags, each checked and the card copied with
        # them (2.8 s of CPU on a thread every page shares) before the save refused them.
        raise CardError(f"card JSON is invalid: tags: at most {MAX_TAGS} tags of at most "
                        f"{MAX_TAG_CHARS} characters each", "data.tags")
    if isinstance(value, str):
        parts = [part.strip() for part in value.split(",")] if field == "tags" else [value]
        return [part for part in parts if part.strip()]
    if not value and not isinstance(value, float):
        return []
    if not isinstance(value, list):
        raise CardError(f"card JSON is invalid: field '{field}' must be a list of text",
                        f"data.{field}")
    return [card_text(item, f"{field}[{index}]") for index, item in enumerate(value)
            if item is not None]


def card_object_or_none(value: Any, field: str, message: str) -> dict[str, Any] | None:
    """An object field: an empty value of another type ([], "", 0, false) is missing."""
    if isinstance(value, dict):
        return value
    if value is None or value in ([], "", False):
        return None
    raise CardError(f"card JSON is invalid: {message}", f"data.{field}")


# SillyTavern's tag import (tags.js `handleTagImport`), whose question's "Import" (its
# default) takes them all: trimmed, empty ones and its own "ROOT" / "TAVERN" left out, the
# first 15 only ("anti-troll"), one tag per name whatever its case and accents.
IMPORT_EXCLUDED_TAGS = ("ROOT", "TAVERN")
IMPORT_TAGS_MAX = 15


def _tag_folded(tag: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", tag.casefold())
                   if not unicodedata.combining(c))


def card_tags_imported(tags: list[str]) -> list[str]:
    """The tags a card gives its character, as SillyTavern's import gives them."""
    kept = [tag.strip() for tag in tags if isinstance(tag, str) and tag.strip()]
    kept = [tag for tag in kept if tag not in IMPORT_EXCLUDED_TAGS][:IMPORT_TAGS_MAX]
    found: dict[str, str] = {}
    for tag in kept:
        found.setdefault(_tag_folded(tag), tag)
    return list(found.values())

