"""Fixed English sentences a lower floor writes (an importer's refusal, a trace's reason) said
in the reader's language: a table of forms, each a pattern with named groups and the words
that take them; the caller gives the words already translated (lazily)."""

from __future__ import annotations

import re
from typing import Any

# (pattern, the words that take its named groups, usually a lazy translation)
Forms = list[tuple[re.Pattern[str], Any]]


def form_named(text: str, forms: Forms,
               names: dict[str, dict[str, Any]] | None = None) -> str | None:
    """`text` in the reader's language when one of `forms` (pattern, words with the pattern's
    named groups) matches all of it, else None; a group listed in `names` is named from there."""
    for form, words in forms:
        found = form.fullmatch(text)
        if found:
            values = {key: str((names or {}).get(key, {}).get(value, value))
                      for key, value in found.groupdict().items()}
            return str(words) % values
    return None
