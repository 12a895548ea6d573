"""The head block a group member's prompt gets: who else is in the scene, and whether the
speaker joined it later (chat/group_prompt.py writes it in the prompt's language)."""

from __future__ import annotations

from typing import Any

from chat.group_prompt import members_block
from library.selectors import character_for_chat_optional
from memory.selectors import member_presence
from personalab.lib.filestore.store import FileStore
from personalab.lib.participants import member_ids


def scene_members_blocks(store: FileStore, *, state: dict[str, Any], instance_id: str,
                         speaker_id: str | None, speaker_name: str,
                         locale: str) -> list[dict[str, Any]]:
    """[the block] for a group turn with a speaker, [] otherwise."""
    if speaker_id is None:
        return []
    others = [character_for_chat_optional(store, state=state, character_id=character_id)
              | {"character_id": character_id}
              for character_id in member_ids(state) if character_id != speaker_id]
    presence = member_presence(store, instance_id=instance_id, character_id=speaker_id)
    return [members_block(others, speaker_name=speaker_name, locale=locale,
                          joined_later=presence.spans != ((None, None),))]
