"""One message of the chat page, rendered as the page shows it. The page script changes a
message (edit, hide, delete, undo, branch, swipe) through the REST API (chat/api/history.py)
and asks for this fragment afterwards to put the changed message in place; without a script,
chat/pages/message_forms.py makes the same changes."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from chat import selectors
from chat.history_manager import base as history_base
from chat.history_manager import reads as history_read
from chat.pages.instance_access import instance_or_404
from personalab.storage import get_store


@login_required
@require_GET
def message_line(request: HttpRequest, instance_id: str) -> HttpResponse:
    """?session=ID&index=N: that line of a live session."""
    row = instance_or_404(request, instance_id)
    store = get_store()
    try:
        read, archived = history_read.session_open(store, instance_id=instance_id,
                                              key=request.GET.get("session", ""))
        index = int(request.GET.get("index", ""))
    except (history_base.HistoryError, ValueError):
        raise Http404("message not found") from None
    if archived or not 0 <= index < len(read.lines):
        raise Http404("message not found")
    state = store.instance_state_read(instance_id)
    return render(request, "chat/_message.html", {
        "item": selectors.chat_message_item(read, index=index), "instance": row, "state": state,
        **selectors.message_render_context(store, state=state, lines=read.lines)})
