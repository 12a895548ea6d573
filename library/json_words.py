"""The JSON parser's own words in the reader's language. A refusal of a broken file keeps the
parser's detail ("Expecting ',' delimiter: line 1 column 42 (char 41)", or in a chat import's
line "Expecting value, column 1"), which read as English inside a Chinese sentence; here each
of Python's decoder messages is said in the active language with its line and column kept.
Used by the refusal words of the library, chat imports and the API (personalab/error_words.py).
The msgids are Python's own words, so English reads as before."""

from __future__ import annotations

import re

from django.utils.translation import gettext, gettext_lazy

# Python's json decoder (the C scanner and json/decoder.py, 3.11 to 3.13).
MESSAGES = {
    "Expecting property name enclosed in double quotes":
        gettext_lazy("Expecting property name enclosed in double quotes"),
    "Expecting value": gettext_lazy("Expecting value"),
    "Expecting ':' delimiter": gettext_lazy("Expecting ':' delimiter"),
    "Expecting ',' delimiter": gettext_lazy("Expecting ',' delimiter"),
    "Unterminated string starting at": gettext_lazy("Unterminated string starting at"),
    "Invalid control character at": gettext_lazy("Invalid control character at"),
    "Invalid \\uXXXX escape": gettext_lazy("Invalid \\uXXXX escape"),
    "Invalid \\escape": gettext_lazy("Invalid \\escape"),
    "Extra data": gettext_lazy("Extra data"),
    "Illegal trailing comma before end of object":
        gettext_lazy("Illegal trailing comma before end of object"),
    "Illegal trailing comma before end of array":
        gettext_lazy("Illegal trailing comma before end of array"),
}
_SAID = re.compile(
    "(?P<what>" + "|".join(re.escape(message) for message in MESSAGES) + ")"
    r"(?:: line (?P<line>\d{1,9}) column (?P<column>\d{1,9}) \(char \d{1,12}\)"
    r"|, column (?P<alone>\d{1,9}))?")


def _said(found: re.Match[str]) -> str:
    what = str(MESSAGES[found["what"]])
    if found["line"]:
        # the character offset (counted from 0) is left out: line and column find the place
        return gettext("%(what)s: line %(line)s column %(column)s") % {
            "what": what, "line": found["line"], "column": found["column"]}
    if found["alone"]:
        return gettext("%(what)s, column %(column)s") % {"what": what,
                                                         "column": found["alone"]}
    return what


def json_words(text: str) -> str:
    """`text` with each JSON decoder message in it (and its place) in the active language."""
    return _SAID.sub(_said, text)
