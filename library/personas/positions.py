"""Where a persona's description goes in the prompt (SillyTavern 1.12.6's
`persona_description_positions`, public/scripts/power-user.js and personas.js): in the prompt
(its story string / prompt manager place, the default), at the top or the bottom of the
author's note, in the chat at a depth with a role, or nowhere. Framework-free values and their
check; the prompt places them in chat/play/lore.py (the note) and chat/play/context.py (depth)."""

from __future__ import annotations

from typing import Any

from library.errors import LibraryError

POSITIONS = ("prompt", "an_top", "an_bottom", "depth", "none")
# SillyTavern's numbers for them (0, 2, 3, 4, 9; its deprecated 1, "after the character",
# reads as in the prompt, as SillyTavern reads it).
ST_POSITIONS = {0: "prompt", 1: "prompt", 2: "an_top", 3: "an_bottom", 4: "depth", 9: "none"}
ROLES = ("system", "user", "assistant")
DEFAULT_DEPTH = 2  # SillyTavern's DEFAULT_DEPTH for a persona description
MAX_DEPTH = 999  # its input's max
DEFAULTS = {"description_position": "prompt", "description_depth": DEFAULT_DEPTH,
            "description_role": "system"}


def persona_placement(persona: dict[str, Any]) -> dict[str, Any]:
    """The placement a persona file holds, a hand-edited value that makes no sense read as
    the default."""
    position = persona.get("description_position")
    depth = persona.get("description_depth")
    role = persona.get("description_role")
    return {"description_position": position if position in POSITIONS else "prompt",
            "description_depth": depth if isinstance(depth, int) and not isinstance(depth, bool)
            and 0 <= depth <= MAX_DEPTH else DEFAULT_DEPTH,
            "description_role": role if role in ROLES else "system"}


def persona_placement_fields(data: dict[str, Any], *, creating: bool) -> dict[str, Any]:
    """The placement fields `data` names (all of them, defaulted, when `creating`), checked:
    a wrong one is refused naming its field."""
    fields: dict[str, Any] = {}
    for name, allowed, words in (("description_position", POSITIONS, ", ".join(POSITIONS)),
                                 ("description_role", ROLES, ", ".join(ROLES))):
        if name in data or creating:
            value = data.get(name) if data.get(name) is not None else DEFAULTS[name]
            if value not in allowed:
                raise LibraryError(f"{name} must be one of {words}", {name: f"one of {words}"})
            fields[name] = value
    if "description_depth" in data or creating:
        depth = data.get("description_depth")
        depth = DEFAULT_DEPTH if depth is None else depth
        if not isinstance(depth, int) or isinstance(depth, bool) or not 0 <= depth <= MAX_DEPTH:
            raise LibraryError(f"description_depth must be a whole number from 0 to {MAX_DEPTH}",
                               {"description_depth": f"a whole number from 0 to {MAX_DEPTH}"})
        fields["description_depth"] = depth
    return fields
