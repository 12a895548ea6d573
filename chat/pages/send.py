"""Send, Regenerate, Continue and a member's "Answer now" without JavaScript: the chat page's
box (and the member's button) posts here when no script took it (with one, the page sends over
its WebSocket and never posts). The same turn as the socket's (`conversation_turn`,
`redo_run`), told to the chat's other open pages as it goes; the reply is whole when the page
comes back, at the turn's first reply, with what the turn warned. A refused line goes back
into the box (up to 4 × the longest message), said in the reader's language.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from chat import selectors
from chat.groups.round import conversation_turn, round_done_event
from chat.live.followers import emit_published
from chat.live.refusal_words import refusal_read, warning_said
from chat.pages.draft_bound import draft_bounded
from chat.pages.instance_access import instance_or_404_async
from chat.play.redo import redo_run
from chat.services.sessions import session_read_repaired
from personalab.lib.errors import AppError
from personalab.lib.ids import validate_id
from personalab.storage import get_store

log = logging.getLogger(__name__)

DRAFT = "send_draft"  # the session key of a refused line, given back to the box once
ACTIONS = ("send", "regenerate", "continue")


def draft_take(request: HttpRequest, instance_id: str) -> str:
    """The line this chat's last no-script send was refused with, once."""
    draft = request.session.pop(DRAFT, None)
    if isinstance(draft, dict) and draft.get("instance_id") == instance_id:
        return draft_bounded(str(draft.get("text") or ""))
    return ""


@login_required
@require_POST
async def instance_send(request: HttpRequest, instance_id: str) -> HttpResponse:
    await instance_or_404_async(request, instance_id)
    action = request.POST.get("action") or "send"
    if action not in ACTIONS:
        raise Http404("unknown action")
    text = request.POST.get("content", "")
    speaker = request.POST.get("speaker") or None  # a member's "Answer now"
    warnings: list[dict[str, Any]] = []

    async def kept(event: dict[str, Any]) -> None:
        if event.get("type") == "warning":
            warnings.append(event)

    try:
        if speaker is not None:
            speaker = validate_id(speaker, kind="speaker")
        done = await _turn_whole(instance_id, action=action, text=text, speaker=speaker,
                                 emit=emit_published(instance_id, kept, origin=None))
    except AppError as exc:
        messages.error(request, refusal_read(exc))
        if text.strip():
            await request.session.aset(DRAFT, {"instance_id": instance_id,
                                               "text": draft_bounded(text)})
        return redirect("instance", instance_id=instance_id)
    for warning in map(warning_said, warnings):
        messages.warning(request, " ".join(str(warning.get(part) or "") for part in (
            "message", "suggestion")).strip())
    anchor = await asyncio.to_thread(_reply_anchor, instance_id, done.get("turn"))
    return redirect(reverse("instance", args=[instance_id]) + anchor)


async def _turn_whole(instance_id: str, *, action: str, text: str, speaker: str | None,
                      emit) -> dict[str, Any]:
    """The turn to its end; a reader who leaves the page stops it as Stop does (what was
    written stays in the file)."""
    stop = asyncio.Event()

    async def run() -> dict[str, Any]:
        if action != "send":
            done, _text = await redo_run(instance_id, action=action, emit=emit, stop=stop)
        else:  # an empty Send: the character speaks again, as with scripts
            done = round_done_event(await conversation_turn(
                get_store(), instance_id=instance_id, user_text=text if text.strip() else None,
                emit=emit, stop=stop, speaker=speaker))
        await emit(done)
        return done

    task = asyncio.ensure_future(run())
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        stop.set()
        await asyncio.wait([task])
        raise


def _reply_anchor(instance_id: str, turn: Any) -> str:
    """`#m-N` of the turn's first reply as the chat page shows it (else its player's line,
    else nothing: the page opens at the newest line)."""
    store = get_store()
    state = store.instance_state_read(instance_id)
    read = session_read_repaired(store, instance_id, state["current_session_id"],
                                 shown=selectors.CHAT_PAGE_SIZE)
    items = [item for item in selectors.chat_messages_window(read).items
             if turn is not None and item.line.get("turn") == turn]
    first = next((item for item in items if item.line.get("role") == "assistant"),
                 items[0] if items else None)
    return f"#m-{first.index}" if first else ""
