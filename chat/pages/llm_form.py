"""The settings page's connection section (data/modules/llm.json): base URL, its key, model,
prompt post-processing, and the text-completion choice with its instruct and context templates."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext

from chat.prompt.alternation import PROCESSING, processing_mode
from chat.services.llm_text_settings import (
    COMPLETION_APIS,
    CONTEXT_CHOICES,
    CUSTOM,
    DEFAULT_CONTEXT,
    NO_CONTEXT,
    TEMPLATE_CHOICES,
    context_template_parse,
    instruct_preset_parse,
    llm_text_settings_read,
)
from personalab.lib.config_schema import base_url_error
from personalab.lib.errors import AppError
from personalab.lib.filestore.store import FileStore


def llm_form_errors(form: Any, llm: dict[str, Any]) -> dict[str, str]:
    """What is wrong with the section as posted (field name -> words); words of the
    framework-free checks are translated by the page."""
    errors: dict[str, str] = {}
    if error := base_url_error(form.get("llm.base_url", "").strip()):
        errors["llm.base_url"] = error
    if form.get("llm.completion_api", "") not in ("", *COMPLETION_APIS):
        errors["llm.completion_api"] = gettext("must be chat, text or empty")
    template = form.get("llm.instruct_template", "")
    if template not in ("", *TEMPLATE_CHOICES):
        errors["llm.instruct_template"] = gettext("unknown instruct template")
    pasted = form.get("llm.instruct_json", "").strip()
    if pasted:
        try:
            instruct_preset_parse(pasted)
        except AppError as err:
            errors["llm.instruct_json"] = err.message
    elif template == CUSTOM and not isinstance(llm.get("instruct"), dict):
        errors["llm.instruct_template"] = gettext(
            "Paste a SillyTavern instruct preset below to use a custom template.")
    context = form.get("llm.context_template", "")
    if context not in ("", NO_CONTEXT, *CONTEXT_CHOICES):
        errors["llm.context_template"] = gettext("unknown context template")
    pasted = form.get("llm.context_json", "").strip()
    if pasted:
        try:
            context_template_parse(pasted)
        except AppError as err:
            errors["llm.context_json"] = err.message
    elif context == CUSTOM and not isinstance(llm.get("context"), dict):
        errors["llm.context_template"] = gettext(
            "Paste a SillyTavern context template below to use a custom one.")
    return errors


def llm_settings_posted(llm: dict, form: Any) -> dict:
    """A key is kept only for the base URL it was entered for; an empty field keeps it. A
    pasted instruct preset is stored and chosen; an empty box keeps the stored one."""
    base_url = form.get("llm.base_url", "").strip()
    key = form.get("llm.api_key", "").strip()
    if not key and base_url == llm.get("base_url", "") and "llm.api_key_clear" not in form:
        key = llm.get("api_key", "")
    processing = form.get("llm.prompt_processing", llm.get("prompt_processing", "none"))
    saved = {**llm, "base_url": base_url, "model": form.get("llm.model", "").strip(),
             "api_key": key, "prompt_processing": processing_mode({"prompt_processing": processing})}
    if form.get("llm.completion_api", "") in ("", *COMPLETION_APIS):
        saved["completion_api"] = form.get("llm.completion_api", llm.get("completion_api", ""))
    if form.get("llm.instruct_template", "") in ("", *TEMPLATE_CHOICES):
        saved["instruct_template"] = form.get("llm.instruct_template",
                                              llm.get("instruct_template", ""))
    pasted = form.get("llm.instruct_json", "").strip()
    if pasted:
        try:
            saved["instruct"] = instruct_preset_parse(pasted)
            saved["instruct_template"] = CUSTOM
        except AppError:
            pass  # refused beside its box by llm_form_errors; nothing is saved then
    if form.get("llm.context_template", "") in ("", NO_CONTEXT, *CONTEXT_CHOICES):
        saved["context_template"] = form.get("llm.context_template",
                                             llm.get("context_template", ""))
    pasted = form.get("llm.context_json", "").strip()
    if pasted:
        try:
            saved["context"] = context_template_parse(pasted)
            saved["context_template"] = CUSTOM
        except AppError:
            pass  # refused beside its box, as an instruct preset is
    return saved


def llm_shown(store: FileStore, errors: dict[str, str], posted: Any) -> dict:
    """What the page shows of llm.json: never the key itself."""
    llm = store.module_read("llm")
    text = llm_text_settings_read(store)
    custom = text["instruct"]

    def value(name: str, stored: str) -> str:
        return posted.get(f"llm.{name}", "") if errors else stored

    return {"base_url": value("base_url", llm.get("base_url", "")),
            "model": value("model", llm.get("model", "")), "has_key": bool(llm.get("api_key")),
            "error": errors.get("llm.base_url", ""), "processing": processing_mode(llm),
            "processing_choices": PROCESSING,
            "completion_api": value("completion_api", text["completion_api"]),
            "completion_api_env": settings.PERSONALAB_COMPLETION_API,
            "instruct_template_env": settings.PERSONALAB_INSTRUCT_TEMPLATE or "chatml",
            "completion_apis": COMPLETION_APIS,
            "instruct_template": value("instruct_template", text["instruct_template"]),
            "instruct_templates": [*text["templates"], *([CUSTOM] if custom else [])],
            "custom_name": (custom or {}).get("name", ""),
            "instruct_json": posted.get("llm.instruct_json", "") if errors else "",
            "context_template": value("context_template", text["context_template"]),
            "context_template_env": settings.PERSONALAB_CONTEXT_TEMPLATE or DEFAULT_CONTEXT,
            "context_templates": [NO_CONTEXT, *text["context_templates"],
                                  *([CUSTOM] if text["context"] else [])],
            "context_name": (text["context"] or {}).get("name", ""),
            "context_json": posted.get("llm.context_json", "") if errors else "",
            "field_errors": {name.removeprefix("llm."): text for name, text in errors.items()
                             if name.startswith("llm.")}}
