"""Bounded JSON request bodies: size and nesting limits, so no body can cost a 500."""

from __future__ import annotations

import json
from typing import Any

from personalab.lib.errors import Invalid, TooLarge
from personalab.lib.jsontext import json_loads

MAX_JSON_BODY = 12 * 1024 * 1024
# Nothing we accept nests deeper than a card's extensions; deeper input is an attack, and
# Python's recursion (parse, copy, dump) ends near 1,000 levels.
MAX_JSON_DEPTH = 64


def _malformed(message: str) -> Invalid:
    return Invalid(message, code="malformed_json", field="body")


def json_depth_exceeds(data: Any, limit: int) -> bool:
    # A level at a time, holding only its lists and objects: a file's million numbers and texts
    # are looked at once each, never pushed and popped (that walk took 5 s of a chat import).
    level = [data] if isinstance(data, (dict, list)) else []
    depth = 1
    while level:
        if depth > limit:
            return True
        below: list[Any] = []
        for value in level:
            children = value.values() if isinstance(value, dict) else value
            below.extend(child for child in children if isinstance(child, (dict, list)))
        level, depth = below, depth + 1
    return False


def json_parse_bounded(body: bytes | str, *, max_bytes: int = MAX_JSON_BODY,
                       max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse a request body; 413 over `max_bytes`, 400 for broken or too deeply nested JSON."""
    if len(body) > max_bytes:
        raise TooLarge()
    try:
        data = json_loads(body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise _malformed(f"request body is not valid JSON: {exc}") from None
    except RecursionError:
        data = None
        nested = True
    else:
        nested = json_depth_exceeds(data, max_depth)
    if nested:
        raise _malformed(f"request body nests deeper than {max_depth} levels")
    return data


def json_object_bounded(body: bytes | str, **limits: int) -> dict[str, Any]:
    data = json_parse_bounded(body, **limits)
    if not isinstance(data, dict):
        raise _malformed("request body must be a JSON object")
    return data
