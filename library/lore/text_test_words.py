""""Test this text" in the reader's words: where a key was found is "the text" (the test has
one message; a chat's inspector counts them, chat/inspector/reasons.py) and an entry found through
another is named by that entry's title, never by its place or id."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext

KEY_IN_TEXT = re.compile(r"key (?P<key>'[^']*'|\"[^\"]*\") in message -1\b")
KEY_IN_ENTRY = re.compile(r"key (?P<key>'[^']*'|\"[^\"]*\") in entry lore:[^:\s]+:(?P<uid>\d+)")


def lore_test_reason(reason: str, *, titles: dict[int, str]) -> str:
    """`reason` with its key places worded; `titles` names the book's entries by uid."""
    def in_entry(found: re.Match[str]) -> str:
        title = titles.get(int(found["uid"]))
        if title is None:
            return gettext("key %(key)s in another entry (recursion)") % {"key": found["key"]}
        return gettext("key %(key)s in the entry “%(entry)s” (recursion)") % {
            "key": found["key"], "entry": title}

    reason = KEY_IN_TEXT.sub(
        lambda found: gettext("key %(key)s in the text") % {"key": found["key"]}, reason)
    return KEY_IN_ENTRY.sub(in_entry, reason)


def lore_test_worded(entries: list[dict[str, Any]], *, book: dict[str, Any]) -> list[dict[str, Any]]:
    """The fired or dropped entries of a test, each reason worded."""
    titles = {e.get("uid"): entry_title(e) for e in book.get("entries") or []
              if isinstance(e, dict)}
    return [{**e, "reason": lore_test_reason(str(e.get("reason") or ""), titles=titles)}
            for e in entries]


def entry_title(entry: dict[str, Any]) -> str:
    """An entry as the author names it (templates/library/_lore_title.html): its title
    (comment), else its first key."""
    keys = entry.get("keys") or []
    return (str(entry.get("comment") or "").strip() or (str(keys[0]) if keys else "")
            or gettext("untitled entry"))
