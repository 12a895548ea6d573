"""Inline actions on one message of the chat page: edit in place, delete with undo, hide from
the model. Each goes
through the backup-first history rewrite in chat/history.py; answers are small fragments or
JSON the page script applies where the player is looking."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from chat import history, selectors, services
from chat.history_views import _owned
from personalab.storage import get_store


def _index(request: HttpRequest) -> int:
    try:
        return int(request.POST.get("index", ""))
    except ValueError:
        return -1


def _refused(exc: history.HistoryError) -> JsonResponse:
    return JsonResponse({"error": {"code": "history", "message": exc.message}}, status=exc.status)


@login_required
@require_GET
def message_source(request: HttpRequest, instance_id: str) -> JsonResponse:
    """The line's text as the file holds it (macros unreplaced), for the edit box."""
    _owned(request, instance_id)
    store = get_store()
    try:
        read = history.session_open(store, instance_id=instance_id,
                                    key=request.GET.get("session", ""))[0]
        index = int(request.GET.get("index", ""))
    except (history.HistoryError, ValueError):
        return JsonResponse({"error": {"code": "not_found", "message": "message not found"}},
                            status=404)
    line = read.lines[index] if 0 <= index < len(read.lines) else None
    if line is None or history.line_fingerprint(line) != request.GET.get("fp"):
        return JsonResponse({"error": {"code": "changed", "message":
                             "This message changed meanwhile; reload the page."}}, status=409)
    return JsonResponse({"content": str(line.get("content", ""))})


@login_required
@require_POST
def message_edit(request: HttpRequest, instance_id: str) -> HttpResponse:
    return _line_change(request, instance_id, text=request.POST.get("text", ""))


@login_required
@require_POST
def message_hide(request: HttpRequest, instance_id: str) -> HttpResponse:
    """Hide the message from the model (it stays here, dimmed) or show it to the model again."""
    return _line_change(request, instance_id, hidden=request.POST.get("hidden") == "1")


def _line_change(request: HttpRequest, instance_id: str, **change) -> HttpResponse:
    row = _owned(request, instance_id)
    session_id = request.POST.get("session", "")
    try:
        history.message_change(get_store(), instance_id=instance_id, session_id=session_id,
                               index=_index(request), fingerprint=request.POST.get("fp", ""),
                               **change)
    except history.HistoryError as exc:
        return _refused(exc)
    return _message_fragment(request, row, session_id)


def _message_fragment(request: HttpRequest, row, session_id: str) -> HttpResponse:
    """The changed message as the chat page shows it, to put in place of the old one."""
    store = get_store()
    state = store.instance_state_read(row.instance_id)
    read = store.session_read(row.instance_id, session_id)
    return render(request, "chat/_message.html", {
        "item": selectors.chat_message_item(read, index=_index(request)), "instance": row,
        **selectors.message_render_context(store, state=state, lines=read.lines)})


@login_required
@require_POST
def message_delete(request: HttpRequest, instance_id: str) -> JsonResponse:
    _owned(request, instance_id)
    try:
        result = history.message_delete(
            get_store(), instance_id=instance_id, session_id=request.POST.get("session", ""),
            index=_index(request), fingerprint=request.POST.get("fp", ""))
    except history.HistoryError as exc:
        return _refused(exc)
    return JsonResponse({"undo_token": result["undo_token"],
                         "undo_expires_at": result["undo_expires_at"]})


@login_required
@require_POST
def message_undo(request: HttpRequest, instance_id: str) -> JsonResponse:
    _owned(request, instance_id)
    try:
        history.undo(get_store(), instance_id=instance_id, token=request.POST.get("token", ""))
    except history.HistoryError as exc:
        return _refused(exc)
    return JsonResponse({"undone": True})


@login_required
@require_POST
def message_branch(request: HttpRequest, instance_id: str) -> JsonResponse:
    """A new current session with the messages up to this one; the old session stays listed."""
    _owned(request, instance_id)
    store = get_store()
    try:
        result = history.session_branch(
            store, instance_id=instance_id, session_id=request.POST.get("session", ""),
            index=_index(request), fingerprint=request.POST.get("fp", ""))
    except history.HistoryError as exc:
        return _refused(exc)
    services.instance_index(store, instance_id)
    return JsonResponse(result)
