"""What the library page shows of each character: its picture (or a letter), its name and a line
that says who it is, so an author recognises a card without opening it. The line is made from
the character's file once and kept while the file stays the same (a card with a big book is
tens of KB of JSON: 100 of them cost ~110 ms of every library load; bench/library_page.py)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from library.avatars import avatar_file
from library.models import Character
from personalab.lib import letter_colours
from personalab.lib.filestore.cache import FileParseCache
from personalab.lib.filestore.jsonfile import read_json
from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import StoreError

BLURB_CHARS = 140


def character_tiles(store: FileStore, *, characters: Iterable[Character]) -> list[dict[str, Any]]:
    """One tile per character row: the row, whether it has a picture, its first letter and a blurb
    (the card's creator notes, else its description, on one line, cut)."""
    return [{"row": row, "pictured": avatar_file(store.character_dir(row.character_id)) is not None,
             "letter": (letter_colours.letter_of(row.name) or "?").upper(),
             "blurb": character_blurb(store, row.character_id)} for row in characters]


BLURBS: FileParseCache[str] = FileParseCache()


def character_blurb(store: FileStore, character_id: str) -> str:
    try:
        return BLURBS.get(store.character_dir(character_id) / "definition.json", _blurb_made)
    except (StoreError, OSError, ValueError):
        return ""  # a damaged file still gets its tile; its editor says what is wrong


def _blurb_made(path: Path) -> str:
    definition = read_json(path, what="character")
    if not isinstance(definition, dict):
        return ""
    card = definition.get("card") if isinstance(definition.get("card"), dict) else {}
    data = card.get("data") if isinstance(card.get("data"), dict) else card
    for text in (data.get("creator_notes"), definition.get("base_persona")):
        if isinstance(text, str) and text.strip():
            line = " ".join(text.split())
            return line if len(line) <= BLURB_CHARS else line[:BLURB_CHARS - 1].rstrip() + "…"
    return ""
