"""Lorebooks of other role-play apps as a card's character_book. Framework-free, and imports
nothing of the library, so the card reader and the world-info reader can both use it."""

from __future__ import annotations

import copy
from typing import Any

# SillyTavern's converters (public/scripts/world-info.js convertAgnaiMemoryBook, …) place every
# entry before the character; Agnai's order is its `weight` there, NovelAI's its
# `contextConfig.budgetPriority` (0 when unset), RisuAI's chance its `activationPercent`.
AGNAI_NAMES = {"entry": "content", "keywords": "keys", "name": "comment",
               "weight": "insertion_order"}
RISU_NAMES = {"key": "keys", "secondkey": "secondary_keys", "insertorder": "insertion_order",
              "alwaysActive": "constant", "useRegex": "use_regex"}
NOVELAI_NAMES = {"text": "content", "displayName": "comment"}


def _renamed(raw: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """An entry of another app as a card entry: its fields renamed, the others kept."""
    return {names.get(key, key): copy.deepcopy(value) for key, value in raw.items()}


def other_app_book(data: dict[str, Any]) -> dict[str, Any] | None:
    """Agnai's memory book, RisuAI's lorebook export and NovelAI's lorebook as a card's
    character_book (SillyTavern imports the same three); None for another file."""
    entries = data.get("entries")
    if data.get("kind") == "memory" and isinstance(entries, list):
        names, rows = AGNAI_NAMES, entries
    elif data.get("type") == "risu" and isinstance(data.get("data"), list):
        names, rows = RISU_NAMES, data["data"]
    elif "lorebookVersion" in data and isinstance(entries, list):
        names, rows = NOVELAI_NAMES, entries
    else:
        return None
    book = {key: copy.deepcopy(value) for key, value in data.items()
            if key not in ("entries", "data")}
    return {**book, "entries": [_as_sillytavern_converts(_renamed(row, names), row, names)
                                for row in rows if isinstance(row, dict)]}


def _as_sillytavern_converts(entry: dict[str, Any], row: dict[str, Any],
                             names: dict[str, str]) -> dict[str, Any]:
    entry["position"] = "before_char"
    # SillyTavern's `disable: !entry.enabled`: an Agnai or NovelAI entry that does not say it
    # is enabled is off; RisuAI's have no switch and are all on.
    entry["enabled"] = True if names is RISU_NAMES else row.get("enabled") is True
    extensions = entry.get("extensions") if isinstance(entry.get("extensions"), dict) else {}
    if names is NOVELAI_NAMES:
        config = row.get("contextConfig") if isinstance(row.get("contextConfig"), dict) else {}
        entry["insertion_order"] = config.get("budgetPriority", 0)
    if names is RISU_NAMES and row.get("activationPercent") is not None:
        entry["extensions"] = {**extensions, "probability": row["activationPercent"],
                               "useProbability": True}
    return entry
