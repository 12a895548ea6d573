"""Recalled lines as passages: a line is read with the lines around it (the question a reply
answers, the reply after a statement), and recalled lines that sit next to each other in the
chat become one passage, shown once in the order they were said, instead of separate items
that repeat each other's context."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from memory.vectors.index import Hit, MemoryIndex

log = logging.getLogger(__name__)

Key = tuple[str, str, str]  # collection, instance_id, doc_id (Hit.key)
# Where a line sits: instance, session, and its place in the session (two places per turn:
# the player's line, then the reply).
Place = tuple[str, str, int]
NEAR_PLACES = (1, 2)  # how far the line before or after may sit from a line


@dataclass
class Near:
    """The lines around a recalled line (None: none there, or not a chat line)."""

    before: Hit | None = None
    after: Hit | None = None


@dataclass
class Passage:
    """Consecutive lines of one session, in the order they were said; `hits` are the recalled
    ones among them (the rest came along as their context)."""

    lines: list[Hit] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)


def line_place(hit: Hit) -> Place | None:
    if hit.collection != "turns":
        return None
    try:
        turn = int(hit.metadata.get("turn"))
    except (TypeError, ValueError):
        return None
    side = 1 if hit.metadata.get("role") == "assistant" else 0
    return (str(hit.metadata.get("instance_id", "")), str(hit.metadata.get("session_id", "")),
            2 * turn + side)


def _doc_id(session_id: str, place: int) -> str:
    turn, side = divmod(place, 2)
    return f"turn_{session_id}_{turn}_{'assistant' if side else 'user'}"


def lines_near(index: MemoryIndex, hits: list[Hit]) -> dict[Key, Near]:
    """The line before and the line after each recalled chat line, read in one call per
    instance. Never raises: without them the recalled lines still stand on their own."""
    wanted: dict[str, dict[str, list[tuple[Key, str, int]]]] = {}
    for hit in hits:
        place = line_place(hit)
        if place is None:
            continue
        instance_id, session_id, number = place
        ids = wanted.setdefault(instance_id, {})
        # A speaker who says two lines in a row opens a new turn for the second, so the line
        # next to it in the chat can sit two places away (half of an imported chat's lines).
        for distance in NEAR_PLACES:
            if number - distance > 1:
                ids.setdefault(_doc_id(session_id, number - distance), []).append(
                    (hit.key, "before", distance))
            ids.setdefault(_doc_id(session_id, number + distance), []).append(
                (hit.key, "after", distance))
    near: dict[Key, Near] = {hit.key: Near() for hit in hits}
    nearest: dict[tuple[Key, str], int] = {}
    try:
        for instance_id, ids in wanted.items():
            for line in index.hits_get("turns", instance_id, list(ids)):
                for key, side, distance in ids.get(line.id, []):
                    if distance < nearest.get((key, side), len(NEAR_PLACES) + 1):
                        nearest[(key, side)] = distance
                        setattr(near[key], side, line)
    except Exception as exc:  # noqa: BLE001 — Chroma down: the lines alone
        log.warning("lines around recalled lines unavailable: %s", exc)
    return near


def passages_merge(hits: list[Hit], near: dict[Key, Near], *, after: bool = False
                   ) -> list[Passage]:
    """Each hit with the line before it (and the one after, with `after`), best hit first;
    hits whose lines touch or overlap in the chat are merged into one passage, placed where
    its best hit ranks. A summary or plot stays a passage of its own."""
    passages: list[Passage] = []
    spans: list[tuple[str, str, int, int]] = []  # instance, session, first and last place
    for hit in hits:
        around = near.get(hit.key, Near())
        lines = [line for line in (around.before, hit, around.after if after else None) if line]
        places = [line_place(line) for line in lines]
        if any(place is None for place in places) or line_place(hit) is None:
            passages.append(Passage(lines=[hit], hits=[hit]))
            spans.append(("", "", -1, -1))
            continue
        instance_id, session_id, _ = places[0]
        low, high = min(p[2] for p in places), max(p[2] for p in places)
        joined = _touching(spans, instance_id, session_id, low, high)
        if joined is None:
            passages.append(Passage(lines=[], hits=[]))
            spans.append((instance_id, session_id, low, high))
            joined = len(passages) - 1
        else:
            _, _, first, last = spans[joined]
            spans[joined] = (instance_id, session_id, min(first, low), max(last, high))
        passage = passages[joined]
        passage.hits.append(hit)
        known = {line.key for line in passage.lines}
        passage.lines.extend(line for line in lines if line.key not in known)
        passage.lines.sort(key=lambda line: line_place(line)[2])
    return passages


def _touching(spans: list[tuple[str, str, int, int]], instance_id: str, session_id: str,
              low: int, high: int) -> int | None:
    for position, (instance, session, first, last) in enumerate(spans):
        if (instance, session) == (instance_id, session_id) and low <= last + 1 \
                and high >= first - 1:
            return position
    return None
