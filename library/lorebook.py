"""Lorebooks (world info): validation, keyword matching and the prompt blocks of fired entries.

Framework-free. A lorebook is the JSON stored at data/lorebooks/{id}/lorebook.json:

    {"lorebook_id", "name", "description", "scan_depth": 4, "token_budget": 800,
     "recursive": false, "entries": [ENTRY, ...], "extensions": {}}

    ENTRY = {"uid": int, "keys": [...], "secondary_keys": [...],
             "selective_logic": "and_any" | "and_all" | "not_any" | "not_all",
             "use_regex": false, "case_sensitive": false, "content": "...", "enabled": true,
             "constant": false, "priority": 100, "position": "before_char" | "after_char" | "depth",
             "depth": 4, "role": "system" | "user" | "assistant", "comment": "..."}

Unknown fields (a card's "extensions" / "card_extra" on entries and books) are kept as they are.
token_budget 0 means no limit. scan_depth 0 means only constant entries can fire.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from personalab.lib.errors import AppError

SELECTIVE_LOGICS = ("and_any", "and_all", "not_any", "not_all")
POSITIONS = ("before_char", "after_char", "depth")
ROLES = ("system", "user", "assistant")
MAX_SCAN_DEPTH = 1000
MAX_RECURSION_ROUNDS = 3
# "/pattern/flags": the way other front ends write a regex key in a plain key list.
SLASH_REGEX = re.compile(r"^/(.+)/([imsugy]*)$", re.DOTALL)
JS_NAMED_GROUP = re.compile(r"\(\?<(?=[A-Za-z_])")

BOOK_DEFAULTS: dict[str, Any] = {
    "name": "", "description": "", "scan_depth": 4, "token_budget": 800, "recursive": False,
    "entries": [], "extensions": {},
}
ENTRY_DEFAULTS: dict[str, Any] = {
    "keys": [], "secondary_keys": [], "selective_logic": "and_any", "use_regex": False,
    "case_sensitive": False, "content": "", "enabled": True, "constant": False, "priority": 100,
    "position": "before_char", "depth": 4, "role": "system", "comment": "",
}


class LorebookError(AppError, ValueError):
    code = "invalid_lorebook"

    def __init__(self, message: str, field_errors: dict[str, str] | None = None):
        super().__init__(message=message, fields=field_errors)
        self.field_errors = self.fields


@dataclass
class LoreMatch:
    fired: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


# validation --------------------------------------------------------------

def lorebook_validate(lorebook: dict[str, Any]) -> dict[str, Any]:
    """Return a normalized copy (defaults filled, unknown fields kept) or raise LorebookError
    whose field_errors maps "name", "scan_depth", "entries[2].keys"... to a message."""
    if not isinstance(lorebook, dict):
        raise LorebookError("a lorebook must be a JSON object", {"lorebook": "not an object"})
    book = {**copy.deepcopy(BOOK_DEFAULTS), **copy.deepcopy(lorebook)}
    errors: dict[str, str] = {}
    book["name"] = _text(book["name"], "name", errors).strip()
    if not book["name"]:
        errors["name"] = "required"
    book["description"] = _text(book["description"], "description", errors)
    book["scan_depth"] = _int(book["scan_depth"], "scan_depth", errors, 0, MAX_SCAN_DEPTH)
    book["token_budget"] = _int(book["token_budget"], "token_budget", errors, 0, 10**7)
    book["recursive"] = _bool(book["recursive"], "recursive", errors)
    if not isinstance(book["extensions"], dict):
        errors["extensions"] = "must be an object"
    if not isinstance(book["entries"], list):
        errors["entries"] = "must be a list"
        book["entries"] = []
    book["entries"] = _entries_validate(book["entries"], errors)
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
        entry["uid"] = _int(uid, f"{where}.uid", errors, 0, 10**9)
    entry["keys"] = _keys(entry["keys"], f"{where}.keys", errors)
    entry["secondary_keys"] = _keys(entry["secondary_keys"], f"{where}.secondary_keys", errors)
    entry["content"] = _text(entry["content"], f"{where}.content", errors)
    entry["comment"] = _text(entry["comment"], f"{where}.comment", errors)
    for flag in ("use_regex", "case_sensitive", "enabled", "constant"):
        entry[flag] = _bool(entry[flag], f"{where}.{flag}", errors)
    entry["priority"] = _int(entry["priority"], f"{where}.priority", errors, -10**6, 10**6)
    entry["depth"] = _int(entry["depth"], f"{where}.depth", errors, 0, 10**4)
    _choice(entry, "selective_logic", SELECTIVE_LOGICS, where, errors)
    _choice(entry, "position", POSITIONS, where, errors)
    _choice(entry, "role", ROLES, where, errors)
    label = f"entry {where[8:-1]}" + (f" ({entry['comment']})" if entry["comment"] else "")
    for key in [*entry["keys"], *entry["secondary_keys"]]:
        problem = _regex_problem(key, entry)
        if problem:
            errors[f"{where}.keys"] = f"{label}: bad regex {key!r}: {problem}"
            break
    return entry


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
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        errors[name] = "must be a whole number"
        return low
    if not low <= value <= high:
        errors[name] = f"must be between {low} and {high}"
    return value


def _keys(value: Any, name: str, errors: dict[str, str]) -> list[str]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(key, str) for key in value):
        errors[name] = "must be a list of text keys"
        return []
    return [key.strip() for key in value if key.strip()]


def _choice(entry: dict[str, Any], name: str, allowed: tuple[str, ...], where: str,
            errors: dict[str, str]) -> None:
    if entry[name] not in allowed:
        errors[f"{where}.{name}"] = f"must be one of {', '.join(allowed)}"


# matching ----------------------------------------------------------------

@lru_cache(maxsize=2048)
def _compile(pattern: str, flags: int) -> re.Pattern[str]:
    return re.compile(pattern, flags)


def _key_regex(key: str, entry: dict[str, Any]) -> re.Pattern[str] | None:
    """The compiled regex for a regex key, None for a plain key. Raises re.error."""
    slashed = SLASH_REGEX.match(key)
    if not entry.get("use_regex") and not slashed:
        return None
    pattern, letters = (slashed.group(1), slashed.group(2)) if slashed else (key, "")
    # Keys written for JavaScript front ends name groups as (?<name>...).
    pattern = JS_NAMED_GROUP.sub("(?P<", pattern)
    flags = 0 if entry.get("case_sensitive") else re.IGNORECASE
    flags |= re.IGNORECASE if "i" in letters else 0
    flags |= re.MULTILINE if "m" in letters else 0
    flags |= re.DOTALL if "s" in letters else 0
    return _compile(pattern, flags)


def _regex_problem(key: str, entry: dict[str, Any]) -> str | None:
    try:
        _key_regex(key, entry)
    except re.error as exc:
        return str(exc)
    return None


def _key_found(key: str, text: str, entry: dict[str, Any]) -> bool:
    regex = _key_regex(key, entry)
    if regex is not None:
        return regex.search(text) is not None
    if entry.get("case_sensitive"):
        return key in text
    return key.casefold() in text.casefold()


def _first_hit(keys: list[str], texts: list[tuple[str, str]],
               entry: dict[str, Any]) -> tuple[str, str] | None:
    """(key, where) of the first key found, scanning the newest text first."""
    for where, text in texts:
        for key in keys:
            if _key_found(key, text, entry):
                return key, where
    return None


def _secondary_reason(entry: dict[str, Any], texts: list[tuple[str, str]]) -> str | None:
    """'' when there is no secondary condition, a reason when it holds, None when it fails."""
    secondary = entry.get("secondary_keys") or []
    if not secondary:
        return ""
    found = [key for key in secondary if _first_hit([key], texts, entry)]
    logic = entry.get("selective_logic", "and_any")
    holds = {
        "and_any": bool(found),
        "and_all": len(found) == len(secondary),
        "not_any": not found,
        "not_all": len(found) < len(secondary),
    }.get(logic, bool(found))
    if not holds:
        return None
    if logic.startswith("and"):
        return f" (secondary {logic}: {', '.join(repr(key) for key in found)} present)"
    missing = [key for key in secondary if key not in found]
    return f" (secondary {logic}: {', '.join(repr(key) for key in missing)} absent)"


def _entry_trigger(entry: dict[str, Any], texts: list[tuple[str, str]]) -> str | None:
    if entry.get("constant"):
        return "constant"
    hit = _first_hit(entry.get("keys") or [], texts, entry)
    if hit is None:
        return None
    secondary = _secondary_reason(entry, texts)
    if secondary is None:
        return None
    key, where = hit
    return f"key {key!r} in {where}{secondary}"


def _scan_texts(messages: list[str], scan_depth: int) -> list[tuple[str, str]]:
    """The scan_depth newest messages, newest first, labelled 'message -1', 'message -2'..."""
    if scan_depth <= 0:
        return []
    recent = messages[-scan_depth:]
    return [(f"message -{offset}", text) for offset, text in
            zip(range(1, len(recent) + 1), reversed(recent))]


def _candidates(book: dict[str, Any], messages: list[str],
                problems: list[str]) -> list[dict[str, Any]]:
    book_id = book.get("lorebook_id") or book.get("name") or "?"
    texts = _scan_texts(messages, int(book.get("scan_depth", 4)))
    pending = [{**entry, "uid": entry.get("uid", index)}
               for index, entry in enumerate(book.get("entries", [])) if entry.get("enabled", True)]
    fired: list[dict[str, Any]] = []
    rounds = MAX_RECURSION_ROUNDS + 1 if book.get("recursive") else 1
    for _ in range(rounds):
        newly = _fire_round(pending, texts, book_id, problems)
        if not newly:
            break
        fired.extend(newly)
        fired_uids = {entry["uid"] for entry in newly}
        pending = [entry for entry in pending if entry.get("uid") not in fired_uids]
        texts = [(f"entry lore:{book_id}:{entry['uid']}", entry.get("content", ""))
                 for entry in newly]
    return fired


def _fire_round(entries: list[dict[str, Any]], texts: list[tuple[str, str]], book_id: str,
                problems: list[str]) -> list[dict[str, Any]]:
    fired = []
    for entry in entries:
        try:
            reason = _entry_trigger(entry, texts)
        except re.error as exc:
            problems.append(f"lorebook {book_id} entry {entry.get('uid')}: bad regex ({exc}); "
                            "entry skipped")
            continue
        if reason:
            fired.append({**entry, "lorebook_id": book_id, "reason": reason})
    return fired


def _budget_apply(book: dict[str, Any], candidates: list[dict[str, Any]],
                  count_tokens: Callable[[str], int], match: LoreMatch) -> None:
    budget = int(book.get("token_budget", 800))
    used = 0
    # Constant entries are promised to be "always in", so they claim the budget first.
    ordered = sorted(candidates, key=lambda e: (not e.get("constant"), -int(e.get("priority", 100)),
                                                e.get("uid", 0)))
    for entry in ordered:
        tokens = count_tokens(entry.get("content", ""))
        if budget and used + tokens > budget:
            match.dropped.append({**entry, "tokens": tokens,
                                  "reason": f"over token budget ({used} + {tokens} > {budget}); "
                                            f"would have fired: {entry['reason']}"})
            continue
        used += tokens
        match.fired.append({**entry, "tokens": tokens})


def lorebook_match(lorebooks: list[dict[str, Any]], *, messages: list[str],
                   count_tokens: Callable[[str], int]) -> LoreMatch:
    """Entries triggered by the recent messages (newest last). Each lorebook scans its own
    scan_depth newest messages and spends its own token budget, higher priority first."""
    match = LoreMatch()
    for book in lorebooks:
        candidates = _candidates(book, messages, match.problems)
        _budget_apply(book, candidates, count_tokens, match)
    return match


def lore_blocks(match: LoreMatch) -> list[dict[str, Any]]:
    """Floating prompt blocks of the fired entries, most important first."""
    return [
        {"name": f"lore:{entry['lorebook_id']}:{entry['uid']}",
         "content": entry.get("content", ""),
         "position": entry.get("position", "before_char"),
         "depth": int(entry.get("depth", 4)),
         "role": entry.get("role", "system"),
         "priority": int(entry.get("priority", 100))}
        for entry in match.fired
        if entry.get("content", "").strip()
    ]
