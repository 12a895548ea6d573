"""SillyTavern world-info files <-> lorebooks, without loss. Framework-free.

A SillyTavern world-info JSON is `{"entries": {"0": {uid, key, keysecondary, order, position,
disable, probability, group, sticky, ...}}, ...}`. It is read through the card format
(library/card_formats/character_book.py), whose entry `extensions` carry the same settings under
SillyTavern's card names, so one lorebook serves both exports. Fields with no card name
(addMemo, selective, characterFilter, triggers, ...) and the file's other top-level keys are
kept under `st_extra` and written back as they were.
"""

from __future__ import annotations

import copy
from typing import Any

from library.card_formats.app_books import other_app_book
from library.card_formats.character_book import (
    character_book_to_lorebook,
    lorebook_to_character_book,
)
from library.errors import CardError

# SillyTavern world-info entry field -> card entry extension name.
ST_TO_EXTENSION = {
    "excludeRecursion": "exclude_recursion", "preventRecursion": "prevent_recursion",
    "delayUntilRecursion": "delay_until_recursion", "probability": "probability",
    "useProbability": "useProbability", "depth": "depth", "selectiveLogic": "selectiveLogic",
    "group": "group", "groupOverride": "group_override", "groupWeight": "group_weight",
    "scanDepth": "scan_depth", "caseSensitive": "case_sensitive",
    "matchWholeWords": "match_whole_words", "useGroupScoring": "use_group_scoring",
    "automationId": "automation_id", "role": "role", "vectorized": "vectorized",
    "sticky": "sticky", "cooldown": "cooldown", "delay": "delay", "displayIndex": "display_index",
    "position": "position", "outletName": "outlet_name", "ignoreBudget": "ignore_budget",
    "characterFilter": "character_filter",
    "matchPersonaDescription": "match_persona_description",
    "matchCharacterDescription": "match_character_description",
    "matchCharacterPersonality": "match_character_personality",
    "matchCharacterDepthPrompt": "match_character_depth_prompt",
    "matchScenario": "match_scenario", "matchCreatorNotes": "match_creator_notes",
}
ST_TO_CARD = {"uid": "id", "key": "keys", "keysecondary": "secondary_keys", "comment": "comment",
              "content": "content", "constant": "constant", "order": "insertion_order"}
ST_MAPPED = {*ST_TO_EXTENSION, *ST_TO_CARD, "disable"}


def _st_entries(data: Any) -> list[Any] | None:
    """A world-info file's entries: an object of them, or (older files) a list of entries
    written with SillyTavern's names (`key`, `uid`), not a card's (`keys`)."""
    entries = data.get("entries") if isinstance(data, dict) else None
    if isinstance(entries, dict):
        return [entries[key] for key in _js_key_order(entries)]
    if isinstance(entries, list) and any(
            isinstance(e, dict) and "keys" not in e and ("key" in e or "uid" in e)
            for e in entries):
        return entries
    return None


def _js_key_order(entries: dict[str, Any]) -> list[str]:
    """The keys as SillyTavern's JavaScript lists an object's: whole-number keys ("2", "10")
    in numeric order first, then the others as written. It breaks ties of equal order in the
    scan, so a file written with "10" before "2" is read as SillyTavern reads it."""
    def index(key: str) -> int | None:
        whole = key.isascii() and key.isdigit() and (key == "0" or not key.startswith("0"))
        return int(key) if whole and int(key) < 2**32 - 1 else None
    numbered = sorted((index(key), key) for key in entries if index(key) is not None)
    return [key for _, key in numbered] + [key for key in entries if index(key) is None]


def is_st_world(data: Any) -> bool:
    return _st_entries(data) is not None


def _st_entry_to_card(raw: dict[str, Any]) -> dict[str, Any]:
    card = {card_name: copy.deepcopy(raw[st_name]) for st_name, card_name in ST_TO_CARD.items()
            if st_name in raw}
    card["enabled"] = not raw.get("disable", False)
    if "selective" in raw:  # SillyTavern reads keysecondary only when set; kept in st_extra
        card["selective"] = raw["selective"]
    card["position"] = "after_char" if raw.get("position") == 1 else "before_char"
    card["extensions"] = {ext: copy.deepcopy(raw[st]) for st, ext in ST_TO_EXTENSION.items()
                          if st in raw}
    card["st_extra"] = {k: copy.deepcopy(v) for k, v in raw.items() if k not in ST_MAPPED}
    return card


def st_world_to_lorebook(data: dict[str, Any], *, fallback_name: str) -> dict[str, Any]:
    """A SillyTavern world-info file as a lorebook (without lorebook_id). Raises CardError."""
    raw_entries = [e for e in _st_entries(data) or [] if isinstance(e, dict)]
    book = {"name": data.get("name") or fallback_name,
            "entries": [_st_entry_to_card(raw) for raw in raw_entries]}
    lorebook = character_book_to_lorebook(book, fallback_name=fallback_name)
    for entry in lorebook["entries"]:
        extra = entry.get("card_extra") or {}
        entry["st_extra"] = extra.pop("st_extra", {})
    lorebook["st_extra"] = {k: copy.deepcopy(v) for k, v in data.items() if k != "entries"}
    lorebook.get("card_extra", {}).pop("name", None)
    return lorebook


def _card_entry_to_st(card: dict[str, Any], st_extra: dict[str, Any]) -> dict[str, Any]:
    ext = card.get("extensions") or {}
    raw = {st: copy.deepcopy(card[c]) for st, c in ST_TO_CARD.items() if c in card}
    raw.update({st: copy.deepcopy(ext[e]) for st, e in ST_TO_EXTENSION.items() if e in ext})
    raw["disable"] = not card.get("enabled", True)
    raw.setdefault("position", 1 if card.get("position") == "after_char" else 0)
    if card.get("selective"):  # secondary keys given since the import are read
        raw["selective"] = True
    # A file imported before a field was mapped keeps it under st_extra; an edit since then
    # is in the extensions and wins.
    return {**copy.deepcopy(st_extra), **raw}


def lorebook_to_st_world(lorebook: dict[str, Any]) -> dict[str, Any]:
    """The lorebook as a SillyTavern world-info file."""
    book = lorebook_to_character_book({k: v for k, v in lorebook.items() if k != "st_extra"})
    extras = [entry.get("st_extra") or {} for entry in lorebook.get("entries", [])]
    entries = {}
    for card_entry, st_extra in zip(book["entries"], extras):
        card_entry.pop("st_extra", None)
        raw = _card_entry_to_st(card_entry, st_extra)
        entries[str(raw.get("uid", len(entries)))] = raw
    return {**copy.deepcopy(lorebook.get("st_extra") or {}), "entries": entries}


def lorebook_file_read(data: Any, *, fallback_name: str) -> dict[str, Any]:
    """A lorebook from an uploaded JSON: a SillyTavern world-info file, a card's
    character_book, a whole card that has one, or an Agnai, RisuAI or NovelAI lorebook.
    Raises CardError."""
    if is_st_world(data):
        return st_world_to_lorebook(data, fallback_name=fallback_name)
    if isinstance(data, dict) and isinstance(data.get("data"), dict):
        data = data["data"].get("character_book")
    other = other_app_book(data) if isinstance(data, dict) else None
    if other is not None:
        return character_book_to_lorebook(other, fallback_name=fallback_name)
    if isinstance(data, dict) and isinstance(data.get("entries"), list):
        return character_book_to_lorebook(data, fallback_name=fallback_name, id_order=True)
    raise CardError("not a SillyTavern world-info file, a card character_book or an Agnai, "
                    "RisuAI or NovelAI lorebook (no \"entries\" object or list)")
