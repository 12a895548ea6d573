"""A card's character_book and a PersonaLab lorebook, each way: the V2/V3 book fields and
SillyTavern's entry extensions (position, depth, role, logic ...) become lorebook entry
settings on import and are written back on export; several lorebooks merge into one book."""

from __future__ import annotations

import copy
import re
from typing import Any

from library.card_formats.values import card_text
from library.errors import CardError
from library.lore.lorebook import (
    MAX_DEPTH,
    MAX_PRIORITY,
    MAX_SCAN_DEPTH,
    MAX_TOKEN_BUDGET,
    MAX_UID,
    LorebookError,
    lorebook_validate,
)

BOOK_FIELDS = {"name", "description", "scan_depth", "token_budget", "recursive_scanning",
               "extensions", "entries"}
ENTRY_FIELDS = {"keys", "secondary_keys", "content", "enabled", "insertion_order",
                "case_sensitive", "constant", "selective", "position", "use_regex", "comment",
                "extensions"}
# SillyTavern's numbering in entry.extensions.
ST_LOGIC = {0: "and_any", 1: "not_all", 2: "not_any", 3: "and_all"}
ST_ROLE = {0: "system", 1: "user", 2: "assistant"}
ST_POSITION_DEPTH = 4
# Lorebook entry settings and their names in a card entry's extensions (SillyTavern's export).
ENTRY_EXTENSION_NAMES = {
    "match_whole_words": "match_whole_words", "scan_depth": "scan_depth",
    "probability": "probability", "use_probability": "useProbability", "group": "group",
    "group_override": "group_override", "group_weight": "group_weight", "sticky": "sticky",
    "cooldown": "cooldown", "delay": "delay", "exclude_recursion": "exclude_recursion",
    "prevent_recursion": "prevent_recursion", "delay_until_recursion": "delay_until_recursion",
    "use_group_scoring": "use_group_scoring", "outlet_name": "outlet_name",
    "character_filter": "character_filter", "vectorized": "vectorized",
    "ignore_budget": "ignore_budget", "match_persona_description": "match_persona_description",
    "match_character_description": "match_character_description",
    "match_character_personality": "match_character_personality",
    "match_character_depth_prompt": "match_character_depth_prompt",
    "match_scenario": "match_scenario", "match_creator_notes": "match_creator_notes",
}
# Fields whose card value is kept for the card's export: SillyTavern writes `use_regex: true`
# and `selective: true` on every entry and reads neither the same way (docs/world-info.md).
CARD_VALUES_KEPT = ("position", "selective", "use_regex", "case_sensitive")
_WHOLE_NUMBER = re.compile(r"\s{0,8}-?\d{1,9}\s{0,8}")
ST_POSITIONS = {0: "before_char", 1: "after_char", 2: "an_top", 3: "an_bottom",
                ST_POSITION_DEPTH: "depth", 5: "em_top", 6: "em_bottom", 7: "outlet"}


def _st_position(entry: dict[str, Any], ext: dict[str, Any]) -> str:
    # SillyTavern reads its own number first; other numbers (author's note...) fall back.
    # Only "before_char" is placed before the character: an entry that leaves the V2 field
    # unset goes after it, as SillyTavern imports a card's book.
    known = ST_POSITIONS
    position = ext.get("position")
    if isinstance(position, int) and position in known:
        return known[position]
    return "before_char" if entry.get("position") == "before_char" else "after_char"


def _int_or(value: Any, default: int | None) -> int | None:
    """A whole number, or one written as text ("7"): SillyTavern only ever does arithmetic
    with these fields, where JavaScript reads such text as the number."""
    if isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value):
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _int_in(value: Any, default: int | None, low: int, high: int) -> int | None:
    """A whole number of a lorebook setting: another type or a number below `low` is the
    default, a number past `high` is `high`."""
    number = _int_or(value, None)
    if number is None or number < low:
        return default
    return min(number, high)


def _keys_of(value: Any) -> list[str]:
    """Trigger keys as SillyTavern's box reads them: one text is split on commas, numbers
    are text, anything else is no key."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, list):
        return []
    return [str(k) if not isinstance(k, str) else k for k in value
            if isinstance(k, str) or (isinstance(k, int) and not isinstance(k, bool))]


def _text_or_kept(value: Any, default: str = "") -> Any:
    """Entry or book text: a number or true/false is written as text; a list or an object
    is passed on for the lorebook's check to refuse by its field name."""
    if value is None or value is False or value in ("", [], {}):
        return default
    if isinstance(value, (list, dict)):
        return value
    return card_text(value, "")


def _card_case(ext: dict[str, Any]) -> bool | None:
    """`extensions.case_sensitive` as SillyTavern's convertCharacterBook reads it (`?? null`):
    unset is None, so the entry follows the book's setting; any other value is its truth."""
    value = ext.get("case_sensitive")
    return None if value is None else bool(value)


def _entry_from_card(raw: dict[str, Any], index: int) -> dict[str, Any]:
    ext = raw.get("extensions") if isinstance(raw.get("extensions"), dict) else {}
    extra = {key: value for key, value in raw.items() if key not in ENTRY_FIELDS}
    if "extensions" in raw and not isinstance(raw["extensions"], dict):
        extra["extensions"] = raw["extensions"]
    uid = _int_in(raw.get("id"), None, 0, MAX_UID + 1)
    secondary = _keys_of(raw.get("secondary_keys"))
    if secondary and not raw.get("selective"):
        extra["inactive_secondary_keys"] = secondary  # the card says they are ignored
        secondary = []
    extra.update({name: copy.deepcopy(raw[name]) for name in CARD_VALUES_KEPT if name in raw})
    return {
        "uid": uid if uid is not None and uid <= MAX_UID else index,
        "keys": _keys_of(raw.get("keys")),
        "secondary_keys": secondary,
        "selective_logic": ST_LOGIC.get(_int_or(ext.get("selectiveLogic"), 0), "and_any"),
        # SillyTavern ignores a card's use_regex: a key is a regex only written as /…/flags.
        "use_regex": False,
        # SillyTavern's convertCharacterBook reads `extensions.case_sensitive` alone: the
        # card's own `case_sensitive` is kept for the export, not matched by.
        "case_sensitive": _card_case(ext),
        "content": _text_or_kept(raw.get("content")),
        "enabled": bool(raw.get("enabled")),  # SillyTavern: `disable: !entry.enabled`
        "constant": bool(raw.get("constant")),
        "priority": _int_in(raw.get("insertion_order"), 100, -MAX_PRIORITY, MAX_PRIORITY),
        "position": _st_position(raw, ext),
        "depth": _int_in(ext.get("depth"), 4, 0, MAX_DEPTH),
        "role": ST_ROLE.get(_int_or(ext.get("role"), 0), "system"),
        "comment": _text_or_kept(raw.get("comment"),
                                 raw["name"] if isinstance(raw.get("name"), str) else ""),
        "extensions": copy.deepcopy(ext),
        "card_extra": copy.deepcopy(extra),
    }


def _uids_unique(entries: list[dict[str, Any]]) -> None:
    seen: set[int] = set()
    next_uid = max((e["uid"] for e in entries), default=-1) + 1
    for entry in entries:
        if entry["uid"] in seen or entry["uid"] < 0:
            entry["uid"] = next_uid
            next_uid += 1
        seen.add(entry["uid"])


def _js_index(value: Any) -> int | None:
    """`value` as a JavaScript object key that is an array index ("3"), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    text = str(value)
    whole = text.isascii() and text.isdigit() and (text == "0" or not text.startswith("0"))
    return int(text) if whole and int(text) < 2**32 - 1 else None


def _in_id_order(entries: list[Any]) -> list[tuple[int, Any]]:
    """A card's entries (with their places) in the order SillyTavern's card-lore import leaves
    them: it keys each by its `id` (its place when it has none), and JavaScript lists
    whole-number keys first, in numeric order, so ties of equal order are weighed in that
    order, not the card's."""
    keyed = [(_js_index(raw.get("id") if isinstance(raw, dict) and raw.get("id") is not None
                        else index), index, raw) for index, raw in enumerate(entries)]
    numbered = sorted((key, index) for key, index, _ in keyed if key is not None)
    order = [index for _, index in numbered] + [i for key, i, _ in keyed if key is None]
    return [(index, entries[index]) for index in order]


def character_book_to_lorebook(book: dict[str, Any], *, fallback_name: str,
                               id_order: bool = False) -> dict[str, Any]:
    """A card's character_book as a PersonaLab lorebook (without lorebook_id). A setting of
    the wrong type is its default; text that is an object or a list is refused by name.
    `id_order`: entries in SillyTavern's card-lore order (by id), as a card's import."""
    raws = book.get("entries") or []
    placed = _in_id_order(raws) if id_order and isinstance(raws, list) else enumerate(raws)
    entries = [_entry_from_card(raw, index) for index, raw in placed if isinstance(raw, dict)]
    _uids_unique(entries)
    extensions = book.get("extensions")
    extra = {k: copy.deepcopy(v) for k, v in book.items() if k not in BOOK_FIELDS}
    if extensions is not None and not isinstance(extensions, dict):
        extra["extensions"] = copy.deepcopy(extensions)  # kept as it came, read as none
    lorebook = {
        "name": _text_or_kept(book.get("name"), fallback_name),
        "description": _text_or_kept(book.get("description")),
        "scan_depth": _int_in(book.get("scan_depth"), None, 0, MAX_SCAN_DEPTH),
        "token_budget": _int_in(book.get("token_budget"), None, 0, MAX_TOKEN_BUDGET),
        "recursive": (None if book.get("recursive_scanning") is None
                      else bool(book["recursive_scanning"])),
        "entries": entries,
        "extensions": copy.deepcopy(extensions) if isinstance(extensions, dict) else {},
        "card_extra": extra,
    }
    try:
        return lorebook_validate(lorebook)
    except LorebookError as exc:
        raise CardError(f"the card's character_book is invalid: {exc}") from None


def _ext_update(ext: dict[str, Any], entry: dict[str, Any], raw_position: str) -> dict[str, Any]:
    """Write SillyTavern's extension numbers only where their meaning changed, so values the
    lorebook cannot express (e.g. author's-note positions) survive an unchanged entry."""
    ext = copy.deepcopy(ext)
    if _st_position({"position": raw_position}, ext) != entry["position"]:
        ext["position"] = {v: k for k, v in ST_POSITIONS.items()}[entry["position"]]
    if entry["position"] == "depth" or "depth" in ext:
        if _int_or(ext.get("depth"), 4) != entry["depth"] or "depth" not in ext:
            ext["depth"] = entry["depth"]
    for name, card_name in ENTRY_EXTENSION_NAMES.items():
        if entry.get(name) is not None and ext.get(card_name) != entry[name]:
            ext[card_name] = entry[name]
    if _card_case(ext) != entry["case_sensitive"]:
        ext["case_sensitive"] = entry["case_sensitive"]
    if ST_ROLE.get(_int_or(ext.get("role"), 0), "system") != entry["role"]:
        ext["role"] = {v: k for k, v in ST_ROLE.items()}[entry["role"]]
    if ST_LOGIC.get(_int_or(ext.get("selectiveLogic"), 0), "and_any") \
            != entry["selective_logic"]:
        ext["selectiveLogic"] = {v: k for k, v in ST_LOGIC.items()}[entry["selective_logic"]]
    return ext


def _card_case_sensitive(entry: dict[str, Any], extra: dict[str, Any]) -> Any:
    """The V2 `case_sensitive`: the card's own while the entry still matches as imported (by
    `extensions.case_sensitive`, which SillyTavern reads), else the entry's."""
    as_imported = _card_case(entry.get("extensions") or {})
    if "case_sensitive" in extra and entry["case_sensitive"] == as_imported:
        return extra["case_sensitive"]
    return bool(entry["case_sensitive"])  # unset: the V2 field's own default


def _card_position(entry: dict[str, Any], kept: Any) -> str:
    """The V2 `position`: the card's own while it still reads as the entry's position,
    otherwise SillyTavern's export rule (only before_char is before the character)."""
    if isinstance(kept, str) and _st_position(
            {"position": kept}, entry.get("extensions") or {}) == entry["position"]:
        return kept
    return "before_char" if entry["position"] == "before_char" else "after_char"


def _entry_to_card(entry: dict[str, Any]) -> dict[str, Any]:
    extra = copy.deepcopy(entry.get("card_extra") or {})
    inactive = extra.pop("inactive_secondary_keys", [])
    raw_position = _card_position(entry, extra.get("position"))
    secondary = entry["secondary_keys"]
    selective = True if secondary else (not inactive and extra.get("selective", True))
    return {
        **extra,
        "id": extra["id"] if isinstance(extra.get("id"), str) else entry["uid"],
        "keys": list(entry["keys"]),
        "secondary_keys": list(secondary or inactive),
        "selective": selective,
        "content": entry["content"],
        "enabled": entry["enabled"],
        "constant": entry["constant"],
        "insertion_order": entry["priority"],
        "case_sensitive": _card_case_sensitive(entry, extra),
        "use_regex": True if entry["use_regex"] else extra.get("use_regex", False),
        "position": raw_position,
        "comment": entry["comment"],
        "extensions": _ext_update(entry.get("extensions") or {}, entry, raw_position),
    }


def lorebook_to_character_book(lorebook: dict[str, Any]) -> dict[str, Any]:
    book = lorebook_validate(lorebook)
    card_book = {
        **copy.deepcopy(book.get("card_extra") or {}),
        "name": book["name"],
        "description": book["description"],
        "scan_depth": book["scan_depth"],
        "token_budget": book["token_budget"],
        "recursive_scanning": book["recursive"],
        "extensions": copy.deepcopy(book["extensions"]),
        "entries": [_entry_to_card(entry) for entry in book["entries"]],
    }
    for name in ("token_budget", "scan_depth", "recursive_scanning"):
        if card_book[name] is None:  # nothing added that the author did not set
            del card_book[name]
    return card_book


def lorebooks_to_character_book(lorebooks: list[dict[str, Any]]) -> dict[str, Any] | None:
    """All of a character's books as one character_book, as SillyTavern exports a card: the
    first book's settings, every book's entries (uids renumbered where they collide)."""
    books = [lorebook_to_character_book(lorebook) for lorebook in lorebooks]
    if not books:
        return None
    merged = {**books[0], "entries": []}
    used: set[Any] = set()
    for book in books:
        for entry in book["entries"]:
            if entry.get("id") in used:
                entry = {**entry, "id": max((i for i in used if isinstance(i, int)),
                                            default=-1) + 1}
            used.add(entry.get("id"))
            merged["entries"].append(entry)
    return merged
