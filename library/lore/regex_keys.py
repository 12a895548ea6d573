"""A book's regex keys checked when it is saved or imported: each one must be cheap to
compile (personalab/lib/user_regex.py), and so must all of them together, since a turn
compiles every key of every linked book."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext

from library.find_replace.words import regex_fault_words
from library.lore.keys import key_expansion, key_fault

# About 0.8 s of compiling for a whole book at the worst (user_regex: 10,000 units ≈ 40 ms).
MAX_BOOK_EXPANSION = 200_000
ENTRY_FIELD = re.compile(r"entries\[(\d+)\]\.")


def regex_keys_check(entries: list[dict[str, Any]], errors: dict[str, str], *,
                     strict: bool) -> None:
    """Add a sentence to `errors` beside each key field whose regex cannot be used."""
    total = 0
    for index, entry in enumerate(entries):
        use_regex = bool(entry.get("use_regex"))
        for field in ("keys", "secondary_keys"):
            for key in entry.get(field) or []:
                found = key_fault(key, use_regex=use_regex, strict=strict)
                if found:
                    words = regex_fault_words(found[0], written=key, offset=found[1])
                    errors.setdefault(f"entries[{index}].{field}", gettext(
                        "“%(key)s”: %(problem)s") % {"key": _key_shown(key), "problem": words})
                total += key_expansion(key, use_regex=use_regex)
    if total > MAX_BOOK_EXPANSION:
        errors["entries"] = gettext(
            "the book's regex keys together expand to %(units)s steps; at most %(limit)s "
            "(fewer or simpler repeats)") % {
                "units": f"{total:,}", "limit": f"{MAX_BOOK_EXPANSION:,}"}


def _key_shown(key: str) -> str:
    return key if len(key) <= 60 else key[:59] + "…"


def regex_key_problems(lorebook: dict[str, Any]) -> list[tuple[dict[str, Any] | None, str]]:
    """Every regex key of a stored book that cannot fire: (its entry, or None for the whole
    book; the sentence). The editor's "Test this text" lists them, since such a key never
    matches."""
    errors: dict[str, str] = {}
    entries = [e for e in lorebook.get("entries") or [] if isinstance(e, dict)]
    regex_keys_check(entries, errors, strict=True)
    found = []
    for name, text in errors.items():
        where = ENTRY_FIELD.match(name)
        found.append((entries[int(where.group(1))] if where else None, text))
    return found
