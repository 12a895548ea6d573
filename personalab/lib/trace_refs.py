"""The conversation part of a trace as references into the session file, and back.

A trace used to copy every message of the prompt, so a turn at 1,000 messages wrote the whole
session again (353 KB). Messages that are session lines' contents as-is, in order, are kept as a run
`{"lines": [first, last]}` (positions among the session's readable lines); the trace
records the range of lines referred to and a hash of their contents, so a later read can tell
whether the session still holds exactly what was sent, or must be read from a backup.
Messages that differ from their line (macros filled in, summaries rendered) stay whole.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from typing import Any

import orjson


def lines_hash(lines: list[dict[str, Any]], first: int, last: int) -> str:
    """SHA-256 of the lines' contents as compact JSON. The whole session's in the default mode,
    every turn: orjson writes the same bytes as json.dumps for strings, 50 times faster; other
    values (and lone surrogates, which orjson refuses) take json's path."""
    contents = [line.get("content") for line in lines[first:last + 1]]
    data = None
    if all(content is None or type(content) is str for content in contents):
        with contextlib.suppress(TypeError):
            data = orjson.dumps(contents)
    if data is None:
        data = json.dumps(contents, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def conversation_refer(messages: list[dict[str, Any]], lines: list[dict[str, Any]], *,
                       session_id: str, first_index: int = 0) -> dict[str, Any]:
    """The trace fields for `messages` (the prompt as sent), given the session's `lines`
    (`first_index`: the position of lines[0] when they are only the session's newest)."""
    refer = _conversation_refer(messages, lines, session_id=session_id)
    if first_index and "conversation" in refer:
        for ref in refer["messages"]:
            if "lines" in ref:
                ref["lines"] = [position + first_index for position in ref["lines"]]
        refer["conversation"]["first_line"] += first_index
        refer["conversation"]["last_line"] += first_index
    return refer


def _conversation_refer(messages: list[dict[str, Any]], lines: list[dict[str, Any]], *,
                        session_id: str) -> dict[str, Any]:
    positions: dict[str, list[int]] = {}
    for position, line in enumerate(lines):
        content = line.get("content")
        if line.get("role") in ("user", "assistant") and isinstance(content, str) and content:
            positions.setdefault(content, []).append(position)
    refs: list[dict[str, Any]] = []
    used: list[int] = []
    after = -1
    for message in messages:
        content = message.get("content")
        candidates = positions.get(content) if isinstance(content, str) else None
        found = next((p for p in candidates or () if p > after
                      and lines[p].get("role") == message.get("role")), None)
        if found is None:
            refs.append(message)
            continue
        last_ref = refs[-1] if refs else None
        if last_ref is not None and "lines" in last_ref and last_ref["lines"][1] == found - 1:
            last_ref["lines"][1] = found
        else:
            refs.append({"lines": [found, found]})
        used.append(found)
        after = found
    if not used:
        return {"messages": refs}
    first, last = min(used), max(used)
    return {"messages": refs, "conversation": {
        "session_id": session_id, "first_line": first, "last_line": last,
        "sha256": lines_hash(lines, first, last)}}


def conversation_matches(conversation: dict[str, Any], lines: list[dict[str, Any]], *,
                         first_index: int = 0) -> bool:
    """Whether `lines` (the session's from position `first_index` on) hold the lines referred
    to as they were sent."""
    first, last = conversation["first_line"] - first_index, conversation["last_line"] - first_index
    return 0 <= first and last < len(lines) and lines_hash(lines, first, last) == \
        conversation["sha256"]


def messages_rebuild(messages: list[dict[str, Any]], lines: list[dict[str, Any]] | None, *,
                     first_index: int = 0) -> list[dict[str, Any]]:
    """The messages as sent; with `lines` None (no copy of the session holds them any more) a
    referred message says so instead of showing another text. `lines` are the session's from
    position `first_index` on."""
    out = []
    for message in messages:
        if "lines" not in message:
            out.append(message)
            continue
        first, last = message["lines"]
        for position in range(first, last + 1):
            if lines is None:
                out.append({"role": "?", "line": position, "missing": True,
                            "content": f"(session line {position} is no longer available)"})
            else:
                line = lines[position - first_index]
                out.append({"role": line["role"], "content": line["content"]})
    return out
