"""Turns of a conversation run in the test's own event loop (`conversation_turn`, as the socket
runs it), and the session lines they leave."""

from __future__ import annotations

import json

from chat.groups.round import conversation_turn


def session_lines(store, instance_id) -> list[dict]:
    """The current session's lines after its metadata line."""
    state = store.instance_state_read(instance_id)
    path = store.session_path(instance_id, state["current_session_id"])
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()][1:]


def reply_order_set(store, instance_id, order) -> None:
    state = store.instance_state_read(instance_id)
    store.instance_state_write(instance_id, {**state, "reply_order": order})


async def turn_said(store, instance_id, text, *, speaker=None, stop=None, events=None):
    """One turn of `text`; what it emits is added to `events` when given."""
    events = [] if events is None else events

    async def emit(event):
        events.append(event)

    return await conversation_turn(store, instance_id=instance_id, user_text=text, emit=emit,
                                   speaker=speaker, stop=stop)
