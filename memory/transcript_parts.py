"""A session's transcript cut into parts that each fit one request to the model (summarize on
a long chat: an imported one holds thousands of messages), whole turns kept together; and the
newest of a list of summaries that fit a share of the request (the story so far)."""

from __future__ import annotations

from typing import Any

from memory.prompts import transcript_text
from personalab.lib.tokens import count_tokens

EARLIER_SHARE = 0.25  # of a request, for the story so far
# The server counts with its own tokenizer, not ours: a part stays a tenth under its room.
SAFETY = 0.9


def transcript_parts(messages: list[dict[str, Any]], *, room: int | None, character_name: str,
                     locale: str) -> list[list[dict[str, Any]]]:
    """`messages` in order, cut between turns so each part's transcript fits `room` tokens
    (None: one part). A turn longer than the room is a part of its own."""
    if room is None:
        return [messages]
    limit = max(int(room * SAFETY), 1)
    parts: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    used = 0
    for turn in _turns(messages):
        cost = count_tokens(transcript_text(turn, character_name=character_name,
                                            locale=locale)) + 1
        if current and used + cost > limit:
            parts.append(current)
            current, used = [], 0
        current.extend(turn)
        used += cost
    return [*parts, current] if current else parts


def _turns(messages: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Consecutive lines of the same turn together."""
    turns: list[list[dict[str, Any]]] = []
    for line in messages:
        if turns and line.get("turn") is not None and turns[-1][-1].get("turn") == line.get("turn"):
            turns[-1].append(line)
        else:
            turns.append([line])
    return turns


def newest_fitting(texts: list[str], room: int) -> list[str]:
    """The newest `texts` whose tokens fit `room`, in their order."""
    kept: list[str] = []
    used = 0
    for text in reversed(texts):
        used += count_tokens(text) + 2  # "- " and the line break
        if used > room:
            break
        kept.append(text)
    return kept[::-1]
