"""A message's changes without JavaScript: the chat page links each message to a page of its
actions, and that page's forms and the history manager's post here. Each calls the service the
REST API calls (chat/api/history.py), then goes back to the page it came from with what
happened, and for a delete or an edit an Undo while the server's undo window lasts. With
scripts, the pages make the same changes through the REST API and never post here.
"""

from __future__ import annotations

import re
import time
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from chat import selectors
from chat.history_manager import base as history_base
from chat.history_manager import edits as history
from chat.history_manager import reads as history_read
from chat.pages.draft_bound import draft_bounded
from chat.pages.instance_access import instance_or_404
from chat.services.index import instance_index
from chat.templatetags.sessions import session_label
from library.selectors import character_for_chat_optional, persona_effective
from personalab.lib.errors import AppError, Invalid, error_read
from personalab.storage import get_store

UNDO_OFFER = "undo_offer"  # the session key of the Undo a no-script page shows once
POSITION = re.compile(r"[0-9]{1,9}")  # a message's position or a page number, as a form sends it
ID_CHARS = 64  # a session id's longest (chat.models.Session.session_id)
SEARCH_CHARS = 500  # a history search taken back to its page; a longer one is dropped


def undo_offer_take(request: HttpRequest, instance_id: str) -> dict[str, Any] | None:
    """The Undo of this chat's last no-script delete or edit, once, while its window lasts."""
    offer = request.session.pop(UNDO_OFFER, None)
    if not isinstance(offer, dict) or offer.get("instance_id") != instance_id:
        return None
    return offer if offer.get("until", 0) > time.time() else None


@login_required
@require_GET
def message_page(request: HttpRequest, instance_id: str, session_id: str,
                 index: int) -> HttpResponse:
    instance = instance_or_404(request, instance_id)
    try:
        context = _message_context(request, instance, instance_id, session_id, index)
    except history_base.HistoryError as exc:
        raise Http404(exc.message) from None
    return render(request, "chat/message_actions.html", context)


def _message_context(request: HttpRequest, instance, instance_id: str, session_id: str,
                     index: int) -> dict[str, Any]:
    """The message page's context; raises HistoryError when no message is at `index`."""
    store = get_store()
    row = history_read.message_row(store, instance_id=instance_id, session_key=session_id,
                                   index=index)
    state = store.instance_state_read(instance_id)
    shown = selectors.message_render_context(
        store, state=state, lines=[row["line"]],
        depths={} if row["depth"] is None else {id(row["line"]): row["depth"]})
    return {
        "instance": instance, "instance_id": instance_id, "row": row, "state": state,
        "page": {"session_key": session_id, "read_only": row["read_only"], "page": "",
                 "query": ""},
        "line_display": shown["line_display"], "player_names": shown["player_names"],
        "character_name": character_for_chat_optional(
            store, state=state, character_id=state.get("character_id")).get("name") or "",
        "player_name": persona_effective(store, owner=state.get("owner"),
                                         persona_id=state.get("persona_id"))["name"],
        "undo_window": history_base.history_settings(store)["undo_window_seconds"],
        "back": "chat", "undo_offer": undo_offer_take(request, instance_id)}


def _edit_kept(request: HttpRequest, instance, instance_id: str,
               refusal: AppError) -> HttpResponse | None:
    """A refused edit's message page again, the text written still in its box (the message
    as it is now beside it): without a script, a redirect lost what was typed. None when
    no message is at that place any more."""
    form = request.POST
    try:
        context = _message_context(request, instance, instance_id, form.get("session", ""),
                                   _number(form, "index"))
    except AppError:
        return None
    context["row"] = {**context["row"], "content": draft_bounded(form.get("text", ""))}
    messages.error(request, error_read(refusal))
    return render(request, "chat/message_actions.html", context, status=refusal.status)


def _number(form, name: str) -> int:
    try:
        return int(str(form.get(name, "")).strip())
    except ValueError:
        raise Invalid(f"{name} must be a whole number", field=name) from None


def _apply(store, instance_id: str, action: str, form) -> tuple[str, dict[str, Any]]:
    """Run one change; (what to tell the player, the service's answer)."""
    where = {"instance_id": instance_id, "session_id": form.get("session", "")}
    if action == "undo":
        return gettext("Restored."), history.undo(store, instance_id=instance_id,
                                                token=form.get("token", ""))
    if action == "swipe":
        answer = history.reply_choose_alternative(
            store, **where, turn=_number(form, "turn"),
            alternative_index=_number(form, "alternative"))
        return gettext("Showing version %(version)s of %(versions)s.") % answer, answer
    message = {**where, "index": _number(form, "index"),
               "fingerprint": form.get("fingerprint", "")}
    if action == "edit":
        answer = history.message_change(store, **message, text=form.get("text", ""))
        return (gettext("Message edited.") if answer.get("changed", True)
                else gettext("Nothing changed.")), answer
    if action == "hide":
        hidden = form.get("hidden") == "1"
        answer = history.message_change(store, **message, hidden=hidden)
        return (gettext("Hidden from the model: it stays here, and is neither sent nor "
                        "remembered.") if hidden
                else gettext("The model sees this message again.")), answer
    if action == "delete":
        return gettext("Message deleted."), history.message_delete(store, **message)
    if action == "branch":
        answer = history.session_branch(store, **message)
        instance_index(store, instance_id)
        return gettext("Branched: %(s)s starts from here; the old one is kept in History.") % {
            "s": session_label(answer["session_id"])}, answer
    raise Http404("unknown action")


def _back(instance_id: str, form, action: str) -> str:
    """The page the form was on, at the message (after a delete, the one now in its place): the
    history manager at the row's page, else the chat. Only a position, a page number and the
    search as the history page takes them go back: a field is never echoed as it came."""
    index = form.get("index", "")
    index = index if POSITION.fullmatch(index) else ""
    if _came_from(form) != "history" or action == "branch":
        anchor = f"#m-{index}" if index and action != "branch" else ""
        return reverse("instance", args=[instance_id]) + anchor
    query = {key: form[key] for key in ("session", "page", "q") if form.get(key)}
    if not POSITION.fullmatch(query.get("page", "")):
        query.pop("page", None)
    if len(query.get("session", "")) > ID_CHARS:
        query.pop("session")
    if len(query.get("q", "")) > SEARCH_CHARS:
        query.pop("q")
    anchor = f"#line-{index}" if index else ""
    return f"{reverse('history', args=[instance_id])}?{urlencode(query)}{anchor}"


def _came_from(form) -> str:
    return "history" if form.get("back") == "history" else "chat"


@login_required
@require_POST
def message_form(request: HttpRequest, instance_id: str) -> HttpResponse:
    instance = instance_or_404(request, instance_id)
    action = request.POST.get("action", "")
    try:
        note, answer = _apply(get_store(), instance_id, action, request.POST)
    except AppError as exc:
        kept = _edit_kept(request, instance, instance_id, exc) if action == "edit" else None
        if kept is not None:
            return kept
        messages.error(request, error_read(exc))
    else:
        if not answer.get("undo_token"):
            messages.info(request, note)
        else:
            request.session[UNDO_OFFER] = {
                "instance_id": instance_id, "token": answer["undo_token"], "note": note,
                "back": _came_from(request.POST),
                "session": request.POST.get("session", ""),
                "until": time.time() + float(answer.get("undo_seconds") or 0)}
    return redirect(_back(instance_id, request.POST, action))
