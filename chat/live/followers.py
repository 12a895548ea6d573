"""Live following: every tab of an instance, on any worker, joins one channel-layer group.

A turn publishes each event after it is in the session file. A tab that joins mid-reply is sent
what the file holds, then only the live text past that character offset: no gap, no duplicate.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

from chat.groups.speaker_shown import partial_speaker_shown
from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import StoreError

log = logging.getLogger(__name__)

Emit = Callable[[dict[str, Any]], Awaitable[None]]
EVENT_TYPE = "turn.event"


def group_name(instance_id: str) -> str:
    return f"instance.{instance_id}"


def emit_published(instance_id: str, emit: Emit, *, origin: str | None) -> Emit:
    """`emit`, then the same event to every follower; `origin` (the sender's channel) skips it."""
    layer = get_channel_layer()
    group = group_name(instance_id)
    failed = False

    async def publish(event: dict[str, Any]) -> None:
        nonlocal failed
        await emit(event)
        if layer is None or _followed_by_nobody(layer, group, origin):
            return
        try:
            await layer.group_send(group, {"type": EVENT_TYPE, "event": event, "origin": origin})
        except Exception as exc:  # noqa: BLE001 — followers reload from the file; the turn goes on
            if not failed:
                log.warning("followers of %s miss live events: %s", instance_id, exc)
            failed = True

    return publish


def plot_changed_publish(instance_id: str, *, director: dict[str, Any]) -> None:
    """Tell the instance's open pages that the story was moved by hand or its beat held or
    let go (`director`: the director's view after the change), so every tab and device shows
    it without a reload. From a sync view (a REST call, the outline's buttons); a page that
    missed it reads the outline with its next turn."""
    layer = get_channel_layer()
    group = group_name(instance_id)
    if layer is None or _followed_by_nobody(layer, group, None):
        return
    event = {"type": "plot_changed", "held": bool(director.get("held")),
             "current_index": director.get("current_index"),
             "current_status": director.get("current_status")}
    try:
        async_to_sync(layer.group_send)(group, {"type": EVENT_TYPE, "event": event,
                                                "origin": None})
    except Exception as exc:  # noqa: BLE001 — the change is in the file; a reload shows it
        log.warning("followers of %s miss the plot change: %s", instance_id, exc)


def _followed_by_nobody(layer: Any, group: str, origin: str | None) -> bool:
    """True when the in-process layer knows no tab but the sender follows `group`: each event
    would otherwise go round the layer (a copy, a queue, a dispatch) back to the sender only,
    once per pushed read. A layer shared by workers (Redis) cannot tell cheaply: it publishes."""
    if not isinstance(layer, InMemoryChannelLayer):
        return False
    return set(layer.groups.get(group, ())) <= {origin}


def streaming_snapshot(store: FileStore, instance_id: str) -> dict[str, Any] | None:
    """The reply streaming now, as the file holds it, or None. An unfinished line no turn is
    writing is what a crash or a stopped server left: it is completed in the file (kept, marked
    interrupted) instead of followed, or the tab would wait on a reply nobody writes."""
    try:
        state = store.instance_state_read(instance_id)
        session_id = state["current_session_id"]
        partial = store.session_read(instance_id, session_id, newest=0).partial
        if partial is None or store.session_repair_when_idle(instance_id, session_id):
            return None
    except (StoreError, OSError, ValueError):
        return None
    return {"type": "stream", "session_id": session_id, "turn": partial.get("turn"),
            "content": str(partial.get("content", "")),
            "reasoning": str(partial.get("reasoning", "")),
            **partial_speaker_shown(store, state=state, partial=partial)}


@dataclass
class FollowCursor:
    """How much of the streaming reply this follower has been sent, in characters."""

    delivered: int | None = None

    def take(self, offset: int, text: str) -> str | None:
        """The part of a token not sent yet; None when text before it was missed."""
        if self.delivered is None:
            if offset != 0:
                return None
            self.delivered = 0
        skip = self.delivered - offset
        if skip < 0:
            return None
        self.delivered = max(self.delivered, offset + len(text))
        return text[skip:]
