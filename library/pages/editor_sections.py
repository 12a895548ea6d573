"""The character editor's sections (basics, greetings, examples, advanced, lore, scripts): how
many things each holds, so a collapsed section says what is inside, and which ones open by
themselves (a new character's greeting, a section with a refused field)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# A refused field opens its section, so the author sees the sentence beside the box.
FIELD_SECTIONS = {"greeting": "greetings", "alternate_greetings": "greetings",
                  "mes_example": "examples", "system_prompt": "advanced",
                  "post_history_instructions": "advanced", "creator_notes": "advanced",
                  "depth_prompt": "advanced", "talkativeness": "advanced",
                  "pinned_prompt": "advanced", "lorebook_ids": "lore",
                  "regex_scripts": "scripts"}


def _filled(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def examples_count(text: Any) -> int:
    """Example dialogues are blocks that start with <START>; text without one is one block."""
    if not _filled(text):
        return 0
    return max(1, text.count("<START>"))


def character_sections(*, definition: Mapping[str, Any], card: Mapping[str, Any],
                       extensions: Mapping[str, Any], field_errors: Mapping[str, str],
                       new: bool) -> dict[str, dict[str, Any]]:
    """{section: {"count": n, "open": bool}} for the editor's collapsible sections."""
    note = extensions.get("note") or {}
    counts = {
        "greetings": int(_filled(definition.get("greeting"))) + sum(
            1 for greeting in card.get("alternate_greetings") or [] if _filled(greeting)),
        "examples": examples_count(card.get("mes_example")),
        "advanced": sum(1 for value in (card.get("system_prompt"),
                                        card.get("post_history_instructions"),
                                        card.get("creator_notes"), note.get("prompt"),
                                        definition.get("pinned_prompt"),
                                        str(extensions.get("talkativeness") or ""))
                        if _filled(value)),
        "lore": len(definition.get("lorebook_ids") or []) if isinstance(
            definition.get("lorebook_ids"), list) else 0,
        "scripts": len((card.get("extensions") or {}).get("regex_scripts") or [])
        if isinstance(card.get("extensions"), dict) else 0,
    }
    refused = {FIELD_SECTIONS.get(name.split(".")[0].split("[")[0]) for name in field_errors}
    return {name: {"count": count,
                   "open": name in refused or (new and name == "greetings")}
            for name, count in counts.items()}
