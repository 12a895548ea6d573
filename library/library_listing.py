"""What the library page lists: a page at a time of each kind (characters, backgrounds,
lorebooks) by name, and only those holding every word of its search, so the page stays the same
size however many items other accounts share (5,000 shared characters made every library load
read 5,000 rows and render 5,000 tiles). The search is a GET field: it works without the page's
script. What is typed is matched as text (icontains escapes %, _ and \\), as the pickers do."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet

from library.character_picker import find_words

LIBRARY_PAGE = 60  # items of a kind per page: fills rows of 2, 3, 4, 5 or 6 tiles


@dataclass
class Listed:
    rows: list[Any]
    total: int  # the items that match, on every page
    page: int
    pages: int
    pages_to: dict[str, int] = field(default_factory=dict)  # "previous" / "next": its number
    urls: dict[str, str] = field(default_factory=dict)  # the same, as addresses


def library_words(text: str | None) -> list[str]:
    """The search's words, refused as the pickers' are (character_picker.find_words)."""
    return find_words(text) if text else []


def library_listed(rows: QuerySet, *, words: list[str], fields: tuple[str, ...],
                   page: str | None) -> Listed:
    """The page `page` (a number as sent; anything else is the first, one past the end the
    last) of `rows` holding every word in one of `fields`, by name."""
    for word in words:
        match = Q()
        for name in fields:
            match |= Q(**{f"{name}__icontains": word})
        rows = rows.filter(match)
    total = rows.count()
    pages = max(1, -(-total // LIBRARY_PAGE))
    number = min(max(_number(page), 1), pages)
    start = (number - 1) * LIBRARY_PAGE
    listed = Listed(rows=list(rows.order_by("name", "pk")[start:start + LIBRARY_PAGE]),
                    total=total, page=number, pages=pages)
    if number > 1:
        listed.pages_to["previous"] = number - 1
    if number < pages:
        listed.pages_to["next"] = number + 1
    return listed


def _number(raw: str | None) -> int:
    return int(raw) if raw and raw.isascii() and raw.isdigit() and len(raw) < 7 else 1
