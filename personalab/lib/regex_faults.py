"""What is wrong with a user's regex, as a kind and a place in its text, so that the words
shown to its author (library/find_replace/words.py) can say it in their language and point at the
spot, instead of the engine's "missing ) at position 7"."""

from __future__ import annotations

from dataclasses import dataclass, field

import regex

from personalab.lib.user_regex import PatternRefused, pattern_compile

# The engine's message (without its position) -> our kind.
ENGINE_KINDS = {
    "missing )": "unclosed_group",
    "unterminated character set": "unclosed_class",
    "unbalanced parenthesis": "unopened_group",
    "nothing to repeat": "nothing_to_repeat",
    "multiple repeat": "nothing_to_repeat",
    "bad escape (end of pattern)": "trailing_backslash",
    "unknown extension": "unknown_flag",
    "unknown flag": "unknown_flag",
}
# A regex refused for what it would cost (user_regex), not for its writing.
REFUSAL_KINDS = frozenset({"too_long", "too_deep", "repeat_count", "too_costly"})


@dataclass(frozen=True)
class RegexFault:
    """`kind`: one of ENGINE_KINDS' values, "bad_escape", PatternRefused's kinds, or "other";
    `at`: the index in the pattern of the character at fault (None: the whole pattern);
    `numbers`: the figures of a refusal (limit, length, units, count)."""

    kind: str
    at: int | None = None
    numbers: dict[str, int | str] = field(default_factory=dict)


def _openers(source: str) -> tuple[list[int], int | None]:
    """The indexes of the "(" never closed, and of a "[" never closed (or None)."""
    groups: list[int] = []
    index = 0
    while index < len(source):
        char = source[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            start, index = index, index + 1
            index += source.startswith("^", index)
            index += source.startswith("]", index)
            while index < len(source) and source[index] != "]":
                index += 2 if source[index] == "\\" else 1
            if index >= len(source):
                return groups, start
        elif char == "(":
            groups.append(index)
        elif char == ")" and groups:
            groups.pop()
        index += 1
    return groups, None


def _engine_fault(source: str, exc: regex.error) -> RegexFault:
    message = str(getattr(exc, "msg", "") or exc)
    at = getattr(exc, "pos", None)
    kind = ENGINE_KINDS.get(message)
    if kind is None and message.startswith("bad escape"):
        kind, at = "bad_escape", max((at or 0) - 2, 0)
    groups, unclosed_class = _openers(source)
    if kind == "unclosed_group" and groups:
        at = groups[-1]
    elif kind == "unclosed_class" and unclosed_class is not None:
        at = unclosed_class
    if at is not None:
        at = min(at, len(source) - 1) if source else None
    return RegexFault(kind or "other", at)


def pattern_fault(source: str, flags: int = 0) -> RegexFault | None:
    """What is wrong with `source` as a user's regex (user_regex's bounds included), or None."""
    try:
        pattern_compile(source, flags)
    except PatternRefused as exc:
        return RegexFault(exc.kind, None, dict(exc.numbers))
    except regex.error as exc:
        return _engine_fault(source, exc)
    except (ValueError, OverflowError):
        return RegexFault("other")
    return None
