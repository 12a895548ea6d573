"""The director's progress marker, `[PROGRESS:X:status]`, found in an assistant reply.

Only the exact ASCII form of the seed's regex counts: the instruction shows the model that
form, and accepting look-alikes (full-width brackets or colons, lower case, spaces) would let
prose that merely talks about progress move the plot. Look-alikes are not dropped silently:
they come back in `rejected` with the reason, so a trace shows why a turn counted as a miss.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MARKER_STATUSES = ("completed", "in_progress", "pending")

# Anything bracketed that starts with "progress" in any case or bracket width is a candidate.
_CANDIDATE = re.compile(r"[\[［【]\s*progress[^\[\]［］【】\n]{0,60}[\]］】]", re.IGNORECASE)
_EXACT = re.compile(r"\[PROGRESS:([0-9]+):([A-Za-z_]+)\]")
_FULL_WIDTH = set("［］【】：")


def markers_removed(text: object) -> object:
    """`text` without its well-formed progress markers (for readers other than the director);
    anything not a string is returned as it is."""
    if not isinstance(text, str) or "[PROGRESS:" not in text:
        return text
    return _EXACT.sub("", text).rstrip()


@dataclass
class MarkerResult:
    index: int | None = None
    status: str | None = None
    raw: str | None = None
    rejected: list[dict] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return self.raw is not None


def find_progress_marker(text: str, outline_length: int) -> MarkerResult:
    """The first well-formed marker with a known status and 1 <= X <= outline_length wins;
    every other candidate is listed in `rejected` with its reason and position."""
    result = MarkerResult()
    for match in _CANDIDATE.finditer(text or ""):
        raw = match.group(0)
        reason = marker_problem(raw, outline_length)
        if reason is None and result.found:
            reason = "ignored: an earlier valid marker wins"
        if reason is not None:
            result.rejected.append({"raw": raw, "reason": reason, "position": match.start()})
            continue
        exact = _EXACT.fullmatch(raw)
        result.index, result.status, result.raw = int(exact.group(1)), exact.group(2), raw
    return result


def marker_problem(raw: str, outline_length: int) -> str | None:
    """Why a candidate is not a usable marker, or None when it is one."""
    exact = _EXACT.fullmatch(raw)
    if exact is None:
        return _shape_problem(raw)
    index, status = int(exact.group(1)), exact.group(2)
    problems = []
    if status not in MARKER_STATUSES:
        if status.lower() in MARKER_STATUSES:
            problems.append(f"wrong case in status {status!r}")
        else:
            problems.append(f"unknown status {status!r} (use {' / '.join(MARKER_STATUSES)})")
    if not 1 <= index <= outline_length:
        span = f"1..{outline_length}" if outline_length else "none: the outline is empty"
        problems.append(f"index {index} is outside the outline (valid: {span})")
    return "; ".join(problems) or None


def _shape_problem(raw: str) -> str:
    if any(char in _FULL_WIDTH for char in raw):
        return "full-width brackets or colon: only the ASCII form [PROGRESS:X:status] counts"
    if re.fullmatch(r"\[progress:[0-9]+:[a-z_]+\]", raw, re.IGNORECASE):
        return "wrong case: the marker must be written PROGRESS in capitals"
    if any(char.isspace() for char in raw):
        return "spaces inside the marker"
    parts = raw[1:-1].split(":")
    if len(parts) != 3:
        return "expected three parts: [PROGRESS:X:status]"
    if not parts[1].isascii() or not parts[1].isdigit():
        return f"index {parts[1]!r} is not a number"
    return "malformed marker"
