"""What world info does where a book or entry leaves a setting unset: SillyTavern's global
defaults, so a book behaves here as it did there. The book keeps None for "unset", and an
export writes only what the author set."""

from __future__ import annotations

from typing import Any

SCAN_DEPTH = 2
RECURSIVE = True
MATCH_WHOLE_WORDS = True
CASE_SENSITIVE = False
BUDGET_PERCENT = 25  # of the context window


def book_scan_depth(book: dict[str, Any]) -> int:
    value = book.get("scan_depth")
    if isinstance(value, bool) or not isinstance(value, int):
        return SCAN_DEPTH
    return value


def book_recursive(book: dict[str, Any]) -> bool:
    value = book.get("recursive")
    return RECURSIVE if value is None else bool(value)


def book_flag(book: dict[str, Any], name: str, default: bool) -> bool:
    value = book.get(name)
    return default if value is None else bool(value)
