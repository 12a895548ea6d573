"""The aside without JavaScript: the drawer's "Ask aside" form posts here when no script took it
(with one, the page asks over its WebSocket and never posts). The same aside as the socket's
(`aside_run`), answered whole; the chat page comes back with the aside panel open on the
question and its answer (kept in the history when the account keeps asides, else shown once). A
refused question is said in the reader's language and comes back in the panel's box.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from chat.live.refusal_words import refusal_read
from chat.pages.draft_bound import draft_bounded
from chat.pages.instance_access import instance_or_404_async
from chat.play.aside import aside_run
from personalab.lib.errors import AppError
from personalab.storage import get_store

SHOWN = "aside_shown"  # the session key of the last no-script aside, shown once


def aside_shown_take(request: HttpRequest, instance_id: str) -> dict[str, Any]:
    """This chat's last no-script aside, once: `lines` to show (a question and its answer that
    were not kept), `draft` (a refused question), `note` (what became of the answer)."""
    shown = request.session.pop(SHOWN, None)
    if isinstance(shown, dict) and shown.get("instance_id") == instance_id:
        return shown
    return {}


async def _async_noop(event: dict[str, Any]) -> None:
    """Nothing streams to a page that waits for the whole answer."""


@login_required
@require_POST
async def instance_aside(request: HttpRequest, instance_id: str) -> HttpResponse:
    await instance_or_404_async(request, instance_id)
    text = request.POST.get("content", "")
    shown: dict[str, Any] = {"instance_id": instance_id}
    try:
        result = await aside_run(get_store(), instance_id=instance_id,
                                 speaker=request.POST.get("speaker") or None, content=text,
                                 emit=_async_noop)
    except AppError as exc:
        messages.error(request, refusal_read(exc))
        shown["draft"] = draft_bounded(text)
    else:
        if not result.kept:
            shown["lines"] = [{"role": "user", "content": text},
                              {"role": "assistant", "name": result.name,
                               "content": result.answer_text}]
        # As the script says it under the panel (static/chat/aside.js).
        if result.error:
            shown["note"] = f"{gettext('Error:')} {result.error}"
        elif result.kept:
            shown["note"] = gettext("kept apart from the story")
    await request.session.aset(SHOWN, shown)
    return redirect(reverse("instance", args=[instance_id]) + "#aside-card")
