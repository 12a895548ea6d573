"""Config routes of /api/v1/: config.json (thresholds, limits, preferences) that the director
and the prompt read. Everyone may read it; only staff may change it."""

from __future__ import annotations

import copy
from typing import Any

from django.http import HttpRequest
from ninja import Body, Router

from director.services import config_save
from personalab.lib.errors import Forbidden, Invalid
from personalab.lib.filestore.defaults import DEFAULT_CONFIG
from personalab.storage import get_store

router = Router(tags=["config"])


def _staff_only(request: HttpRequest) -> None:
    if not request.auth.is_staff:
        raise Forbidden("only staff accounts may change the configuration")


@router.get("/config", response=dict[str, Any])
def config_read(request: HttpRequest):
    return get_store().config_read()


@router.put("/config", response=dict[str, Any],
            description="Only the fields sent change; nothing is written unless every field is "
                        "valid (400 with `fields`).")
def config_update(request: HttpRequest, payload: dict[str, Any] = Body(...)):
    _staff_only(request)
    saved, errors = config_save(get_store(), changes=payload)
    if errors:
        raise Invalid("some settings are invalid; nothing was saved", code="invalid_config",
                      fields=errors)
    return saved


@router.post("/config/reset", response=dict[str, Any])
def config_reset(request: HttpRequest):
    _staff_only(request)
    saved, _ = config_save(get_store(), changes=copy.deepcopy(DEFAULT_CONFIG))
    return saved
