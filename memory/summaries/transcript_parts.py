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


def request_tokens(messages: list[dict[str, Any]]) -> int:
    """What a request of `messages` costs, as the prompt counts it (4 per message, 3 for the
    request)."""
    return sum(count_tokens(message["content"]) + 4 for message in messages) + 3


def transcript_parts(messages: list[dict[str, Any]], *, room: int | None, character_name: str,
                     locale: str, player_name: str | None = None) -> list[list[dict[str, Any]]]:
    """`messages` in order, cut between turns so each part's transcript fits `room` tokens
    (None: one part). A turn longer than the room is a part of its own, its lines shortened in
    the middle until it fits (a pasted book in one message would otherwise be refused on every
    try, and the session could never be summarized)."""
    if room is None:
        return [messages]
    limit = max(int(room * SAFETY), 1)
    names = (character_name, locale, player_name)
    parts: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    used = 0
    for turn in _turns(messages):
        cost = _cost(turn, *names)
        if cost > limit:
            turn, cost = _shortened(turn, limit, *names)
        if current and used + cost > limit:
            parts.append(current)
            current, used = [], 0
        current.extend(turn)
        used += cost
    return [*parts, current] if current else parts


def _cost(turn: list[dict[str, Any]], character_name: str, locale: str,
          player_name: str | None) -> int:
    return count_tokens(transcript_text(turn, character_name=character_name, locale=locale,
                                        player_name=player_name)) + 1


def _shortened(turn: list[dict[str, Any]], limit: int, character_name: str, locale: str,
               player_name: str | None) -> tuple[list[dict[str, Any]], int]:
    """Copies of the turn's lines, each cut in the middle by the same share, and their cost:
    the share shrinks until the turn fits `limit` (a few rounds: tokens are not characters)."""
    names = (character_name, locale, player_name)
    share = limit / _cost(turn, *names)
    for _ in range(8):
        share *= 0.9
        shortened = [{**line, "content": _middle_cut(str(line.get("content") or ""), share)}
                     for line in turn]
        cost = _cost(shortened, *names)
        if cost <= limit:
            break
    return shortened, cost


def _middle_cut(text: str, share: float) -> str:
    keep = int(len(text) * share)
    if keep >= len(text):
        return text
    head = keep * 2 // 3
    return f"{text[:head]} […] {text[len(text) - (keep - head):]}" if keep > 0 else "[…]"


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
