"""Chroma's metadata filters (`where`) as the memory index uses them, and the part of them it
checks itself: a filter Chroma applies costs about 4 µs per matching document, so a filter
by instance is applied to a plain search instead (memory/vectors/index.py `_nearest_scores`)."""

from __future__ import annotations

from typing import Any


def where_normalize(where: dict[str, Any] | None) -> dict[str, Any] | None:
    """Chroma wants one key per filter; several equalities become an `$and`."""
    if not where:
        return None
    if len(where) == 1 or any(key.startswith("$") for key in where):
        return where
    return {"$and": [{key: value} for key, value in where.items()]}


def where_checkable(where: dict[str, Any]) -> bool:
    """Whether where_matches understands `where`: equalities, `$ne` and `$in` on metadata keys."""
    return all(not key.startswith("$") and (not isinstance(value, dict)
                                            or set(value) in ({"$ne"}, {"$in"}))
               for key, value in where.items())


def where_instances(where: dict[str, Any]) -> set[str] | None:
    """The instances `where` selects when it selects by instance alone (`"instance_id": id` or
    `{"$in": [ids]}`), which the stored id (chroma_id) names; None for any other filter."""
    if set(where) != {"instance_id"}:
        return None
    instance = where["instance_id"]
    if isinstance(instance, str):
        return {instance}
    if isinstance(instance, dict) and set(instance) == {"$in"}:
        return {str(owner) for owner in instance["$in"]}
    return None


def where_matches(metadata: dict[str, Any], where: dict[str, Any]) -> bool:
    for key, value in where.items():
        if isinstance(value, dict) and "$in" in value:
            if metadata.get(key) not in value["$in"]:
                return False
        elif isinstance(value, dict):
            if metadata.get(key) == value["$ne"]:
                return False
        elif metadata.get(key) != value:
            return False
    return True
