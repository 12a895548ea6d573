"""The chat page drawer's variables card (an htmx partial): the chat's variables and the
account's global ones ({{setvar}}, {{setglobalvar}}...), shown and cleared
(chat.services.variables, as the API's /instances/{id}/variables)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from chat.pages.instance_access import instance_or_404
from chat.services.variables import instance_variables_clear, instance_variables_read
from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import InstanceBusy
from personalab.storage import get_store

SCOPES = ("local", "global", "all")


def variables_context(store: FileStore, *, instance_id: str) -> dict[str, Any]:
    return {"chat_variables": instance_variables_read(store, instance_id=instance_id)}


@login_required
@require_http_methods(["GET", "POST"])
def instance_variables(request: HttpRequest, instance_id: str) -> HttpResponse:
    """GET: the card as the files hold it now; POST `scope`: clear, then the card."""
    row = instance_or_404(request, instance_id)
    store, status, error = get_store(), 200, ""
    if request.method == "POST":
        scope = request.POST.get("scope")
        try:
            instance_variables_clear(store, instance_id=instance_id,
                                     scope=scope if scope in SCOPES else "local")
        except InstanceBusy:
            status, error = 409, gettext("A reply is streaming; try again when it ends.")
        if not request.htmx:
            (messages.error if error else messages.info)(
                request, error or gettext("Variables cleared."))
            return redirect("instance", instance_id=instance_id)
    return render(request, "chat/_variables.html", {
        "instance": row, "variables_error": error, "variables_cleared": status == 200
        and request.method == "POST", **variables_context(store, instance_id=instance_id)},
        status=status)
