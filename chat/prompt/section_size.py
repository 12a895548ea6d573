"""A prompt section that came out longer than the sandbox renders (MAX_RENDER_CHARS): which
author text made it so, named as its author knows it, so the warning says what to shorten
(not "check the template syntax")."""

from __future__ import annotations

from typing import Any

import jinja2
from jinja2 import meta

from personalab.lib.template_sandbox import MAX_RENDER_CHARS

# Template variables as the author knows them (the field to shorten).
FIELDS = {
    "pinned": "the pinned prompt (pinned_prompt)",
    "base_persona": "the character's description (base_persona)",
    "world_setting": "the background's world setting (world_setting)",
    "persona": "your persona's description (description)",
    "evolved_persona": "the evolved persona (evolved_persona)",
    "personality": "the card's personality (personality)",
    "scenario": "the card's scenario (scenario)",
    "examples": "the example dialogues (mes_example)",
    "main_prompt": "the card's system prompt (system_prompt)",
    "post_history": "the card's post-history instructions (post_history_instructions)",
    "biography": "the biography",
    "recaps": "the recaps",
}

_PARSER = jinja2.Environment()


def _size(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (list, tuple)):
        return sum(_size(item) for item in value)
    if isinstance(value, dict):
        return sum(_size(item) for item in value.values())
    return 0


def longest_text(source: str, variables: dict[str, Any]) -> tuple[str, int]:
    """(variable, characters) of the longest text the template `source` reads."""
    try:
        names = meta.find_undeclared_variables(_PARSER.parse(source))
    except jinja2.TemplateSyntaxError:
        names = set(variables)
    sizes = {name: _size(variables.get(name)) for name in names}
    name = max(sorted(sizes), key=sizes.__getitem__, default="")
    return name, sizes.get(name, 0)


def section_too_long(section: str, source: str,
                     variables: dict[str, Any]) -> tuple[str, str, int]:
    """(detail, variable, its characters) for the warning of a section left out."""
    name, size = longest_text(source, variables)
    field = FIELDS.get(name, name or "its text")
    return (f"section {section} is longer than {MAX_RENDER_CHARS:,} characters, the most one "
            f"section may be, and was left out: {field} is {size:,} characters; shorten it",
            name, size)
