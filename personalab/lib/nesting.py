"""Parse a file of another app with a bound on how deep it nests. Framework-free.

What an import does with a parsed file (copy.deepcopy, json.dumps) recurses once per level, so a
value nested near Python's recursion limit parses, then fails later with a RecursionError (and
deeper ones fail in the parser). Imports refuse a file that nests deeper than a request body may
(personalab/lib/jsonbody.py): role-play apps write a handful of levels."""

from __future__ import annotations

from typing import Any

from personalab.lib.jsonbody import MAX_JSON_DEPTH, json_depth_exceeds
from personalab.lib.jsontext import json_loads

MAX_NESTING = MAX_JSON_DEPTH


class TooDeep(ValueError):
    def __init__(self) -> None:
        super().__init__(f"lists and objects nest deeper than {MAX_NESTING} levels")


def json_loads_bounded(data: str | bytes) -> Any:
    """json_loads, raising TooDeep for a value nested deeper than MAX_NESTING."""
    try:
        value = json_loads(data)
    except RecursionError:
        raise TooDeep() from None
    if json_depth_exceeds(value, MAX_NESTING):
        raise TooDeep()
    return value
