"""`/api/v1/llm/text_completion`: the settings page's text-completion choice (chat or text
completion, the instruct template, an imported SillyTavern instruct preset, the context
template). Everyone may read it; only staff may change it, as the rest of the settings."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema
from pydantic import Field

from chat.services.llm_text_settings import (
    context_template_check,
    instruct_preset_check,
    llm_text_settings_read,
    llm_text_settings_save,
)
from personalab.lib.body_fields import ClosedBody
from personalab.lib.errors import Forbidden
from personalab.storage import get_store

router = Router(tags=["llm"])


class TextCompletionIn(ClosedBody):
    completion_api: str | None = Field(
        None, description='"chat", "text", or "" for PERSONALAB_COMPLETION_API')
    instruct_template: str | None = Field(
        None, description='a built-in key (chatml, llama3, mistral, alpaca, vicuna, gemma, '
                          'metharme, phi), "custom" (the imported preset), or "" for '
                          'PERSONALAB_INSTRUCT_TEMPLATE')
    instruct: dict[str, Any] | None = Field(
        None, description="a SillyTavern instruct preset (its JSON); stored and chosen unless "
                          "instruct_template names another")
    context_template: str | None = Field(
        None, description='the context template (story string) of text completion: a built-in '
                          'key (default, minimalist, chatml, llama3, mistral, alpaca, gemma, phi, '
                          'llama2), "custom" (the imported one), "none" (PersonaLab\'s own '
                          'sections) or "" for PERSONALAB_CONTEXT_TEMPLATE')
    context: dict[str, Any] | None = Field(
        None, description="a SillyTavern context template (its JSON); stored and chosen unless "
                          "context_template names another")


class TextCompletionOut(Schema):
    completion_api: str
    instruct_template: str
    instruct: dict[str, Any] | None
    completion_api_effective: str
    instruct_template_effective: str
    templates: list[str]
    context_template: str
    context: dict[str, Any] | None
    context_template_effective: str
    context_templates: list[str]


@router.get("/llm/text_completion", response=TextCompletionOut)
def text_completion_read(request: HttpRequest):
    return llm_text_settings_read(get_store())


@router.put("/llm/text_completion", response=TextCompletionOut,
            description="Only the fields sent change; a bad preset is 400 naming `instruct` "
                        "and nothing is saved.")
def text_completion_update(request: HttpRequest, payload: TextCompletionIn):
    if not request.auth.is_staff:
        raise Forbidden("only staff accounts may change the connection")
    sent = payload.model_dump(exclude_unset=True)
    instruct = instruct_preset_check(sent["instruct"]) if sent.get("instruct") else None
    context = context_template_check(sent["context"]) if sent.get("context") else None
    return llm_text_settings_save(get_store(), completion_api=sent.get("completion_api"),
                                  instruct_template=sent.get("instruct_template"),
                                  instruct=instruct,
                                  context_template=sent.get("context_template"),
                                  context=context)
