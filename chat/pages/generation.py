"""The generation settings form of an instance (an htmx partial the chat page includes)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from chat.pages.instance_access import instance_or_404
from chat.services.errors import InstanceUpdateError
from chat.services.generation import generation_defaults_read, generation_defaults_update
from chat.services.instance_settings import instance_update
from personalab.lib.generation import FIELDS
from personalab.lib.store_errors import InstanceBusy
from personalab.storage import get_store

INTEGER_FIELDS = ("max_tokens", "seed", "context_tokens", "top_k")
# logit_bias is set through the API (a JSON object); the form leaves it as it is.
FORM_FIELDS = tuple(name for name in FIELDS if name != "logit_bias")


def _form_value(name: str, raw: str) -> Any:
    """A form string as the setting's type; what does not parse is passed on to be refused."""
    raw = raw.strip()
    if not raw:
        return None
    if name == "stop":
        # As in SillyTavern, a typed \n stands for a line break inside a stop string.
        return [line.replace("\\n", "\n") for line in raw.splitlines() if line]
    try:
        return int(raw) if name in INTEGER_FIELDS else float(raw)
    except ValueError:
        return raw


def _form_changes(request: HttpRequest) -> dict[str, Any]:
    return {name: _form_value(name, request.POST.get(name, "")) for name in FORM_FIELDS}


def _form_render(request: HttpRequest, *, action: str, generation: dict[str, Any],
                 errors: dict[str, str], status: int) -> HttpResponse:
    errors = {k.removeprefix("generation."): v for k, v in errors.items()}
    return render(request, "chat/_generation.html", {
        "generation": generation, "generation_action": action, "errors": errors,
        "submitted": request.POST if errors else None, "saved": not errors}, status=status)


@login_required
@require_POST
def instance_generation(request: HttpRequest, instance_id: str) -> HttpResponse:
    store = get_store()
    state = store.instance_state_read(instance_or_404(request, instance_id).instance_id)
    errors, status = {}, 200
    try:
        state = instance_update(store, user=request.user, instance_id=instance_id,
                                generation=_form_changes(request))
    except InstanceUpdateError as error:
        errors, status = error.fields, 400
    except InstanceBusy:
        errors, status = {"generation": "a reply is streaming; save again when it ends"}, 409
    return _form_render(request, action=reverse("instance_generation", args=[instance_id]),
                        generation=state.get("generation") or {}, errors=errors, status=status)


@login_required
@require_POST
def account_generation(request: HttpRequest) -> HttpResponse:
    """The player's defaults, used by every instance that does not set its own."""
    store = get_store()
    try:
        generation = generation_defaults_update(store, user=request.user,
                                                changes=_form_changes(request))
        errors, status = {}, 200
    except InstanceUpdateError as error:
        generation = generation_defaults_read(store, user=request.user)
        errors, status = error.fields, 400
    return _form_render(request, action=reverse("account_generation"), generation=generation,
                        errors=errors, status=status)
