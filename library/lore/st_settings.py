"""SillyTavern's global world-info settings (its settings.json `world_info_settings`, what
`getWorldInfoSettings` in public/scripts/world-info.js writes) read against this app's.

Three have a home here, site-wide in data/modules/prompt.json, and are imported:
`world_info_budget` (`world_info_budget_percent`), `world_info_budget_cap`,
`world_info_include_names`. The others are fixed here or set per book; each is reported as the
same as here or not applied, with what this app does instead
(docs/decisions/st-world-info-settings.md). Every value is checked before anything is written:
a bad one is an error naming its key; a key this app does not know is listed, not refused."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext_noop

from library.errors import LibraryError
from library.lore import defaults
from personalab.lib.filestore.store import FileStore
from personalab.lib.nesting import JsonRefused, json_loads_bounded

MAX_FILE_BYTES = 10 * 1024 * 1024  # a whole settings.json with its presets stays under
PROMPT_MODULE = "prompt"
# SillyTavern's key -> modules/prompt.json's key
IMPORTED = {"world_info_budget": "world_info_budget_percent",
            "world_info_budget_cap": "world_info_budget_cap",
            "world_info_include_names": "world_info_include_names"}
CHARACTER_FIRST = 1  # world_info_insertion_strategy: evenly 0, character_first 1, global_first 2
# What this app does for the settings it has no global switch for, under SillyTavern's names.
FIXED = {"world_info_depth": defaults.SCAN_DEPTH,
         "world_info_recursive": defaults.RECURSIVE,
         "world_info_case_sensitive": defaults.CASE_SENSITIVE,
         "world_info_match_whole_words": defaults.MATCH_WHOLE_WORDS,
         "world_info_min_activations": 0,
         "world_info_min_activations_depth_max": 0,
         "world_info_use_group_scoring": False,
         "world_info_max_recursion_steps": 0,
         "world_info_character_strategy": CHARACTER_FIRST,
         "world_info_overflow_alert": False}
PER_BOOK = {"world_info_depth": "scan_depth", "world_info_recursive": "recursive",
            "world_info_case_sensitive": "case_sensitive",
            "world_info_match_whole_words": "match_whole_words",
            "world_info_min_activations": "min_activations",
            "world_info_min_activations_depth_max": "min_activations_depth_max",
            "world_info_use_group_scoring": "use_group_scoring"}
# English as the API says it; the library page says it in the reader's language (msgids).
PER_BOOK_REASON = gettext_noop(
    "no global setting here: each book sets it (“%(field)s” of the book, on its page or over "
    "the API), and a book that leaves it unset gets %(default)s")
OTHER_REASONS = {
    "world_info_max_recursion_steps": gettext_noop(
        "recursion here stops when nothing new fires, at most 50 scan steps (SillyTavern's 0)"),
    "world_info_character_strategy": gettext_noop(
        "entries are weighed character first here (the chat's, the persona's, the character's, "
        "then the background's books)"),
    "world_info_overflow_alert": gettext_noop(
        "no alert here: the prompt inspector and the trace list the entries the budget left "
        "out"),
    "world_info": gettext_noop(
        "each account here chooses its own books for all its chats: import this file under "
        "“Your global world info from SillyTavern” on the library page, or turn on “In all my "
        "chats” on each book's page"),
}
BUDGET_NOTE = gettext_noop("world_info_budget %(value)s is over 100, an old setting SillyTavern "
                           "reads as %(budget)s")
VALUE_ERRORS = {
    "boolean": gettext_noop("must be true or false"),
    "books": gettext_noop("must hold the selected books' names (globalSelect)"),
    "number": gettext_noop("must be a number"),
    "percent": gettext_noop("must be a percentage from 1 to 100"),
    "strategy": gettext_noop("must be 0 (evenly), 1 (character first) or 2 (global first)"),
    "count": gettext_noop("must be a whole number, 0 or more"),
}
BOOLEANS = ("world_info_include_names", "world_info_recursive", "world_info_case_sensitive",
            "world_info_match_whole_words", "world_info_use_group_scoring",
            "world_info_overflow_alert")
COUNTS = ("world_info_budget_cap", "world_info_depth", "world_info_min_activations",
          "world_info_min_activations_depth_max", "world_info_max_recursion_steps")
KNOWN = (*IMPORTED, *FIXED, "world_info")


@dataclass
class WorldInfoSettingsImport:
    """What a file's world-info settings came to: `applied` (SillyTavern's key -> the value
    now in force), `same` (keys whose value is what this app does anyway), `not_applied`
    (key, value, what this app does and why), `unknown` keys, and `notes` (a msgid and its
    values)."""

    applied: dict[str, Any] = field(default_factory=dict)
    same: list[str] = field(default_factory=list)
    not_applied: list[dict[str, Any]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    notes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (msgid, values)


def world_info_settings_effective(store: FileStore) -> dict[str, Any]:
    """The world-info settings a turn uses, under SillyTavern's names."""
    prompt = store.module_read(PROMPT_MODULE)
    percent = prompt.get("world_info_budget_percent", defaults.BUDGET_PERCENT)
    if not _is_number(percent) or not 0 < percent <= 100:
        percent = defaults.BUDGET_PERCENT
    cap = prompt.get("world_info_budget_cap", 0)
    return {"world_info_budget": percent,
            "world_info_budget_cap": int(cap) if _is_number(cap) and cap > 0 else 0,
            "world_info_include_names": prompt.get("world_info_include_names", True)
            is not False,
            **FIXED}


def world_info_settings_import(store: FileStore, *, data: bytes) -> WorldInfoSettingsImport:
    """Read a SillyTavern settings.json (or its `world_info_settings` alone) and write the
    settings that have a home here; nothing is written when a value is refused. The caller
    checks that the account may change site-wide settings."""
    found = _world_info_part(settings_document(data))
    errors: dict[str, str] = {}
    checked = {key: _checked(key, value, errors) for key, value in found.items()
               if key in KNOWN}
    if errors:
        raise LibraryError("some world-info settings are invalid; nothing was imported: "
                           + "; ".join(f"{key} {text}" for key, text in errors.items()), errors)
    result = WorldInfoSettingsImport(unknown=_listed([key for key in found if key not in KNOWN]))
    changes = {}
    for key, value in checked.items():
        if key in IMPORTED:
            changes[IMPORTED[key]] = value
            result.applied[key] = value
        elif _same(key, value):
            result.same.append(key)
        else:
            result.not_applied.append({"key": key, "value": value, "here": FIXED.get(key),
                                       "reason": _reason(key)})
    if "world_info_budget" in found and found["world_info_budget"] != checked.get(
            "world_info_budget"):
        result.notes.append((BUDGET_NOTE, {"value": found["world_info_budget"],
                                           "budget": defaults.BUDGET_PERCENT}))
    if changes:
        store.module_update(PROMPT_MODULE, lambda settings: {**settings, **changes})
    return result


GLOBAL_NAMES_MAX = 1000


def global_select_names(data: bytes) -> list[str]:
    """The names of the books a SillyTavern settings.json selects for every chat
    (`world_info.globalSelect`), each once, in its order; a file without any is refused."""
    errors: dict[str, str] = {}
    found = _world_info_part(settings_document(data))
    checked = _checked("world_info", found.get("world_info", []), errors)
    if errors:
        raise LibraryError("world_info must hold the selected books' names (globalSelect)",
                           errors)
    names = list(dict.fromkeys(name.strip() for name in checked["globalSelect"] if name.strip()))
    if len(names) > GLOBAL_NAMES_MAX:
        raise LibraryError(f"this settings.json selects more than {GLOBAL_NAMES_MAX} global "
                           "world-info books", {"file": f"at most {GLOBAL_NAMES_MAX} books"})
    if not names:
        raise LibraryError("this settings.json selects no global world-info books "
                           "(world_info.globalSelect is empty)",
                           {"file": "no global books selected in it"})
    return names


UNKNOWN_LISTED, KEY_SHOWN_CHARS = 50, 80


def _listed(keys: list[str]) -> list[str]:
    """Unknown keys as a reply and a page can show them: any text a file holds, so shortened,
    and the first 50, the count of the rest last."""
    shown = [key if len(key) <= KEY_SHOWN_CHARS else key[:KEY_SHOWN_CHARS - 1] + "…"
             for key in keys[:UNKNOWN_LISTED]]
    return [*shown, f"… +{len(keys) - UNKNOWN_LISTED}"] if len(keys) > UNKNOWN_LISTED else shown


def settings_document(data: bytes) -> Any:
    if len(data) > MAX_FILE_BYTES:
        raise LibraryError("file is larger than 10 MB", {"file": "at most 10 MB"})
    try:
        return json_loads_bounded(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LibraryError(f"file is not JSON: {exc}", {"file": "not JSON"}) from None
    except JsonRefused as exc:
        raise LibraryError(f"file is refused: {exc}", {"file": str(exc)}) from None


def settings_world_info(data: bytes) -> dict[str, Any]:
    """The world-info part of a SillyTavern settings.json (see `_world_info_part`)."""
    return _world_info_part(settings_document(data))


def _world_info_part(document: Any) -> dict[str, Any]:
    """SillyTavern reads `settings.world_info_settings ?? settings`: the part of a whole
    settings.json, or a file of those keys alone (older versions kept them at the top)."""
    part = document.get("world_info_settings") if isinstance(document, dict) else None
    if isinstance(part, dict):
        return part
    if isinstance(document, dict):
        flat = {key: value for key, value in document.items()
                if isinstance(key, str) and key.startswith("world_info")}
        if flat:
            return flat
    raise LibraryError("this is not a SillyTavern settings.json: it has no "
                       "“world_info_settings”", {"file": "no world-info settings in it"})


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _checked(key: str, value: Any, errors: dict[str, str]) -> Any:
    """The value as this app keeps it, or None with `errors[key]` saying what is wrong."""
    if key in BOOLEANS:
        if not isinstance(value, bool):
            errors[key] = VALUE_ERRORS["boolean"]
        return value
    if key == "world_info":  # {"globalSelect": [names]}; older files: a name or a list
        selected = value.get("globalSelect", []) if isinstance(value, dict) else value
        selected = [selected] if isinstance(selected, str) else selected
        if not isinstance(selected, list) or not all(isinstance(n, str) for n in selected):
            errors[key] = VALUE_ERRORS["books"]
            return None
        return {"globalSelect": selected}
    if not _is_number(value):
        errors[key] = VALUE_ERRORS["number"]
        return None
    if key == "world_info_budget":
        if value <= 0:
            errors[key] = VALUE_ERRORS["percent"]
            return None
        return defaults.BUDGET_PERCENT if value > 100 else _whole(value)
    if key == "world_info_character_strategy":
        if value not in (0, 1, 2):
            errors[key] = VALUE_ERRORS["strategy"]
        return _whole(value)
    if key in COUNTS and (value < 0 or value != int(value)):
        errors[key] = VALUE_ERRORS["count"]
    return _whole(value)


def _whole(value: int | float) -> int | float:
    return int(value) if value == int(value) else value


def _same(key: str, value: Any) -> bool:
    if key == "world_info":
        return not value["globalSelect"]
    if key == "world_info_min_activations_depth_max":
        return True  # read only with min activations, reported on its own
    return value == FIXED[key]


def _reason(key: str) -> str:
    return reason_said(key, lambda text: text)


def reason_said(key: str, said: Callable[[str], str]) -> str:
    """Why `key` is not applied, through `said` (gettext on a page, as written in the API)."""
    if key in PER_BOOK:
        return said(PER_BOOK_REASON) % {"field": PER_BOOK[key],
                                        "default": json.dumps(FIXED[key])}
    return said(OTHER_REASONS[key])
