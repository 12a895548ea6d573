"""Who a streaming reply is by, as the chat page names its bubble: the member's id, name and
picture, sent with the reply's first event so the bubble is never an anonymous "…" while it
streams (a group member, a regenerate in a group, a tab that joins mid-reply)."""

from __future__ import annotations

from typing import Any

from chat.selectors import character_avatar_url
from library.selectors import character_for_chat_optional
from personalab.lib.filestore.store import FileStore
from personalab.lib.letter_colours import letter_class


def speaker_shown(store: FileStore, *, character_id: str | None,
                  character: dict[str, Any]) -> dict[str, Any]:
    """`{"speaker", "name", "avatar", "letter"}` (its letter avatar's colour class) for the reply of `character` (as the chat reads it).
    A kept copy has no picture of its own, and the author's may be private now: none then."""
    avatar = (character_avatar_url(store, character_id)
              if character and not character.get("kept_at") else None)
    name = character.get("name") or character_id or ""
    return {"speaker": character_id, "name": name, "avatar": avatar, "letter": letter_class(name)}


def partial_speaker_shown(store: FileStore, *, state: dict[str, Any],
                          partial: dict[str, Any]) -> dict[str, Any]:
    """The speaker of an unfinished line in the file (a group member's line names its
    speaker; a one-character chat's reply is the chat's character)."""
    character_id = partial.get("speaker") or state.get("character_id")
    character = character_for_chat_optional(store, state=state, character_id=character_id)
    shown = speaker_shown(store, character_id=character_id, character=character)
    name = partial.get("name") or shown["name"]
    return {**shown, "name": name, "letter": letter_class(name)}
