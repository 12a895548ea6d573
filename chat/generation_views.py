"""The generation settings form of an instance (an htmx partial the chat page includes)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from chat import services
from personalab.lib.filestore import InstanceBusy
from personalab.lib.generation import FIELDS
from personalab.storage import get_store

INTEGER_FIELDS = ("max_tokens", "seed")


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


def generation_context(state: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"generation": state.get("generation") or {}, "generation_fields": FIELDS, **extra}


@login_required
@require_POST
def instance_generation(request: HttpRequest, instance_id: str) -> HttpResponse:
    store = get_store()
    try:
        state = store.instance_state_read(services.instance_for_user(
            request.user, instance_id).instance_id)
    except services.NotFound:
        raise Http404("instance not found") from None
    changes = {name: _form_value(name, request.POST.get(name, "")) for name in FIELDS}
    errors, status = {}, 200
    try:
        state = services.instance_update(store, user=request.user, instance_id=instance_id,
                                         generation=changes)
    except services.InstanceUpdateError as error:
        errors, status = {k.removeprefix("generation."): v for k, v in error.fields.items()}, 400
    except InstanceBusy:
        errors, status = {"generation": "a reply is streaming; save again when it ends"}, 409
    context = generation_context(state, instance_id=instance_id, errors=errors,
                                 submitted=request.POST if errors else None, saved=not errors)
    return render(request, "chat/_generation.html", context, status=status)
