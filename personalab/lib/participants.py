"""Who takes part in a conversation, read from its instance_state.json, and each member's own
character state (framework-free, so memory and chat read members the same way).

instance_state.json `participants` lists the members in order; the first member keeps the seed's
character_state.json, every other member character_states/{character_id}.json in the same format.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from personalab.lib.errors import Invalid
from personalab.lib.filestore.jsonfile import read_json, write_json_atomic
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import is_valid_id
from personalab.lib.store_errors import StoreError


def member_ids(instance_state: dict[str, Any]) -> list[str]:
    """The characters of a conversation in order; an instance from before groups has one."""
    participants = instance_state.get("participants") or []
    ids = [p.get("character_id") for p in participants if isinstance(p, dict)]
    return [i for i in ids if isinstance(i, str) and i] or [instance_state.get("character_id", "")]


def player_id(username: str) -> str:
    return f"player:{username}"


USERNAME = re.compile(r"[\w.@+-]{1,150}")  # Django's own username characters


def participant_id_checked(value: str, *, field: str) -> str:
    """A character id or `player:{username}`; anything else is refused naming `field` (it
    could never match a conversation, and silence would read as "none")."""
    name = value.removeprefix("player:")
    if is_valid_id(value) or (name != value and USERNAME.fullmatch(name)):
        return value
    raise Invalid(f"{value[:80]!r} is neither a character id nor player:{{username}}", field=field)


def conv_key(participants: Iterable[str]) -> str:
    """seed 003 §2.1: the sorted participant ids joined by `|`."""
    return "|".join(sorted(set(participants)))


def participants_of(instance_state: dict[str, Any]) -> list[str]:
    """The player (as `player:{owner}`, usernames are what instance files record) and the
    members."""
    owner = instance_state.get("owner")
    players = [player_id(owner)] if owner else []
    return players + [c for c in member_ids(instance_state) if c]


def member_state_read(store: FileStore, instance_id: str, instance_state: dict[str, Any],
                      character_id: str) -> dict[str, Any]:
    path = _state_path(instance_state, character_id)
    if path == "character_state.json":
        return store.character_state_read(instance_id)
    state = read_json(store.instance_dir(instance_id) / path, what=f"{path} of {instance_id}")
    state = state if isinstance(state, dict) else {}
    state.setdefault("base_persona", "")
    state.setdefault("evolved_persona", "")
    return state


def member_state_write(store: FileStore, instance_id: str, instance_state: dict[str, Any],
                       character_id: str, state: dict[str, Any]) -> None:
    path = _state_path(instance_state, character_id)
    target = store.instance_dir(instance_id) / path
    target.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(target, state)


def _state_path(instance_state: dict[str, Any], character_id: str) -> str:
    participants = instance_state.get("participants") or [
        {"character_id": instance_state.get("character_id"), "state_file": "character_state.json"}]
    for entry in participants:
        if isinstance(entry, dict) and entry.get("character_id") == character_id:
            path = str(entry.get("state_file") or "character_state.json")
            if path != "character_state.json" and path != f"character_states/{character_id}.json":
                raise StoreError(f"participant {character_id} names an unexpected state file")
            return path
    raise StoreError(f"{character_id!r} is not a member of this conversation")
