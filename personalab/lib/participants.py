"""Who takes part in a conversation, read from its instance_state.json (framework-free, so
memory and chat read members the same way)."""

from __future__ import annotations

from typing import Any, Iterable


def member_ids(instance_state: dict[str, Any]) -> list[str]:
    """The characters of a conversation in order; an instance from before groups has one."""
    participants = instance_state.get("participants") or []
    ids = [p.get("character_id") for p in participants if isinstance(p, dict)]
    return [i for i in ids if isinstance(i, str) and i] or [instance_state.get("character_id", "")]


def player_id(username: str) -> str:
    return f"player:{username}"


def conv_key(participants: Iterable[str]) -> str:
    """seed 003 §2.1: the sorted participant ids joined by `|`."""
    return "|".join(sorted(set(participants)))


def participants_of(instance_state: dict[str, Any]) -> list[str]:
    """The player (as `player:{owner}`, usernames are what instance files record) and the
    members."""
    owner = instance_state.get("owner")
    players = [player_id(owner)] if owner else []
    return players + [c for c in member_ids(instance_state) if c]
