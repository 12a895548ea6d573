"""The first player line of a session, read from the file's head only: what a list names an
untitled chat by when several are with the same character (the history page's related chats)."""

from __future__ import annotations

import re
from pathlib import Path

from personalab.lib.jsontext import json_loads, text_surrogates_replace

HEAD_BYTES = 65_536  # a greeting and a first line fit; a list of chats never reads a whole file
LABEL_CHARS = 60
_SPACES = re.compile(r"\s+")


def session_first_player_line(path: Path) -> str:
    """The first non-empty player line, on one line and cut to LABEL_CHARS; "" when the head
    holds none or the file cannot be read."""
    try:
        with path.open("rb") as file:
            head = file.read(HEAD_BYTES)
    except OSError:
        return ""
    for raw in head.splitlines():
        try:
            line = json_loads(raw)
        except ValueError:  # a torn last line of the head, or a bad line: the next one
            continue
        content = line.get("content") if isinstance(line, dict) else None
        if line_is_player(line) and isinstance(content, str) and content.strip():
            text = _SPACES.sub(" ", text_surrogates_replace(content)).strip()
            return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1].rstrip() + "…"
    return ""


def line_is_player(line: object) -> bool:
    return isinstance(line, dict) and line.get("role") == "user" and line.get("type") != "summary"
