"""Regenerate (↻) and Continue (→), decided once for every way in (WebSocket, REST, SSE): when
the chat ends with the player's line (an imported chat, a deleted reply) there is no reply to
redo, so the missing one is asked for instead, as SillyTavern does."""

from __future__ import annotations

import asyncio

import numpy as np

from chat.groups.members import is_group
from chat.groups.round import conversation_turn, round_done_event
from chat.play.turn import turn_run
from personalab.lib.filestore.store import FileStore
from personalab.lib.line_index import MESSAGE_KINDS
from personalab.storage import get_store


async def redo_run(instance_id: str, *, action: str, emit, stop: asyncio.Event | None = None
                   ) -> tuple[dict, str]:
    """`action`: "regenerate" or "continue". Answers the `done` event and the reply's whole
    text."""
    store = get_store()
    unanswered, group = await asyncio.to_thread(_ends_with_player_line, store, instance_id)
    if unanswered and group:  # who answers is the round's choice
        results = await conversation_turn(store, instance_id=instance_id, user_text=None,
                                          emit=emit, stop=stop)
        return round_done_event(results), results[-1].answer_text if results else ""
    result = await turn_run(store, instance_id=instance_id, user_text="", emit=emit, stop=stop,
                            regenerate=action == "regenerate" and not unanswered,
                            continue_reply=action == "continue" and not unanswered,
                            trigger=unanswered)
    return result.done_event(), result.answer_text


def _ends_with_player_line(store: FileStore, instance_id: str) -> tuple[bool, bool]:
    """(the chat ends with the player's line, it has several characters)."""
    state = store.instance_state_read(instance_id)
    # Through the line index, the last message only: an old session holds 100k lines.
    messages = store.session_read(instance_id, state.get("current_session_id"),
                                  pick=_last_message).messages
    return bool(messages) and messages[-1].get("role") == "user", is_group(state)


def _last_message(kinds: np.ndarray) -> tuple[int, int]:
    found = np.flatnonzero(np.isin(kinds, MESSAGE_KINDS))
    return (int(found[-1]) if len(found) else len(kinds)), len(kinds)
