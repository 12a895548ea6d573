"""The members of a conversation: who they are and the first member handing the story over.

Files: instance_state.json `participants` lists the members in order
({"character_id", "state_file", "muted", "talkativeness"}); each member's own character state is
read and written by personalab.lib.participants.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chat.groups.speakers import Member, talkativeness_of
from library.selectors import ChatCharacters
from personalab.lib.filestore.store import FileStore
from personalab.lib.participants import member_ids, member_state_read


def participant_entry(definition: dict[str, Any], *, first: bool) -> dict[str, Any]:
    character_id = definition["character_id"]
    extensions = ((definition.get("card") or {}).get("data") or {}).get("extensions") or {}
    return {"character_id": character_id,
            "state_file": "character_state.json" if first
            else f"character_states/{character_id}.json",
            "muted": False,
            "talkativeness": talkativeness_of(extensions.get("talkativeness"))}


def is_group(instance_state: dict[str, Any]) -> bool:
    return len(member_ids(instance_state)) > 1


def members_of(store: FileStore, instance_state: dict[str, Any],
               characters: ChatCharacters | None = None) -> list[Member]:
    characters = characters or ChatCharacters(store, state=instance_state)
    members = []
    for entry in instance_state.get("participants") or []:
        if not isinstance(entry, dict) or not entry.get("character_id"):
            continue
        character_id = entry["character_id"]
        name = characters.optional(character_id).get("name") or character_id
        members.append(Member(character_id=character_id, name=name,
                              talkativeness=talkativeness_of(entry.get("talkativeness")),
                              muted=bool(entry.get("muted"))))
    return members


def members_title(members: list[Member]) -> str:
    """A conversation with several characters is named after all of them ("A & B & C");
    one with one character has no such title (its character's name is used)."""
    return " & ".join(m.name for m in members) if len(members) > 1 else ""


@dataclass
class HandOver:
    state: dict[str, Any]  # the instance state after the change
    files: dict[str, dict[str, Any]]  # state files to write, by path in the instance folder
    remove: list[str]


def first_member_hand_over(store: FileStore, instance_id: str,
                           instance_state: dict[str, Any]) -> HandOver:
    """The first member leaves: the next member becomes the instance's character and takes over
    character_state.json; the leaver's state is kept in character_states/{id}.json, where a
    later add finds it. Nothing is written here: the caller journals and applies the change
    (personalab.lib.membership), holding the lock."""
    participants = [dict(p) for p in instance_state["participants"]]
    leaving, successor = participants[0]["character_id"], participants[1]["character_id"]
    files = {f"character_states/{leaving}.json": store.character_state_read(instance_id),
             "character_state.json": member_state_read(store, instance_id, instance_state,
                                                       successor)}
    participants[1]["state_file"] = "character_state.json"
    # The story's records without a speaker or owner (lines, persona versions) stay the leaver's.
    state = {"solo_character_id": leaving, **instance_state, "character_id": successor,
             "participants": participants[1:]}
    return HandOver(state=state, files=files, remove=[f"character_states/{successor}.json"])


def first_member_swap(store: FileStore, instance_id: str,
                      instance_state: dict[str, Any]) -> HandOver:
    """The story's character and the second member trade places: the second becomes the
    instance's character and takes over character_state.json, the first keeps its state in
    character_states/{id}.json (as when the first member leaves, but it stays). Nothing is
    written here: the caller journals and applies the change, holding the lock."""
    participants = [dict(p) for p in instance_state["participants"]]
    first, second = participants[0], participants[1]
    first_id, second_id = first["character_id"], second["character_id"]
    files = {f"character_states/{first_id}.json": store.character_state_read(instance_id),
             "character_state.json": member_state_read(store, instance_id, instance_state,
                                                       second_id)}
    second["state_file"] = "character_state.json"
    first["state_file"] = f"character_states/{first_id}.json"
    # The story's records without a speaker or owner (lines, persona versions) stay the first's.
    state = {"solo_character_id": first_id, **instance_state, "character_id": second_id,
             "participants": [second, first, *participants[2:]]}
    return HandOver(state=state, files=files, remove=[f"character_states/{second_id}.json"])
