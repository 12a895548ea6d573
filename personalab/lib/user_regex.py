"""Regexes that users write (lore keys, regex scripts): checked before they are compiled,
compiled into a cache bounded by bytes, matched with a time limit.

Why a static check and not a compile in another process: the `regex` engine expands counted
repeats while it compiles, holding the GIL, so `(?:a{2000}){2000}` took 12 s and 1 GB and
stalled every other request of the process; and a compiled pattern cannot be handed back from
another process (pickling it compiles it again). The expansion is what costs, and it can be
read off the pattern's text before compiling: a pattern whose repeats expand to at most
MAX_EXPANSION units compiles in about 40 ms and a few MB (bench/regex_bounds.py).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass

import regex

MAX_PATTERN_CHARS = 2000
MAX_REPEAT = 1000
MAX_EXPANSION = 10_000
MAX_NESTING = 20
CACHE_BYTES = 64 * 1024 * 1024
# About what the engine keeps per unit of expansion (measured: 100,000 units, 24 MB).
BYTES_PER_UNIT = 256
MATCH_SECONDS = 0.05
NOT_A_REGEX = "not a valid regex"

_COUNTED = re.compile(r"\{(\d{0,9})(?:(,)(\d{0,9}))?\}")
_BRACED_ESCAPE = re.compile(r"\\[pPNxuXU]\{[^}]{0,64}\}")
JS_NAMED_GROUP = regex.compile(r"\(\?<(?=[A-Za-z_])")


class PatternRefused(ValueError):
    """A user's regex that would cost too much to compile; the message says why, `kind`
    ("too_long", "too_deep", "repeat_count", "too_costly") and `numbers` say it for words."""

    def __init__(self, message: str, *, kind: str = "too_costly", **numbers: int | str):
        super().__init__(message)
        self.kind = kind
        self.numbers = numbers


@dataclass
class _Frame:
    total: int = 0
    last: int = 0


def _class_end(source: str, start: int) -> int:
    """The index after the `]` closing the class that opens at `start`."""
    index = start + 1
    if index < len(source) and source[index] == "^":
        index += 1
    if index < len(source) and source[index] == "]":
        index += 1
    while index < len(source):
        char = source[index]
        if char == "\\":
            index += 2
            continue
        if char == "[" and source.startswith("[:", index):
            close = source.find(":]", index + 2)
            index = close + 2 if close != -1 else index + 1
            continue
        if char == "]":
            return index + 1
        index += 1
    return index


def pattern_expansion(source: str) -> int:
    """How many units the engine expands `source` into: each atom counts one, times every
    counted repeat around it. Raises PatternRefused past the caps."""
    if len(source) > MAX_PATTERN_CHARS:
        raise PatternRefused(f"the regex is {len(source):,} characters long; "
                             f"at most {MAX_PATTERN_CHARS:,}", kind="too_long",
                             length=len(source), limit=MAX_PATTERN_CHARS)
    stack = [_Frame()]
    index = 0
    while index < len(source):
        char, top = source[index], stack[-1]
        if char == "(":
            if len(stack) > MAX_NESTING:
                raise PatternRefused(f"the regex nests groups more than {MAX_NESTING} deep",
                                     kind="too_deep", limit=MAX_NESTING)
            stack.append(_Frame())
            index += 1
            continue
        if char == ")" and len(stack) > 1:
            inner = max(stack.pop().total, 1)
            stack[-1].total += inner
            stack[-1].last = inner
            index += 1
            continue
        counted = _COUNTED.match(source, index) if char == "{" else None
        if counted and (counted.group(1) or counted.group(3)):
            bound = max(int(counted.group(1) or 0), int(counted.group(3) or 0))
            if bound > MAX_REPEAT:
                raise PatternRefused(f"the repeat count {counted.group(0)} is above "
                                     f"{MAX_REPEAT:,}", kind="repeat_count",
                                     count=counted.group(0), limit=MAX_REPEAT)
            top.total += top.last * (max(bound, 1) - 1)
            top.last *= max(bound, 1)
            _expansion_check(stack)
            index = counted.end()
            continue
        if char == "[":
            index = _class_end(source, index)
        elif char == "\\":
            braced = _BRACED_ESCAPE.match(source, index)
            index = braced.end() if braced else index + 2
        elif char in "*+?|":
            index += 1
            continue
        else:
            index += 1
        top.total += 1
        top.last = 1
    _expansion_check(stack)
    return max(sum(frame.total for frame in stack), 1)


def _expansion_check(stack: list[_Frame]) -> None:
    units = sum(frame.total for frame in stack)
    if units > MAX_EXPANSION:
        raise PatternRefused(f"the regex's repeats multiply to {units:,} steps (nested "
                             f"counts like (…){{100}} inside {{100}} multiply); at most "
                             f"{MAX_EXPANSION:,}", kind="too_costly", units=units,
                             limit=MAX_EXPANSION)


def pattern_problem(source: str, flags: int = 0) -> str | None:
    """A sentence saying why `source` cannot be used as a regex, or None when it can."""
    try:
        pattern_compile(source, flags)
    except PatternRefused as exc:
        return str(exc)
    except (regex.error, ValueError, OverflowError) as exc:
        return f"{NOT_A_REGEX}: {exc}"
    return None


class _BoundedCache:
    """Compiled patterns, least recently used out first, by estimated bytes, not by count."""

    def __init__(self, limit: int):
        self.limit = limit
        self.size = 0
        self.items: OrderedDict[tuple[str, int], tuple[regex.Pattern[str], int]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple[str, int]) -> regex.Pattern[str] | None:
        with self.lock:
            found = self.items.get(key)
            if found is None:
                return None
            self.items.move_to_end(key)
            return found[0]

    def put(self, key: tuple[str, int], pattern: regex.Pattern[str], cost: int) -> None:
        with self.lock:
            if key in self.items or cost > self.limit:
                return
            self.items[key] = (pattern, cost)
            self.size += cost
            while self.size > self.limit:
                _, (_, dropped) = self.items.popitem(last=False)
                self.size -= dropped


CACHE = _BoundedCache(CACHE_BYTES)


# JavaScript's \w, \d and \b know ASCII only (letters, digits, _), with or without its u flag;
# Python's know every script, so `\w+` took Chinese words and `\bcafé\b` matched "café au"
# where SillyTavern's never did. Inside a class, \w and \d become their ASCII ranges.
_JS_ASCII_ESCAPES = frozenset("wWdDbB")
_JS_CLASS_RANGES = {"w": "A-Za-z0-9_", "d": "0-9"}


def js_escapes_ascii(source: str) -> str:
    """`source` with its \\w \\W \\d \\D \\b \\B read as JavaScript reads them (ASCII)."""
    if "\\" not in source:
        return source
    out, index, class_end = [], 0, -1
    while index < len(source):
        char = source[index]
        if char == "[" and index >= class_end:
            class_end = _class_end(source, index)
        if char != "\\" or index + 1 >= len(source):
            out.append(char)
            index += 1
            continue
        letter = source[index + 1]
        if index < class_end:  # inside a class: \b is a backspace there, \W has no range
            out.append(_JS_CLASS_RANGES.get(letter, char + letter))
            if letter in _JS_CLASS_RANGES and source.startswith("-", index + 2) \
                    and not source.startswith("-]", index + 2):
                out.append(r"\-")  # `[\w-.]`: JavaScript's "-" is a character, not a range
                index += 1
        elif letter in _JS_ASCII_ESCAPES:
            out.append(f"(?a:\\{letter})")
        else:
            out.append(char + letter)
        index += 2
    return "".join(out)


def pattern_compile(source: str, flags: int = 0) -> regex.Pattern[str]:
    """`source` (JavaScript's `(?<name>` allowed) compiled with the `regex` engine, from the
    cache when it was compiled before. Raises PatternRefused or regex.error."""
    key = (source, flags)
    cached = CACHE.get(key)
    if cached is not None:
        return cached
    units = pattern_expansion(source)
    # Not into the engine's own cache as well: that one is bounded by count only.
    ascii_source = js_escapes_ascii(source)
    try:
        compiled = regex.compile(JS_NAMED_GROUP.sub("(?P<", ascii_source), flags,
                                 cache_pattern=False)
    except regex.error:
        if ascii_source != source:  # the author's own pattern says where the fault is
            regex.compile(JS_NAMED_GROUP.sub("(?P<", source), flags, cache_pattern=False)
        raise
    CACHE.put(key, compiled, 1024 + units * BYTES_PER_UNIT + len(source))
    return compiled


def pattern_search(pattern: regex.Pattern[str], text: str, *, seconds: float = MATCH_SECONDS,
                   anchored: bool = False) -> regex.Match[str] | None:
    """A time-limited search that lets other threads run meanwhile (raises TimeoutError);
    `anchored`: only a match at the text's start (JavaScript's sticky `y` flag)."""
    find = pattern.match if anchored else pattern.search
    return find(text, timeout=seconds, concurrent=True)
