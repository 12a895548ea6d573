"""What the fired entries become in the prompt: floating blocks by position, depth and role
(`lore_blocks`, placed by the prompt's sections), and the outlet entries' texts by name for
`{{outlet::name}}` (`lore_outlets`)."""

from __future__ import annotations

from typing import Any

from library.lore.activation import LoreMatch
from library.lore.keys import entry_number, setting


def outlet_name(entry: dict[str, Any]) -> str:
    return str(setting(entry, "outlet_name", "outlet_name", "", "outletName") or "").strip()


def lore_blocks(match: LoreMatch) -> list[dict[str, Any]]:
    """Floating prompt blocks of the fired entries, in insertion order (lower order first).
    Outlet entries are not placed: `lore_outlets` gives them to `{{outlet::name}}`."""
    return [
        {"name": f"lore:{entry['lorebook_id']}:{entry['uid']}",
         "content": entry.get("content", ""),
         "position": entry.get("position", "before_char"),
         "depth": entry_number(entry.get("depth"), 4),
         "role": entry.get("role", "system"),
         "priority": entry_number(entry.get("priority"), 100)}
        for entry in match.fired
        if entry.get("content", "").strip() and entry.get("position") != "outlet"
    ]


def lore_outlets(match: LoreMatch) -> dict[str, str]:
    """The fired outlet entries' text by outlet name (lowered), in insertion order."""
    outlets: dict[str, list[str]] = {}
    for entry in match.fired:
        name = outlet_name(entry)
        if entry.get("position") == "outlet" and name and entry.get("content", "").strip():
            outlets.setdefault(name.casefold(), []).append(entry["content"])
    return {name: "\n".join(texts) for name, texts in outlets.items()}
