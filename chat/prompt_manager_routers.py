"""REST routes of an instance's prompt manager (a SillyTavern preset's import and export:
`POST` / `GET /instances/{id}/generation/preset` in chat/routers.py)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema
from pydantic import Field, StrictBool

from chat.services.prompt_manager import prompt_manager_read, prompt_manager_update
from personalab.storage import get_store

router = Router(tags=["instances"])


class PromptManagerOut(Schema):
    blocks: list[dict[str, Any]]
    skipped: list[dict[str, str]]
    source: str
    regex_scripts: list[dict[str, Any]] = Field(default_factory=list)
    regex_scripts_allowed: bool = False


class PromptManagerIn(Schema):
    blocks: list[Any] | None = None
    regex_scripts: list[Any] | None = None
    regex_scripts_allowed: StrictBool | None = None


@router.get("/instances/{instance_id}/prompt_manager", response=PromptManagerOut)
def prompt_manager_get(request: HttpRequest, instance_id: str):
    """The instance's prompt blocks (main, post-history and its own, each with role, place,
    depth and switch) and what its last preset import left out, with the reason."""
    return prompt_manager_read(get_store(), user=request.auth, instance_id=instance_id)


@router.put("/instances/{instance_id}/prompt_manager", response=PromptManagerOut)
def prompt_manager_put(request: HttpRequest, instance_id: str, payload: PromptManagerIn):
    """Replace what is sent: the blocks (their order is the order sent), the preset's regex
    scripts, whether they run (`regex_scripts_allowed`: a preset's scripts are off until you
    allow them); each is checked before any is kept."""
    return prompt_manager_update(get_store(), user=request.auth, instance_id=instance_id,
                                 **payload.model_dump(exclude_none=True))
