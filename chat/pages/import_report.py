"""The import report on the chat page: it waits in the login session and stays on the page
until the player dismisses it or moves to another conversation (it was shown once: a reload, or
the page "Play as" came back to, had lost it and its other "Play as" buttons)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from chat.pages.instance_access import instance_or_404
from chat.services.session_import import import_report_play_as
from personalab.lib.filestore.store import FileStore


def import_report_key(instance_id: str) -> str:
    return f"chat_import_report:{instance_id}"


def import_report_for_page(request: HttpRequest, store: FileStore, *, instance_id: str,
                           state: dict[str, Any]) -> dict[str, Any] | None:
    """The report of the conversation shown, as it reads now; None when there is none (one
    of another conversation is forgotten)."""
    key = import_report_key(instance_id)
    report = request.session.get(key)
    if not isinstance(report, dict):
        return None
    if report.get("session_id") != state.get("current_session_id"):
        del request.session[key]
        return None
    return import_report_play_as(store, state=state, report=report)


@login_required
@require_POST
def import_report_dismiss(request: HttpRequest, instance_id: str) -> HttpResponse:
    instance_or_404(request, instance_id)
    request.session.pop(import_report_key(instance_id), None)
    return redirect("instance", instance_id=instance_id)
