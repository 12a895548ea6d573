"""The settings page (staff change, everyone reads): thresholds, limits, preferences, the
director, memory, history, prompt language and the LLM endpoint, with "restore defaults" per
section and a connection test. The values live in data/config.json and data/modules/."""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from chat import selectors
from chat.history_manager.base import DEFAULT_PAGE_SIZE, DEFAULT_UNDO_WINDOW
from chat.pages.llm_form import llm_form_errors, llm_settings_posted, llm_shown
from chat.play.impersonate import PROMPT_SETTING, impersonation_prompt_error
from chat.services.settings_reset import SETTINGS_SECTIONS, settings_section_reset
from director.services import config_save
from personalab.lib.config_schema import base_url_error, config_validate, whole_number
from personalab.lib.filestore.defaults import DEFAULT_MODULES
from personalab.lib.llm import LLMError
from personalab.lib.llm_models import llm_models_list
from personalab.lib.prompt_language import AUTO, PROMPT_LOCALES
from personalab.llm_config import llm_settings_from_env
from personalab.storage import get_store


@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    store = get_store()
    errors: dict[str, str] = {}
    if request.method == "POST":
        if not request.user.is_staff:
            messages.error(request, gettext("Only staff accounts may change the settings."))
            return redirect("settings")
        if "reset" in request.POST:
            section = request.POST["reset"]
            sections = SETTINGS_SECTIONS if section in ("1", "all") else (section,)
            if section in ("1", "all") or section in SETTINGS_SECTIONS:
                for name in sections:
                    settings_section_reset(store, section=name)
                messages.info(request, gettext("Defaults restored for every section.")
                              if len(sections) > 1 else
                              gettext("Defaults restored for %(section)s; the other sections kept "
                                      "their values.") % {"section": SECTION_TITLES[section]})
            else:
                messages.error(request,
                               gettext("Nothing was reset: that settings section is unknown."))
            return redirect("settings")
        changes = {
            "thresholds": {k: request.POST.get(f"thresholds.{k}", "")
                           for k in ("rag_fallback_threshold", "summary_last_n_turns")},
            "limits": {k: request.POST.get(f"limits.{k}", "")
                       for k in ("max_total_tokens", "middle_section_warning_tokens",
                                 "conversation_max_tokens")},
            "preferences": {
                "summary_order": request.POST.get("preferences.summary_order", ""),
                "conversation_load_all": "preferences.conversation_load_all" in request.POST,
            },
        }
        module_numbers, errors = _module_numbers(request.POST)
        if request.POST.get("prompt.locale", AUTO) not in PROMPT_LOCALES:
            errors["prompt.locale"] = gettext("must be one of: %(choices)s") % {
                "choices": ", ".join(PROMPT_LOCALES)}
        if error := impersonation_prompt_error(request.POST.get(f"prompt.{PROMPT_SETTING}", "")):
            errors[f"prompt.{PROMPT_SETTING}"] = error
        errors.update(llm_form_errors(request.POST, store.module_read("llm")))
        if errors:
            errors.update(config_validate(changes, store.config_read())[1])
        else:
            _, errors = config_save(store, changes=changes)
        if not errors:
            _save_module_settings(store, request.POST, module_numbers)
            messages.info(request, gettext("Saved. The next turn uses the new settings."))
            return redirect("settings")
        errors = {name: _field_error_shown(text) for name, text in errors.items()}
    config = store.config_read()
    prompt = store.module_read("prompt")
    return render(request, "settings.html", {
        "config": config, "errors": errors,
        "number_fields": _number_fields(config, errors, request.POST),
        "director": store.module_read("director"), "history": store.module_read("history"),
        "memory": selectors.memory_settings_effective(store),
        "prompt_locale": request.POST.get("prompt.locale") if errors
        else prompt.get("locale") or "zh",
        "prompt_locale_error": errors.get("prompt.locale", ""),
        "impersonation_prompt": request.POST.get(f"prompt.{PROMPT_SETTING}") if errors
        else prompt.get(PROMPT_SETTING) or "",
        "impersonation_prompt_error": errors.get(f"prompt.{PROMPT_SETTING}", ""),
        "prompt_locales": [(AUTO, gettext("Automatic (the character's language)")),
                           ("zh", gettext("Chinese")), ("en", gettext("English"))],
        "llm": llm_shown(store, errors, request.POST),
        "module_fields": _module_fields(store, errors, request.POST),
    }, status=400 if errors else 200)


@login_required
@require_POST
def settings_test_connection(request: HttpRequest) -> HttpResponse:
    """Ask the base URL typed on the settings page (saved or not) for its models, sending the
    key a turn would send there; the answer replaces the result box under the button."""
    if not request.user.is_staff:
        return _connection_result(
            request, error=gettext("Only staff accounts may test the connection."), status=403)
    base_url = request.POST.get("llm.base_url", "").strip()
    if error := base_url_error(base_url):
        return _connection_result(request, error=gettext("The base URL %(error)s.") % {
            "error": _field_error_shown(error)}, status=400)
    posted = llm_settings_posted(get_store().module_read("llm"), request.POST)
    settings = llm_settings_from_env(posted)
    if not settings.base_url and not settings.api_key:
        return _connection_result(request, error=gettext(
            "No base URL is set here or in OPENAI_BASE_URL: replies come from the offline demo, "
            "so there is no server to test."), status=400)
    try:
        models = llm_models_list(settings)
    except LLMError as error:
        return _connection_result(request, error=error.message, status=502)
    return _connection_result(request, models=models, endpoint=settings.base_url)


def _connection_result(request: HttpRequest, *, error: str = "", models: list[str] = (),
                       endpoint: str = "", status: int = 200) -> HttpResponse:
    # htmx swaps only 2xx answers by default; the error sentence must show, so it is sent as
    # 200 to htmx and with its real status to everyone else.
    return render(request, "_llm_models.html",
                  {"error": error, "models": models, "endpoint": endpoint},
                  status=200 if request.htmx else status)


# personalab/lib is framework-free and words its field errors in English; these are its words,
# shown in the reader's language.
LIB_FIELD_ERRORS = {
    "must be a whole number": gettext_lazy("must be a whole number"),
    "must be an http:// or https:// URL": gettext_lazy("must be an http:// or https:// URL"),
    "must not contain credentials, spaces or a #fragment":
        gettext_lazy("must not contain credentials, spaces or a #fragment"),
    "must be true or false": gettext_lazy("must be true or false"),
    "unknown setting": gettext_lazy("unknown setting"),
}
LIB_RANGE_ERROR = re.compile(r"must be between (-?\d{1,12}) and (-?\d{1,12})")


def _field_error_shown(text: str) -> str:
    if text in LIB_FIELD_ERRORS:
        return str(LIB_FIELD_ERRORS[text])
    if found := LIB_RANGE_ERROR.fullmatch(text):
        return gettext("must be between %(low)s and %(high)s") % {
            "low": found[1], "high": found[2]}
    return text


SECTION_TITLES = {"thresholds": gettext_lazy("Thresholds"), "limits": gettext_lazy("Limits"),
                  "preferences": gettext_lazy("Preferences"), "director": gettext_lazy("Director"),
                  "memory": gettext_lazy("Memory"), "history": gettext_lazy("History"),
                  "llm": gettext_lazy("LLM")}

NUMBER_FIELDS = [
    ("thresholds", "thresholds.rag_fallback_threshold",
     gettext_lazy("Turns without progress before the fallback reminder (1–10)"), ""),
    ("thresholds", "thresholds.summary_last_n_turns",
     gettext_lazy("Turns kept verbatim after a summary (1–20)"), ""),
    ("limits", "limits.max_total_tokens",
     gettext_lazy("Prompt length limit (10000–200000 tokens)"), ""),
    ("limits", "limits.middle_section_warning_tokens",
     gettext_lazy("Middle region warning threshold (1000–50000 tokens)"),
     gettext_lazy("ℹ️ Above this a warning is shown; nothing is cut.")),
    ("limits", "limits.conversation_max_tokens",
     gettext_lazy("Session file token limit (1000–1000000)"), ""),
]


def _number_fields(config: dict, errors: dict[str, str], posted) -> list[dict]:
    fields = []
    for section, name, label, note in NUMBER_FIELDS:
        group, key = name.split(".")
        value = posted.get(name) if errors else config[group][key]
        fields.append({"section": SECTION_TITLES[section], "group": group, "name": name, "label": label,
                       "note": note,
                       "value": value, "error": errors.get(name, "")})
    return fields


# (module, key, label, low, high, default): numbers kept in data/modules/{module}.json.
MODULE_NUMBER_FIELDS = [
    ("memory", "recap_every_n_rounds", gettext_lazy("Recap every N rounds (1–100)"), 1, 100, 5),
    ("memory", "recap_max_entries",
     gettext_lazy("Recap list max entries (0 = unlimited, 0–500)"), 0, 500, 20),
    ("history", "undo_window_seconds",
     gettext_lazy("Undo window after an edit or delete, seconds (0–60)"),
     0, 60, DEFAULT_UNDO_WINDOW),
    ("history", "page_size", gettext_lazy("History manager messages per page (10–500)"), 10, 500,
     DEFAULT_PAGE_SIZE),
    ("history", "backups_keep",
     gettext_lazy("Backups kept per session, oldest removed first (1–1000)"), 1, 1000,
     DEFAULT_MODULES["history"]["backups_keep"]),
]


def _module_numbers(form) -> tuple[dict[tuple[str, str], int], dict[str, str]]:
    """A field left out of the form keeps its value; one sent must be in range."""
    values, errors = {}, {}
    for module, key, _label, low, high, _default in MODULE_NUMBER_FIELDS:
        name = f"{module}.{key}"
        if name not in form:
            continue
        number = whole_number(form.get(name, ""))
        if number is not None and low <= number <= high:
            values[(module, key)] = number
        else:
            errors[name] = gettext("must be a whole number from %(low)s to %(high)s") % {
                "low": low, "high": high}
    return values, errors


def _module_fields(store, errors: dict[str, str], posted) -> dict[str, list[dict]]:
    fields: dict[str, list[dict]] = {}
    for module, key, label, _low, _high, default in MODULE_NUMBER_FIELDS:
        name = f"{module}.{key}"
        value = posted.get(name) if errors else store.module_read(module).get(key, default)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        fields.setdefault(module, []).append(
            {"name": name, "label": label, "value": value, "error": errors.get(name, "")})
    return fields


def _save_module_settings(store, form, numbers: dict[tuple[str, str], int]) -> None:
    changed: dict[str, dict] = {module: store.module_read(module)
                                for module in ("director", "memory", "history")}
    changed["director"]["enabled"] = "director.enabled" in form
    changed["memory"]["recall_enabled"] = "memory.recall_enabled" in form
    changed["memory"]["recaps_enabled"] = "memory.recaps_enabled" in form
    changed["memory"]["recall_related_conversations"] = \
        "memory.recall_related_conversations" in form
    changed["history"]["asides_keep"] = "history.asides_keep" in form
    for (module, key), value in numbers.items():
        changed[module][key] = value
    if "prompt.locale" in form or f"prompt.{PROMPT_SETTING}" in form:
        changed["prompt"] = store.module_read("prompt")
    if "prompt.locale" in form:
        changed["prompt"]["locale"] = form["prompt.locale"]
    if f"prompt.{PROMPT_SETTING}" in form:
        changed["prompt"][PROMPT_SETTING] = form[f"prompt.{PROMPT_SETTING}"].strip()
    for module, settings in changed.items():
        store.module_write(module, settings)
    store.module_write("llm", llm_settings_posted(store.module_read("llm"), form))


