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

COMPLETION_APIS = ("chat", "text")
CUSTOM = "custom"  # llm.json's `instruct`: an imported SillyTavern instruct preset
TEMPLATE_CHOICES = (*BUILT_IN, CUSTOM)
MAX_PRESET_CHARS = 64_000  # a preset is about 1 KB


def llm_text_settings_read(store: FileStore) -> dict[str, Any]:
    """What is stored ("" = the environment's choice) and what a turn uses."""
    llm = store.module_read("llm")
    stored_api = llm.get("completion_api") if llm.get("completion_api") in COMPLETION_APIS else ""
    stored_template = (llm.get("instruct_template")
                       if llm.get("instruct_template") in TEMPLATE_CHOICES else "")
    custom = llm.get("instruct") if isinstance(llm.get("instruct"), dict) else None
    return {
        "completion_api": stored_api, "instruct_template": stored_template, "instruct": custom,
        "completion_api_effective": stored_api or settings.PERSONALAB_COMPLETION_API,
        "instruct_template_effective": stored_template
        or settings.PERSONALAB_INSTRUCT_TEMPLATE or "chatml",
        "templates": list(BUILT_IN),
    }


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
                           instruct: dict[str, Any] | None = None) -> dict[str, Any]:
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
    store.module_write("llm", llm)
    return llm_text_settings_read(store)
