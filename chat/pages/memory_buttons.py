"""The chat drawer's memory buttons: Summarize and Update memory, and the progress a page polls
while one runs. With a script (htmx) the answer is a small result in the drawer; without one the
button's form posts here, the action runs whole, and the chat page comes back saying how it went.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.humanize.templatetags.humanize import intcomma
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from chat.pages.instance_access import instance_or_404, instance_or_404_async
from chat.play.account_turns import AccountTurnsBusy
from chat.services import memory_actions
from chat.templatetags.sessions import session_label
from memory.errors import MemoryActionError
from memory.runtime import progress_state
from personalab.lib.errors import error_read
from personalab.lib.llm import LLMError
from personalab.lib.store_errors import InstanceBusy, StoreError

ACTIONS = ("summarize", "update_memory")


@login_required
@require_POST
async def instance_memory_action(request: HttpRequest, instance_id: str, action: str):
    await instance_or_404_async(request, instance_id)
    if action not in ACTIONS:
        raise Http404("unknown action")
    try:
        result = await memory_actions.memory_action(
            instance_id, action, character_id=request.POST.get("character_id") or None)
        text, status = _done_said(action, result), "ok"
    except (MemoryActionError, LLMError, InstanceBusy, StoreError, AccountTurnsBusy) as exc:
        text, status = error_read(exc), "error"
    if request.htmx:
        return render(request, "chat/_action_result.html", {"text": text, "status": status})
    (messages.success if status == "ok" else messages.error)(request, text)
    return redirect(reverse("instance", args=[instance_id]) + "#memory-card")


def _done_said(action: str, result: dict) -> str:
    if action == "update_memory":
        return gettext("Memory updated: the evolved persona has a new version.")
    # Players read "conversation 3", never the session's id (issue 33 item 3).
    return gettext("Summarized into %(events)s events; the chat goes on in %(session)s.") % {
        "events": intcomma(result.get("events")),
        "session": session_label(result.get("new_session_id"))}


@login_required
@require_GET
def instance_memory_progress(request: HttpRequest, instance_id: str) -> HttpResponse:
    instance_or_404(request, instance_id)
    state, step, values = progress_state(instance_id)
    if state == "stopped":
        text = gettext("Stopped: the last memory action did not finish (the server stopped "
                       "during it); start it again.")
    else:
        working = gettext("Working…")
        # The stage is stored untranslated (any worker may poll it): in the reader's language.
        stage = gettext(step) if step else ""
        if values:
            try:
                stage %= values
            except (KeyError, TypeError, ValueError):  # a translation that lost a placeholder
                stage = gettext(step) if step else ""
        text = f"{working} {stage}" if stage else working
    response = HttpResponse(text, content_type="text/plain")
    # The page asks after a request that got no answer: does the action still run?
    response["X-Memory-Progress"] = state
    return response
