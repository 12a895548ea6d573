"""A colour for a name's letter avatar: the same name always gets the same one of a few colours,
so a group's members without pictures tell apart at a glance (and stay so across pages and
reloads). The colours themselves live in static/app.css (.letter-c0 … .letter-c7), chosen for
a contrast of at least 4.5:1 with their letter in light and in dark mode."""

from __future__ import annotations

import unicodedata
import zlib

LETTER_COLOURS = 8


def letter_colour(name: str) -> int:
    """0 … LETTER_COLOURS - 1; case and surrounding spaces aside, a stable hash (not Python's
    hash(), which changes from process to process)."""
    key = " ".join(str(name or "").split()).casefold()
    return zlib.crc32(key.encode("utf-8")) % LETTER_COLOURS


def letter_class(name: str) -> str:
    """The CSS class of `name`'s colour, for a template or a page script drawing its avatar."""
    return f"letter-c{letter_colour(name)}"


def letter_of(name: str) -> str:
    """A letter avatar's letter: the name's first character that shows (a leading U+202E or
    space showed nothing)."""
    return next((c for c in name if unicodedata.category(c)[0] not in "CZ"), "")
