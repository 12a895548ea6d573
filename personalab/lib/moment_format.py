"""A date in a moment.js format string, as SillyTavern's `{{datetimeformat …}}` writes it.

Framework-free. Only the common tokens are known (YYYY, YY, MMMM, MMM, MM, M, DD, D, dddd,
ddd, HH, H, hh, h, mm, ss, A, a); text in `[brackets]` and every other character is written
as it is. One pass over the format, longest token first, so the work is linear.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

MAX_FORMAT_CHARS = 1000


def _hour12(now: datetime) -> int:
    return now.hour % 12 or 12


TOKENS: dict[str, Callable[[datetime], str]] = {
    "YYYY": lambda now: f"{now.year:04d}",
    "YY": lambda now: f"{now.year % 100:02d}",
    "MMMM": lambda now: f"{now:%B}",
    "MMM": lambda now: f"{now:%b}",
    "MM": lambda now: f"{now.month:02d}",
    "M": lambda now: str(now.month),
    "DD": lambda now: f"{now.day:02d}",
    "D": lambda now: str(now.day),
    "dddd": lambda now: f"{now:%A}",
    "ddd": lambda now: f"{now:%a}",
    "HH": lambda now: f"{now.hour:02d}",
    "H": lambda now: str(now.hour),
    "hh": lambda now: f"{_hour12(now):02d}",
    "h": lambda now: str(_hour12(now)),
    "mm": lambda now: f"{now.minute:02d}",
    "ss": lambda now: f"{now.second:02d}",
    "A": lambda now: "AM" if now.hour < 12 else "PM",
    "a": lambda now: "am" if now.hour < 12 else "pm",
}
_LONGEST_FIRST = sorted(TOKENS, key=len, reverse=True)


def moment_format(now: datetime, pattern: str) -> str | None:
    """`now` written as `pattern` says; None when the pattern is longer than allowed."""
    if len(pattern) > MAX_FORMAT_CHARS:
        return None
    out, position = [], 0
    while position < len(pattern):
        if pattern[position] == "[":
            end = pattern.find("]", position + 1)
            if end >= 0:
                out.append(pattern[position + 1:end])
                position = end + 1
                continue
        token = next((t for t in _LONGEST_FIRST if pattern.startswith(t, position)), None)
        if token is None:
            out.append(pattern[position])
            position += 1
        else:
            out.append(TOKENS[token](now))
            position += len(token)
    return "".join(out)
