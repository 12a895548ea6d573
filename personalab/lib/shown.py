"""A value a request sent, as an error message repeats it back.

A refusal names what it refused ("no lorebook 'lore_x'"), but the value comes from the request:
an id field holding a megabyte of text came back whole in the message, the page's notice and the
log line. Every id here is at most 64 characters (library/create_ids.py), so a value past that
is no id anyone made, and the first characters say which one was meant."""

from __future__ import annotations

SHOWN_CHARS = 80


def value_shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """`repr(value)`, a string's text cut to `limit` characters with "…" (its quotes kept);
    another value's repr cut the same way."""
    if isinstance(value, str):
        return repr(value if len(value) <= limit else value[:limit - 1] + "…")
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"
