"""What the macros of card text, lore and messages stand for in a turn and on a page
({{user}}, {{char}}, {{persona}}, {{idle_duration}}, ...): moved out of chat/context.py, which
prepares the turn and was near its size limit."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from chat.members import is_group
from library.selectors import ChatCharacters, persona_effective
from personalab.lib.filestore.store import FileStore
from personalab.lib.line_macros import LineMacros, character_macro_values
from personalab.lib.macros import idle_duration_text
from personalab.lib.participants import member_ids


def macro_values_for(*, character: dict[str, Any], persona: dict[str, Any],
                     lines: list[dict[str, Any]]) -> dict[str, str]:
    """What the macros of card text, lore and messages stand for (prompt and page alike);
    `persona`: persona_effective's answer (`{{user}}` is its name, `{{persona}}` its text)."""
    values = {"user": persona.get("name") or "User", "persona": persona.get("description") or "",
              **character_macro_values(character)}
    last_user = next((line for line in reversed(lines) if line.get("role") == "user"), None)
    if last_user and last_user.get("timestamp"):
        try:
            then = datetime.fromisoformat(str(last_user["timestamp"]).replace("Z", "+00:00"))
            values["idle_duration"] = idle_duration_text(
                (datetime.now(UTC) - then).total_seconds())
        except (TypeError, ValueError):
            pass
    return {k: v for k, v in values.items() if isinstance(v, str)}


def page_macro_values(store: FileStore, *, state: dict[str, Any], lines: list[dict[str, Any]],
                      characters: ChatCharacters | None = None) -> dict[str, str]:
    """macro_values_for a page showing lines of the instance whose state is `state`."""
    persona = persona_effective(store, owner=state.get("owner"),
                                persona_id=state.get("persona_id"))
    characters = characters or ChatCharacters(store, state=state)
    character = characters.optional(state.get("character_id"))
    return LineMacros(macro_values_for(character=character, persona=persona, lines=lines),
                      {member: character_macro_values(characters.optional(member))
                       for member in own_macro_speakers(state, lines,
                                                        besides=state.get("character_id"))})


def own_macro_speakers(state: dict[str, Any], lines: list[dict[str, Any]], *,
                       besides: str | None) -> list[str]:
    """Whose lines among `lines` are read with their own card's {{char}} rather than the
    values of `besides`: a group's members, and whoever else said one of them (a member who
    has left: its greeting still says its own name)."""
    speakers = dict.fromkeys(member_ids(state) if is_group(state) else [])
    speakers.update(dict.fromkeys(str(line["speaker"]) for line in lines
                                  if line.get("role") == "assistant" and line.get("speaker")))
    speakers.pop(besides or "", None)
    return list(speakers)
