"""The page side of importing a chat as a new chat: the character page's "Import a chat with
this character" and the library's "Import a chat" post here; the new chat opens with the
import report (and its warnings) on top."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from chat.import_new import CHAT_IMPORT_MAX_BYTES, chat_import_new
from chat.views import import_report_key
from personalab.lib.errors import AppError, Invalid, TooLarge
from personalab.lib.store_errors import InstanceBusy, StoreError


@login_required
@require_POST
def chat_import_page(request: HttpRequest) -> HttpResponse:
    """`file` and `character_id` (a character's page) or the ticked `character_ids` (the
    library); on a refusal, back to the page it came from (`next`) with the reason."""
    upload = request.FILES.get("file")
    ids = request.POST.getlist("character_ids") or [request.POST.get("character_id", "")]
    try:
        if upload is None:
            raise Invalid(
                gettext("choose a chat file (.jsonl, or Agnai or RisuAI .json)"),
                code="invalid_chat")
        if upload.size > CHAT_IMPORT_MAX_BYTES:
            raise TooLarge(gettext("the chat file is larger than 10 MB"))
        instance_id, session_id, report = chat_import_new(request.user, character_ids=ids,
                                                          data=upload.read())
    except (AppError, InstanceBusy, StoreError, ValueError) as exc:
        error = getattr(exc, "message", None) or str(exc)
        messages.error(request, gettext("The chat was not imported: %(error)s")
                       % {"error": error})
        back = request.POST.get("next", "")
        return redirect(back if url_has_allowed_host_and_scheme(
            back, allowed_hosts={request.get_host()}) else "library")
    request.session[import_report_key(instance_id)] = {**report, "session_id": session_id}
    return redirect("instance", instance_id=instance_id)
