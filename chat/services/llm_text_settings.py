"""The text-completion choice of the connection (data/modules/llm.json, beside the base URL and
model): which API a turn uses and which instruct template builds its prompt string. The
settings page and `PUT /api/v1/llm/text_completion` both save through here."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings

from personalab.lib.errors import Invalid
from personalab.lib.filestore.store import FileStore
from personalab.lib.instruct import InstructError, instruct_template_read
from personalab.lib.instruct_presets import BUILT_IN
from personalab.lib.story_string import BUILT_IN as CONTEXT_BUILT_IN
from personalab.lib.story_string import StoryStringError, context_template_read

COMPLETION_APIS = ("chat", "text")
CUSTOM = "custom"  # llm.json's `instruct`: an imported SillyTavern instruct preset
TEMPLATE_CHOICES = (*BUILT_IN, CUSTOM)
CONTEXT_CHOICES = (*CONTEXT_BUILT_IN, CUSTOM)  # llm.json's `context`: an imported one
NO_CONTEXT = "none"  # PersonaLab's own headed sections, whatever the environment says
# Nothing chosen anywhere: SillyTavern lays a text-completion prompt out with its "Default"
# context template unless another is selected, and so do we.
DEFAULT_CONTEXT = "default"
MAX_PRESET_CHARS = 64_000  # a preset is about 1 KB


def llm_text_settings_read(store: FileStore) -> dict[str, Any]:
    """What is stored ("" = the environment's choice) and what a turn uses."""
    llm = store.module_read("llm")
    stored_api = llm.get("completion_api") if llm.get("completion_api") in COMPLETION_APIS else ""
    stored_template = (llm.get("instruct_template")
                       if llm.get("instruct_template") in TEMPLATE_CHOICES else "")
    custom = llm.get("instruct") if isinstance(llm.get("instruct"), dict) else None
    stored_context = (llm.get("context_template")
                      if llm.get("context_template") in (*CONTEXT_CHOICES, NO_CONTEXT) else "")
    context = llm.get("context") if isinstance(llm.get("context"), dict) else None
    context_effective = (stored_context or settings.PERSONALAB_CONTEXT_TEMPLATE
                         or DEFAULT_CONTEXT)
    return {
        "completion_api": stored_api, "instruct_template": stored_template, "instruct": custom,
        "completion_api_effective": stored_api or settings.PERSONALAB_COMPLETION_API,
        "instruct_template_effective": stored_template
        or settings.PERSONALAB_INSTRUCT_TEMPLATE or "chatml",
        "templates": list(BUILT_IN),
        "context_template": stored_context, "context": context,
        "context_template_effective": context_effective,
        "context_templates": list(CONTEXT_BUILT_IN),
    }


def context_template_parse(text: str) -> dict[str, Any]:
    """A SillyTavern context template pasted as JSON text, checked (its story string
    must parse)."""
    if len(text) > MAX_PRESET_CHARS:
        raise Invalid(f"a context template is at most {MAX_PRESET_CHARS:,} characters; this "
                      "is not one", field="context")
    try:
        data = json.loads(text)
    except ValueError as err:
        raise Invalid(f"not JSON: {err}", field="context") from err
    except RecursionError as err:
        raise Invalid("not a context template: nested too deep", field="context") from err
    return context_template_check(data)


def context_template_check(data: object) -> dict[str, Any]:
    try:
        return context_template_read(data).as_json()
    except StoryStringError as err:
        raise Invalid(err.message, field="context") from err


def instruct_preset_parse(text: str) -> dict[str, Any]:
    """A SillyTavern instruct preset pasted or uploaded as JSON text, checked and normalised
    (the older format's `names` / `separator_sequence` read as today's fields)."""
    if len(text) > MAX_PRESET_CHARS:
        raise Invalid(f"an instruct preset is at most {MAX_PRESET_CHARS:,} "
                      "characters; this is not one", field="instruct")
    try:
        data = json.loads(text)
    except ValueError as err:
        raise Invalid(f"not JSON: {err}", field="instruct") from err
    except RecursionError as err:  # brackets nested thousands deep: no preset looks so
        raise Invalid("not an instruct preset: nested too deep", field="instruct") from err
    return instruct_preset_check(data)


def instruct_preset_check(data: object) -> dict[str, Any]:
    try:
        return instruct_template_read(data).as_json()
    except InstructError as err:
        raise Invalid(err.message, field="instruct") from err


def llm_text_settings_save(store: FileStore, *, completion_api: str | None = None,
                           instruct_template: str | None = None,
                           instruct: dict[str, Any] | None = None,
                           context_template: str | None = None,
                           context: dict[str, Any] | None = None) -> dict[str, Any]:
    """Only what is sent changes ("" = back to the environment's choice); a preset sent is
    chosen unless another template is named. Nothing is written when one value is wrong."""
    llm = store.module_read("llm")
    if completion_api is not None:
        if completion_api not in ("", *COMPLETION_APIS):
            raise Invalid("must be chat, text or empty", field="completion_api")
        llm["completion_api"] = completion_api
    if instruct is not None:
        llm["instruct"] = instruct
        if instruct_template is None:
            instruct_template = CUSTOM
    if instruct_template is not None:
        if instruct_template not in ("", *TEMPLATE_CHOICES):
            raise Invalid(f"must be one of {', '.join(TEMPLATE_CHOICES)}, or empty",
                          field="instruct_template")
        if instruct_template == CUSTOM and not isinstance(llm.get("instruct"), dict):
            raise Invalid("no instruct preset is imported: send `instruct` "
                           "(a SillyTavern instruct preset) with it",
                          fields={"instruct": "missing_field"})
        llm["instruct_template"] = instruct_template
    if context is not None:
        llm["context"] = context
        if context_template is None:
            context_template = CUSTOM
    if context_template is not None:
        if context_template not in ("", NO_CONTEXT, *CONTEXT_CHOICES):
            raise Invalid(f"must be one of {', '.join((NO_CONTEXT, *CONTEXT_CHOICES))}, or "
                          "empty", field="context_template")
        if context_template == CUSTOM and not isinstance(llm.get("context"), dict):
            raise Invalid("no context template is imported: send `context` (a SillyTavern "
                          "context template) with it", fields={"context": "missing_field"})
        llm["context_template"] = context_template
    store.module_write("llm", llm)
    return llm_text_settings_read(store)
