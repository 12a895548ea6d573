"""Parse a file of another app with a bound on how deep it nests and how many values it holds.
Framework-free.

What an import does with a parsed file (copy.deepcopy, json.dumps) recurses once per level, so a
value nested near Python's recursion limit parses, then fails later with a RecursionError (and
deeper ones fail in the parser). Imports refuse a file that nests deeper than a request body may
(personalab/lib/jsonbody.py): role-play apps write a handful of levels.

Each parsed value is a Python object of 30 to 100 bytes, written in as little as 3 bytes of JSON
(`{},`): 16 MB of them (a 23 KB card PNG inflates to that) parsed to 5.6 million objects, 13 s
and 1.3 GB before the entries cap could refuse the book. The values are counted on the text
first, with linear scans that build no object per value."""

from __future__ import annotations

from typing import Any

from personalab.lib.jsonbody import MAX_JSON_DEPTH, json_depth_exceeds
from personalab.lib.jsontext import json_loads

MAX_NESTING = MAX_JSON_DEPTH
# A card with a book at the entries cap (1,000 entries of SillyTavern's ~60 fields and
# extensions) holds under 100,000 values; 250,000 parse in about 0.1 s and 30 MB.
MAX_VALUES = 250_000
# A chat file (10 MB at most) of 100,000 messages of ten fields each.
MAX_CHAT_VALUES = 1_000_000
# SillyTavern writes a message a line, a few hundred bytes to a few KB: a 10 MB chat holds some
# 10,000. 3.5 million lines of `{}` took 34 s and 2.3 GB to read, skip and refuse.
MAX_CHAT_LINES = 100_000

# What the count looks at once escaped backslashes and quotes are gone: quotes and separators.
_NOT_COUNTED = bytes(sorted(set(range(256)) - set(b'",[{')))
# The count splits the text at its quotes a piece at a time, so a file of millions of short
# strings never holds millions of pieces (a regex substitution did: 12 MB of `"a",` took 450 MB).
_PIECE = 1 << 20


class JsonRefused(ValueError):
    """A file that parses to more than an import may hold."""


class TooDeep(JsonRefused):
    def __init__(self) -> None:
        super().__init__(f"lists and objects nest deeper than {MAX_NESTING} levels")


class TooManyValues(JsonRefused):
    def __init__(self, limit: int) -> None:
        super().__init__(f"it holds more than {limit:,} values (lists, objects, texts, numbers)")


def _separators(text: str | bytes) -> int:
    if isinstance(text, str):
        return text.count(",") + text.count("[") + text.count("{")
    return text.count(b",") + text.count(b"[") + text.count(b"{")


def _separators_outside_strings(text: str | bytes) -> int:
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    # In valid JSON a backslash is only ever inside a string, escaping the character after it.
    kept = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_COUNTED)
    count, inside = 0, False
    for start in range(0, len(kept), _PIECE):
        pieces = kept[start:start + _PIECE].split(b'"')
        count += sum(map(len, pieces[1 if inside else 0::2]))  # only separators are left
        inside = inside != (len(pieces) % 2 == 0)
    return count


def json_values_exceed(text: str | bytes, limit: int) -> bool:
    """Whether JSON `text` may parse to more than `limit` values: every value but a container's
    first follows a comma, so they are at most one more than the `,` `[` `{` outside strings."""
    if _separators(text) < limit:  # the usual file: no need to look past its strings
        return False
    return _separators_outside_strings(text) >= limit


def json_loads_bounded(data: str | bytes, *, max_values: int = MAX_VALUES) -> Any:
    """json_loads, raising TooDeep for a value nested deeper than MAX_NESTING and TooManyValues
    for text of more than `max_values` values (counted before anything is parsed)."""
    if json_values_exceed(data, max_values):
        raise TooManyValues(max_values)
    try:
        value = json_loads(data)
    except RecursionError:
        raise TooDeep() from None
    if json_depth_exceeds(value, MAX_NESTING):
        raise TooDeep()
    return value
