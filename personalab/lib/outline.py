"""Outline points' ids: story progress names a point by its id, so it follows the point when
the author reorders, inserts or deletes points (docs/decisions/outline-point-ids.md)."""

from __future__ import annotations

import secrets
from typing import Any

MAX_ID_CHARS = 40


def point_id_valid(value: object) -> bool:
    return (isinstance(value, str) and 0 < len(value) <= MAX_ID_CHARS and value.isascii()
            and all(c.isalnum() or c in "-_" for c in value))


def legacy_point_id(position: int) -> str:
    """The id a point saved before ids existed has at its (1-based) position: a plot state
    written then named that point by the same position."""
    return f"p{position}"


def new_point_id() -> str:
    # never of the legacy form, so a new point cannot stand for an old position
    return f"pt-{secrets.token_hex(5)}"


def outline_ids_read(points: list[Any]) -> list[str]:
    """Each point's id as stored; one without a (usable, unique) id gets its legacy id."""
    ids: list[str] = []
    for position, point in enumerate(points, start=1):
        stored = point.get("id") if isinstance(point, dict) else None
        ids.append(stored if point_id_valid(stored) and stored not in ids
                   else legacy_point_id(position))
    return ids


def outline_ids_for_write(points: list[Any]) -> list[str]:
    """On save: a point keeps its id; one without (new, or from a file written before ids)
    gets a new one, never a repeat."""
    ids: list[str] = []
    for point in points:
        stored = point.get("id") if isinstance(point, dict) else None
        ids.append(stored if point_id_valid(stored) and stored not in ids else new_point_id())
    return ids
