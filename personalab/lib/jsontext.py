"""JSON from outside (files, imports, request bodies, frames) as text that can be written back.

JavaScript apps (SillyTavern among them) can write half an emoji as `"\\ud83d"`. json.loads
turns that into a str holding a lone surrogate, which no UTF-8 encode accepts: every later write
or hash of it raised. Here each lone surrogate becomes U+FFFD; a whole pair stays the character."""

from __future__ import annotations

import json
import re
from typing import Any, Callable

import regex

# Any surrogate escape (`\uD800`-`\uDFFF`, either case): a fixed-width pattern, so one
# search is one linear scan. A whole pair matches too; the walk then finds nothing to mend.
_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")
_ESCAPE_TEXT = re.compile(r"\\u[dD][89a-fA-F]")
# json.loads decodes bytes with "surrogatepass": a surrogate's own UTF-8 form parses too.
_ENCODED_SURROGATE = re.compile(rb"\xed[\xa0-\xbf]")
# `regex` scans non-ASCII text for this class about four times faster than `re`.
_SURROGATE = regex.compile("[\ud800-\udfff]")


def _has_surrogate(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def text_surrogates_replace(text: str) -> str:
    """`text` with each lone surrogate as U+FFFD (a pair of surrogate code points joins)."""
    if not _has_surrogate(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _dict_mend(value: dict[Any, Any], stack: list[Any]) -> None:
    if any(type(key) is str and _has_surrogate(key) for key in value):
        items = list(value.items())
        value.clear()
        value.update((text_surrogates_replace(k) if type(k) is str else k, v) for k, v in items)
    for key, item in value.items():
        if type(item) is str:
            value[key] = text_surrogates_replace(item)
        elif isinstance(item, (dict, list)):
            stack.append(item)


def _list_mend(value: list[Any], stack: list[Any]) -> None:
    for position, item in enumerate(value):
        if type(item) is str:
            value[position] = text_surrogates_replace(item)
        elif isinstance(item, (dict, list)):
            stack.append(item)


def surrogates_replace(value: Any) -> Any:
    """A parsed JSON value with every lone surrogate in its strings, keys included, as U+FFFD;
    containers are mended in place, at any depth (a loop, not recursion)."""
    if type(value) is str:
        return text_surrogates_replace(value)
    stack = [value] if isinstance(value, (dict, list)) else []
    while stack:
        container = stack.pop()
        if isinstance(container, dict):
            _dict_mend(container, stack)
        else:
            _list_mend(container, stack)
    return value


def has_surrogate_escape(data: str | bytes | bytearray) -> bool:
    """Whether JSON text may parse to a surrogate: linear scans, no backtracking."""
    if isinstance(data, str):
        return _ESCAPE_TEXT.search(data) is not None or _has_surrogate(data)
    if data.find(b"\x00", 0, 4) >= 0 or data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True  # UTF-16 or -32 (json.detect_encoding's test): rare, walked every time
    # `in` is a one-byte find, faster than the regex call on the usual line.
    return _ESCAPE_BYTES.search(data) is not None or (
        b"\xed" in data and _ENCODED_SURROGATE.search(data) is not None)


def json_loads_for(block: bytes) -> Callable[[bytes], Any]:
    """The parse for each line of `block`: json.loads when the whole block holds no surrogate
    escape, so a file read line by line pays one scan, not one per line."""
    # Valid UTF-8 JSON holds no raw NUL; a line that does may be UTF-16, which the block's
    # byte scan cannot see into.
    return json_loads if b"\x00" in block or has_surrogate_escape(block) else json.loads


def json_loads(data: str | bytes | bytearray, **kwargs: Any) -> Any:
    """json.loads, with each lone surrogate in the result's strings as U+FFFD. The result is
    walked only when the input holds a surrogate escape (or, as str, a raw surrogate)."""
    try:
        value = json.loads(data, **kwargs)
    except (json.JSONDecodeError, UnicodeError):
        raise
    except ValueError as exc:  # a number of more than 4,300 digits (Python's int limit)
        raise json.JSONDecodeError(str(exc).split(";")[0], "", 0) from None
    return surrogates_replace(value) if has_surrogate_escape(data) else value


_HIGH_FIRST, _HIGH_LAST = "\ud800", "\udbff"


class SurrogatesJoin:
    """Pieces of streamed text (str, or a str subclass such as a reasoning piece) parsed with
    their lone surrogates kept: a server that cuts a reply between the two halves of an emoji
    (`"\\ud83d"` ending one chunk, `"\\ude00"` starting the next) gets the emoji, not two U+FFFD.
    A piece's trailing high surrogate is held back and joined with the next piece of its kind;
    any surrogate still alone becomes U+FFFD, as does one held when the stream ends."""

    def __init__(self) -> None:
        self.held: tuple[type, str] | None = None

    def pieces(self, pieces: list[str]) -> list[str]:
        out: list[str] = []
        for piece in pieces:
            kind, text = type(piece), str(piece)
            if self.held is not None:
                held_kind, high = self.held
                self.held = None
                if held_kind is kind:
                    text = high + text
                else:
                    out.append(held_kind("\ufffd"))
            if text and _HIGH_FIRST <= text[-1] <= _HIGH_LAST:
                self.held, text = (kind, text[-1]), text[:-1]
            if text:
                out.append(kind(text_surrogates_replace(text)))
        return out

    def end(self) -> list[str]:
        """What is still held when the stream ends: a lone half, as U+FFFD."""
        held, self.held = self.held, None
        return [held[0]("\ufffd")] if held is not None else []


AT_ONCE_BYTES = 1 << 20


def json_lines_at_once(block: bytes, loads: Callable[[bytes], Any]) -> list[Any] | None:
    """The values of `block`'s whole lines (it ends at a newline), parsed by `loads` in one
    call, the lines joined by commas into an array (a 100,000-line import is read in one parse,
    not 100,000), when each line is one JSON object by itself: the array then holds exactly one
    object per line, each what parsing its line alone gives. None (parse them one by one): a
    blank or bad line, a line of two values or a value cut across lines, a raw NUL (the line
    may be UTF-16, which json reads only line by line)."""
    if block.count(b"\n") < 2 or b"\x00" in block:
        return None
    values: list[Any] = []
    start = 0
    while start < len(block):
        # A piece of whole lines at a time: one parse of a 10 MB session held the interpreter
        # lock, and with it every other request, for 90-230 ms (a 1 MB piece: about 10 ms).
        stop = block.find(b"\n", start + AT_ONCE_BYTES - 1) + 1 or len(block)
        parsed = _json_lines_piece(block[start:stop], loads)
        if parsed is None:
            return None
        values.extend(parsed)
        start = stop
    return values


def _json_lines_piece(block: bytes, loads: Callable[[bytes], Any]) -> list[Any] | None:
    count = block.count(b"\n")
    try:
        parsed = loads(b"[" + block[:-1].replace(b"\n", b",") + b"]")
    except (ValueError, RecursionError):  # the array's one level more, for a line at the limit
        return None
    if len(parsed) != count or not all(isinstance(value, dict) for value in parsed):
        return None
    return parsed
