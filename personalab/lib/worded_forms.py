"""Fixed English sentences a lower floor writes (an importer's refusal, a trace's reason) said
in the reader's language: a table of forms, each a pattern with named groups and the words
that take them; the caller gives the words already translated (lazily)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# (pattern, the words that take its named groups, usually a lazy translation)
Forms = list[tuple[re.Pattern[str], Any]]


def form_named(text: str, forms: Forms, names: dict[str, dict[str, Any]] | None = None,
               reworded: dict[str, Callable[[str], str]] | None = None) -> str | None:
    """`text` in the reader's language when one of `forms` (pattern, words with the pattern's
    named groups) matches all of it, else None; a group listed in `names` is named from there,
    one listed in `reworded` (a reason that is itself a sentence of the table) said by its
    function."""
    for form, words in forms:
        found = form.fullmatch(text)
        if found:
            values = {key: str((names or {}).get(key, {}).get(value, value))
                      for key, value in found.groupdict().items()}
            for key, say in (reworded or {}).items():
                if key in values:
                    values[key] = say(values[key])
            return str(words) % values
    return None


PLACEHOLDER = re.compile(r"%\(([a-z_]+)\)s")
# A figure no table names: any text on one line, bounded (a sentence is matched whole).
ANY_FIGURE = r"[^\n]{1,300}"
CLOSING = "'\"”)"


def sentence_form(sentence: str, figures: dict[str, str] | None = None) -> re.Pattern[str]:
    """The pattern that reads `sentence` (a msgid with %(name)s figures) back out of the text
    it makes: its words as written, each figure as `figures` names it, else any text up to the
    quote or bracket that closes it. A figure named twice must hold the same text twice."""
    parts = PLACEHOLDER.split(sentence)  # words, figure, words, figure, ..., words
    seen: set[str] = set()
    out = []
    for place, part in enumerate(parts):
        if place % 2 == 0:
            out.append(re.escape(part))
        elif part in seen:
            out.append(f"(?P={part})")
        else:
            seen.add(part)
            closing = parts[place + 1][:1]
            shape = (figures or {}).get(part) or (
                rf"[^{re.escape(closing)}\n]{{1,300}}" if closing and closing in CLOSING
                else ANY_FIGURE)
            out.append(f"(?P<{part}>{shape})")
    return re.compile("".join(out))

