"""Lorebooks (world info): validation. Activation (SillyTavern's semantics) is
library/lore/activation.py, the prompt blocks of what fired library/lore/placement.py.

Framework-free. A lorebook is the JSON stored at data/lorebooks/{id}/lorebook.json:

    {"lorebook_id", "name", "description", "scan_depth": 4, "token_budget": null,
     "recursive": false, "entries": [ENTRY, ...], "extensions": {}}

    ENTRY = {"uid": int, "keys": [...], "secondary_keys": [...],
             "selective_logic": "and_any" | "and_all" | "not_any" | "not_all",
             "use_regex": false, "case_sensitive": false, "content": "...", "enabled": true,
             "constant": false, "priority": 100 (SillyTavern's insertion order),
             "position": "before_char" | "after_char" | "an_top" | "an_bottom" | "em_top" |
                         "em_bottom" | "depth",
             "depth": 4, "role": "system" | "user" | "assistant", "comment": "...",
             optional (absent or null: the book's default / the card's extensions):
             "match_whole_words", "scan_depth", "probability", "use_probability", "group",
             "group_override", "group_weight", "sticky", "cooldown", "delay",
             "exclude_recursion", "prevent_recursion",
             "delay_until_recursion" (true = level 1, or a level number),
             "use_group_scoring", "outlet_name" (position "outlet": placed by {{outlet::name}}),
             "character_filter": {"names": [...], "tags": [...], "isExclude": false},
             "match_persona_description", "match_character_description",
             "match_character_personality", "match_character_depth_prompt", "match_scenario",
             "match_creator_notes", "vectorized", "ignore_budget"}

Book settings besides (optional): "use_group_scoring" (default of its entries),
"min_activations" and "min_activations_depth_max" (scan deeper until that many entries fired,
never past that depth; 0 = the chat's start), "vector_threshold" (similarity a vectorized
entry needs; library/worldinfo_vectors.DEFAULT_THRESHOLD otherwise).

Unknown fields (a card's "extensions" / "card_extra" on entries and books) are kept as they are.
token_budget null or 0: only the world-info budget (a share of the context) applies.
A key that is not a valid regex is plain text; regexes run with a time limit. scan_depth 0
means only constant entries can fire.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from library.lore.activation import LoreMatch, lorebook_match
from library.lore.percent import is_percent, percent_parsed
from library.lore.placement import lore_blocks, lore_outlets
from library.lore.regex_keys import regex_keys_check
from personalab.lib.config_schema import digits_int
from personalab.lib.errors import Invalid

SELECTIVE_LOGICS = ("and_any", "and_all", "not_any", "not_all")
POSITIONS = ("before_char", "after_char", "an_top", "an_bottom", "em_top", "em_bottom", "depth",
             "outlet")
ROLES = ("system", "user", "assistant")
MAX_SCAN_DEPTH = 1000
MAX_DEPTH = 10**4
MAX_PRIORITY = 10**6
MAX_TOKEN_BUDGET = 10**7
MAX_UID = 10**9
BOOK_DEFAULTS: dict[str, Any] = {
    "name": "", "description": "", "scan_depth": None, "token_budget": None, "recursive": None,
    "entries": [], "extensions": {},
}
ENTRY_DEFAULTS: dict[str, Any] = {
    "keys": [], "secondary_keys": [], "selective_logic": "and_any", "use_regex": False,
    "case_sensitive": False, "content": "", "enabled": True, "constant": False, "priority": 100,
    "position": "before_char", "depth": 4, "role": "system", "comment": "",
}


class LorebookError(Invalid, ValueError):
    code = "invalid_lorebook"

    def __init__(self, message: str, field_errors: dict[str, str] | None = None):
        super().__init__(message=message, fields=field_errors)
        self.field_errors = self.fields


# validation --------------------------------------------------------------

def lorebook_validate(lorebook: dict[str, Any], *, strict_regex: bool = False) -> dict[str, Any]:
    """Return a normalized copy (defaults filled, unknown fields kept) or raise LorebookError
    whose field_errors maps "name", "scan_depth", "entries[2].keys"... to a message.
    `strict_regex`: a regex key that does not compile is refused (an author's edit) instead of
    kept as text (an imported file, as SillyTavern reads it); one too costly is always refused."""
    if not isinstance(lorebook, dict):
        raise LorebookError("a lorebook must be a JSON object", {"lorebook": "not an object"})
    book = {**copy.deepcopy(BOOK_DEFAULTS), **copy.deepcopy(lorebook)}
    errors: dict[str, str] = {}
    book["name"] = _text(book["name"], "name", errors).strip()
    if not book["name"]:
        errors["name"] = "required"
    book["description"] = _text(book["description"], "description", errors)
    if book["scan_depth"] is not None:  # None: SillyTavern's default (worldinfo_defaults)
        book["scan_depth"] = _int(book["scan_depth"], "scan_depth", errors, 0, MAX_SCAN_DEPTH)
    if book["token_budget"] is not None:
        book["token_budget"] = _int(book["token_budget"], "token_budget", errors, 0,
                                    MAX_TOKEN_BUDGET)
    if book["recursive"] is not None:
        book["recursive"] = _bool(book["recursive"], "recursive", errors)
    for name, high in (("min_activations", 10**4), ("min_activations_depth_max", MAX_SCAN_DEPTH)):
        if book.get(name) is not None:
            book[name] = _int(book[name], name, errors, 0, high)
    threshold = book.get("vector_threshold")
    if threshold is not None and (isinstance(threshold, bool)
                                  or not isinstance(threshold, (int, float))
                                  or not -1 <= threshold <= 1):
        errors["vector_threshold"] = "must be a number between -1 and 1"
    if book.get("use_group_scoring") is not None:
        book["use_group_scoring"] = _bool(book["use_group_scoring"], "use_group_scoring", errors)
    if not isinstance(book["extensions"], dict):
        errors["extensions"] = "must be an object"
    if not isinstance(book["entries"], list):
        errors["entries"] = "must be a list"
        book["entries"] = []
    book["entries"] = _entries_validate(book["entries"], errors)
    regex_keys_check(book["entries"], errors, strict=strict_regex)
    if errors:
        details = "; ".join(f"{name}: {message}" for name, message in errors.items())
        raise LorebookError(f"invalid lorebook: {details}", errors)
    return book


def _entries_validate(entries: list[Any], errors: dict[str, str]) -> list[dict[str, Any]]:
    cleaned = []
    used_uids: set[int] = set()
    for index, raw in enumerate(entries):
        where = f"entries[{index}]"
        if not isinstance(raw, dict):
            errors[where] = "must be an object"
            continue
        entry = _entry_validate(raw, where, errors)
        if entry.get("uid") is None:
            cleaned.append(entry)
            continue
        if entry["uid"] in used_uids:
            errors[f"{where}.uid"] = f"uid {entry['uid']} is used by another entry"
        used_uids.add(entry["uid"])
        cleaned.append(entry)
    _uids_fill(cleaned, used_uids)
    return cleaned


def _entry_validate(raw: dict[str, Any], where: str, errors: dict[str, str]) -> dict[str, Any]:
    entry = {**copy.deepcopy(ENTRY_DEFAULTS), **copy.deepcopy(raw)}
    uid = entry.get("uid")
    if uid is not None:
        entry["uid"] = _int(uid, f"{where}.uid", errors, 0, MAX_UID)
    entry["keys"] = _keys(entry["keys"], f"{where}.keys", errors)
    entry["secondary_keys"] = _keys(entry["secondary_keys"], f"{where}.secondary_keys", errors)
    entry["content"] = _text(entry["content"], f"{where}.content", errors)
    entry["comment"] = _text(entry["comment"], f"{where}.comment", errors)
    for flag in ("use_regex", "enabled", "constant"):
        entry[flag] = _bool(entry[flag], f"{where}.{flag}", errors)
    entry["priority"] = _int(entry["priority"], f"{where}.priority", errors, -MAX_PRIORITY,
                             MAX_PRIORITY)
    entry["depth"] = _int(entry["depth"], f"{where}.depth", errors, 0, MAX_DEPTH)
    _choice(entry, "selective_logic", SELECTIVE_LOGICS, where, errors)
    _choice(entry, "position", POSITIONS, where, errors)
    _choice(entry, "role", ROLES, where, errors)
    _optional_validate(entry, where, errors)
    return entry


# SillyTavern's per-entry settings: optional, None means "the book's default".
OPTIONAL_FLAGS = ("case_sensitive", "match_whole_words", "use_probability", "group_override",
                  "exclude_recursion", "prevent_recursion", "use_group_scoring",
                  "match_persona_description", "match_character_description",
                  "match_character_personality", "match_character_depth_prompt",
                  "match_scenario", "match_creator_notes", "vectorized", "ignore_budget")
OPTIONAL_NUMBERS = {"scan_depth": (0, MAX_SCAN_DEPTH),
                    "group_weight": (0, 10**6), "sticky": (0, 10**6), "cooldown": (0, 10**6),
                    "delay": (0, 10**6)}


def _optional_validate(entry: dict[str, Any], where: str, errors: dict[str, str]) -> None:
    for flag in OPTIONAL_FLAGS:
        if entry.get(flag) is not None:
            entry[flag] = _bool(entry[flag], f"{where}.{flag}", errors)
    for name, (low, high) in OPTIONAL_NUMBERS.items():
        if entry.get(name) is not None:
            entry[name] = _int(entry[name], f"{where}.{name}", errors, low, high)
    if entry.get("probability") is not None:
        entry["probability"] = _percent(entry["probability"], f"{where}.probability", errors)
    for name in ("group", "outlet_name"):
        if entry.get(name) is not None:
            entry[name] = _text(entry[name], f"{where}.{name}", errors)
    level = entry.get("delay_until_recursion")
    if level is not None and not isinstance(level, bool):
        entry["delay_until_recursion"] = _int(level, f"{where}.delay_until_recursion", errors,
                                              0, 10**4)
    if entry.get("character_filter") is not None:
        _filter_validate(entry["character_filter"], f"{where}.character_filter", errors)


def _filter_validate(rule: Any, name: str, errors: dict[str, str]) -> None:
    if not isinstance(rule, dict):
        errors[name] = 'must be an object {"names": [...], "tags": [...], "isExclude": false}'
        return
    for part in ("names", "tags"):
        values = rule.get(part, [])
        if not isinstance(values, list) or not all(isinstance(v, (str, int)) for v in values):
            errors[f"{name}.{part}"] = "must be a list of text"
    if not isinstance(rule.get("isExclude", False), bool):
        errors[f"{name}.isExclude"] = "must be true or false"


def _uids_fill(entries: list[dict[str, Any]], used: set[int]) -> None:
    next_uid = max(used, default=-1) + 1
    for entry in entries:
        if entry.get("uid") is None:
            entry["uid"] = next_uid
            next_uid += 1


def _text(value: Any, name: str, errors: dict[str, str]) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        errors[name] = "must be text"
        return ""
    return value


def _bool(value: Any, name: str, errors: dict[str, str]) -> bool:
    if not isinstance(value, bool):
        errors[name] = "must be true or false"
        return False
    return value


def _int(value: Any, name: str, errors: dict[str, str], low: int, high: int) -> int:
    if isinstance(value, str) and digits_int(value) is not None:
        value = digits_int(value)  # isdigit() took "²", "--1" and 5,000 digits: a 500
    if isinstance(value, bool) or not isinstance(value, int):
        errors[name] = "must be a whole number"
        return low
    if not low <= value <= high:
        errors[name] = f"must be between {low} and {high}"
    return value


def _percent(value: Any, name: str, errors: dict[str, str]) -> int | float:
    if isinstance(value, str):
        value = percent_parsed(value.strip())
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        errors[name] = "must be a number"
        return 100
    if not is_percent(value):
        errors[name] = "must be between 0 and 100"
    return int(value) if float(value).is_integer() else value


def _keys(value: Any, name: str, errors: dict[str, str]) -> list[str]:
    if isinstance(value, str):
        return [key.strip() for key in value.split(",") if key.strip()]
    if not isinstance(value, list) or not all(isinstance(key, str) for key in value):
        errors[name] = "must be a list of text keys"
        return []
    # A list (a file's) is kept as written, as SillyTavern keeps it: its scan trims each key,
    # so a key of spaces alone fires on any chat; an empty one never fires but is a secondary
    # key all the same, and its group score reads them untrimmed, the empty one as found.
    return list(value)


def _choice(entry: dict[str, Any], name: str, allowed: tuple[str, ...], where: str,
            errors: dict[str, str]) -> None:
    if entry[name] not in allowed:
        errors[f"{where}.{name}"] = f"must be one of {', '.join(allowed)}"


# matching: library/lore/activation.py ----------------------------------------------------------

__all__ = ["LoreMatch", "LorebookError", "lore_blocks", "lore_outlets", "lorebook_match",
           "lorebook_validate"]
