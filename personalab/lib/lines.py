"""What a session line must look like to be used: a hand-edited line that is valid JSON but has
odd values (`"content": 5`, `"trace_id": "../x"`, `"alternatives": 5`) is reported and skipped like
a corrupt one, instead of failing every page that reads the session."""

from __future__ import annotations

import itertools
import json
import operator
from typing import Any, Callable

from personalab.lib.ids import is_valid_id
from personalab.lib.jsontext import json_loads

ROLES = ("user", "assistant", "system")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _alternatives_problem(value: Any) -> str | None:
    if not isinstance(value, list):
        return "'alternatives' is not a list"
    if not all(isinstance(item, dict) and isinstance(item.get("content"), str) for item in value):
        return "'alternatives' holds an item without text 'content'"
    return None


def _message_problem(line: dict[str, Any]) -> str | None:
    if line["role"] not in ROLES:
        return f"'role' is not one of {', '.join(ROLES)}"
    if not isinstance(line.get("content"), str):
        return "'content' is not text"
    if "turn" in line and not (_is_int(line["turn"]) and line["turn"] >= 0):
        return "'turn' is not a whole number"
    if line.get("trace_id") is not None and not is_valid_id(line["trace_id"]):
        return "'trace_id' is not a valid id"
    if "alternatives" in line:
        return _alternatives_problem(line["alternatives"])
    if "alternative_position" in line and not _is_int(line["alternative_position"]):
        return "'alternative_position' is not a whole number"
    return None


def session_line_problem(line: dict[str, Any]) -> str | None:
    """Why a parsed session line cannot be used, or None when it can."""
    if "role" in line:
        problem = _message_problem(line)
    elif line.get("type") == "summary":
        problem = None if isinstance(line.get("content"), str) else "'content' is not text"
    else:
        problem = None
    if problem is None:
        for key in ("timestamp",):
            if key in line and not isinstance(line[key], (str, type(None))):
                return f"'{key}' is not text"
        if "edited" in line and not isinstance(line["edited"], dict):
            return "'edited' is not an object"
    return problem


def line_parse(raw: bytes, check: Callable[[dict[str, Any]], str | None] | None = None, *,
               loads: Callable[[bytes], Any] = json_loads
               ) -> tuple[dict[str, Any] | None, str | None]:
    """One line of a JSONL file: (record, None) when it can be used, (None, reason) when not,
    (None, None) for a blank line, which is skipped without a word. `loads`: the file's
    `json_loads_for`, when it is read line by line."""
    if not raw.strip():
        return None, None
    try:
        record = loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg})"
    except UnicodeDecodeError:
        return None, "not valid UTF-8"
    if not isinstance(record, dict):
        return None, "not a JSON object"
    if check is not None and (reason := check(record)):
        return None, reason
    return record, None


def line_prompt_usable(line: dict[str, Any]) -> bool:
    """Whether a prompt may send this session line as a message."""
    # A system error reply is not part of the story; the model should not learn to imitate it.
    # A hidden line (SillyTavern's /hide) is kept and shown, never sent.
    if line.get("error") or line.get("hidden") or not isinstance(line.get("content"), str):
        return False
    return (line.get("type") == "summary" or line.get("role") in ("user", "assistant")
            or narrator_sent(line))


def narrator_sent(line: dict[str, Any]) -> bool:
    """A narrator note SillyTavern sends to the model: its /sys (/nar) line is written with
    `is_system: false` and goes into the prompt as a system message; an `is_system: true` one
    (a comment, a hidden narrator line, a note PersonaLab writes) is only shown."""
    return line.get("type") == "note" and line.get("is_system") is False


def lines_overlap(old: list[Any], new: list[Any]) -> tuple[int, int] | None:
    """Where `new` lies on `old`: (k, m) when new[:m] equals old[k:k + m] and one of the two
    ends there (m is len(new) or len(old) - k), k < len(new): `new` is `old` with k lines taken
    off its front and lines taken off or added at its end, as a turn's stretch of a session
    moves on. None when it is not (or either is empty)."""
    if not old or not new:
        return None
    # new[0] is looked for by identity, in C: a stretch read again holds the very same line
    # objects, and comparing thousands of dicts by value costs what counting them would. Equal
    # lines that are other objects (a file parsed again) are still found at the front.
    found = next(itertools.compress(itertools.count(), map(
        operator.is_, itertools.islice(old, len(new)), itertools.repeat(new[0]))), None)
    for k in dict.fromkeys(k for k in (found, 0) if k is not None):
        m = min(len(new), len(old) - k)
        if old[k:k + m] == new[:m]:
            return k, m
    return None


def display_depths(lines: list[dict[str, Any]], *, after: int = 0) -> dict[int, int]:
    """Each message's depth as SillyTavern's page counts it for its regex scripts (by id() of
    the line): how many lines a prompt sends, summaries aside, come after it in the whole chat
    (`after`: those after `lines`, SessionRead.depth_after); a narrator note it sends counts,
    a hidden message has none (its scripts then run whatever their depth bounds)."""
    depths: dict[int, int] = {}
    for line in reversed(lines):
        if line_prompt_usable(line) and line.get("type") != "summary":
            depths[id(line)] = after
            after += 1
    return depths
