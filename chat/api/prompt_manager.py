"""REST routes of an instance's prompt manager (a SillyTavern preset's import and export:
`POST` / `GET /instances/{id}/generation/preset` in chat/api/instances.py) and of the account's
default one, which new chats start from (`/prompt_manager`, `/generation/preset`)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Body, Router, Schema
from pydantic import Field, StrictBool

from chat.services.account_presets import (
    account_preset_apply,
    account_preset_export,
    account_prompt_manager_read,
    account_prompt_manager_update,
)
from chat.services.prompt_manager import (
    prompt_manager_read,
    prompt_manager_reset,
    prompt_manager_update,
    prompt_manager_utility_defaults,
)
from personalab.lib.prompt_manager import UTILITY_DEFAULTS
from personalab.storage import get_store

router = Router(tags=["instances"])


class PromptManagerOut(Schema):
    blocks: list[dict[str, Any]]
    skipped: list[dict[str, str]]
    source: str
    regex_scripts: list[dict[str, Any]] = Field(default_factory=list)
    regex_scripts_allowed: bool = False
    markers: list[str] = Field(default_factory=list)
    # SillyTavern's utility prompts this manager sets (chat_main_prompt, new_chat_prompt,
    # new_group_chat_prompt, new_example_chat_prompt, continue_nudge_prompt, group_nudge_prompt,
    # impersonation_prompt, personality_format, scenario_format, continue_prefill); the rest:
    # its defaults, in `utility_defaults` (SillyTavern 1.12.6's; a chat whose prompt language
    # is Chinese: its own translation of the lines it has one for, as its turns send them). A
    # PUT of `utility` replaces them all: a key left out is back to its default, "" sends none.
    utility: dict[str, Any] = Field(default_factory=dict)
    utility_defaults: dict[str, Any] = Field(default_factory=lambda: dict(UTILITY_DEFAULTS))


class PromptManagerIn(Schema):
    blocks: list[Any] | None = None
    regex_scripts: list[Any] | None = None
    regex_scripts_allowed: StrictBool | None = None
    utility: dict[str, Any] | None = None


@router.get("/instances/{instance_id}/prompt_manager", response=PromptManagerOut)
def prompt_manager_get(request: HttpRequest, instance_id: str):
    """The instance's prompt blocks (main, post-history and its own, each with role, place,
    depth and switch) and what its last preset import left out, with the reason."""
    return _with_defaults(request, instance_id, prompt_manager_read(
        get_store(), user=request.auth, instance_id=instance_id))


def _with_defaults(request: HttpRequest, instance_id: str,
                   manager: dict[str, Any]) -> dict[str, Any]:
    """A chat's manager with the utility defaults of its prompt language."""
    return {**manager, "utility_defaults": prompt_manager_utility_defaults(
        get_store(), user=request.auth, instance_id=instance_id)}


@router.put("/instances/{instance_id}/prompt_manager", response=PromptManagerOut)
def prompt_manager_put(request: HttpRequest, instance_id: str, payload: PromptManagerIn):
    """Replace what is sent: the blocks (their order is the order sent), the preset's regex
    scripts, whether they run (`regex_scripts_allowed`: a preset's scripts are off until you
    allow them); each is checked before any is kept."""
    return _with_defaults(request, instance_id, prompt_manager_update(
        get_store(), user=request.auth, instance_id=instance_id,
        **payload.model_dump(exclude_none=True)))


@router.post("/instances/{instance_id}/prompt_manager/reset", response=PromptManagerOut)
def prompt_manager_reset_post(request: HttpRequest, instance_id: str):
    """The chat's blocks and preset scripts back to your default (`GET /prompt_manager`); none
    set: the prompt template's own. The chat's samplers are kept."""
    return _with_defaults(request, instance_id, prompt_manager_reset(
        get_store(), user=request.auth, instance_id=instance_id))


@router.get("/prompt_manager", response=PromptManagerOut, tags=["generation"])
def account_prompt_manager_get(request: HttpRequest):
    """Your default prompt blocks and preset regex scripts: every new chat starts from a copy."""
    return account_prompt_manager_read(get_store(), user=request.auth)


@router.put("/prompt_manager", response=PromptManagerOut, tags=["generation"])
def account_prompt_manager_put(request: HttpRequest, payload: PromptManagerIn):
    """Replace what is sent of your default (as for a chat's); chats already started keep
    theirs until reset."""
    return account_prompt_manager_update(get_store(), user=request.auth,
                                         **payload.model_dump(exclude_none=True))


class AccountPresetOut(PromptManagerOut):
    generation: dict[str, Any]


@router.post("/generation/preset", response=AccountPresetOut, tags=["generation"])
def account_preset_import(request: HttpRequest, preset: Body[dict[str, Any]]):
    """A SillyTavern Chat Completion preset JSON as your default: its samplers become your
    default samplers, its prompts and regex scripts (off until allowed) your default blocks."""
    return account_preset_apply(get_store(), user=request.auth, preset=preset)


@router.get("/generation/preset", response=dict[str, Any], tags=["generation"])
def account_preset_get(request: HttpRequest):
    """Your default samplers, blocks and preset regex scripts as a SillyTavern preset."""
    return account_preset_export(get_store(), user=request.auth)

