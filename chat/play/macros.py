"""What the macros of card text, lore and messages stand for in a turn and on a page
({{user}}, {{char}}, {{persona}}, {{idle_duration}}, ...): moved out of chat/play/context.py, which
prepares the turn and was near its size limit."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from chat.groups.members import is_group
from chat.history_manager.base import VERSION_KEYS
from chat.services.reading import reading_time_zone
from library.selectors import ChatCharacters, persona_effective
from personalab.lib.filestore.store import FileStore
from personalab.lib.line_macros import (
    LineMacros,
    character_macro_values,
    chat_position_macros,
    last_messages_shown,
    line_macros_replace,
)
from personalab.lib.llm_providers import model_named
from personalab.lib.macro_variables import variables_as_text
from personalab.lib.macros import PICK_SEED, TIME_ZONE, idle_duration_text, macros_replace
from personalab.lib.participants import member_ids
from personalab.lib.st_random import st_string_hash
from personalab.llm_config import llm_settings_from_env

CARD_FIELD_MACROS = ("description", "personality", "scenario", "persona", "charPrompt",
                     "charJailbreak")


def macro_values_for(*, character: dict[str, Any], persona: dict[str, Any],
                     lines: list[dict[str, Any]], scenario_override: Any = None,
                     chat_id: str = "", time_zone: str = "") -> dict[str, str]:
    """What the macros of card text, lore and messages stand for (prompt and page alike);
    `persona`: persona_effective's answer (`{{user}}` is its name, `{{persona}}` its text);
    `scenario_override`: the story's, {{scenario}} in place of the card's (as SillyTavern);
    `chat_id`: the chat whose {{pick}} the card, lore and notes make (each chat its own);
    `time_zone`: the player's (player_time_zone), which {{time}}, {{date}}... read."""
    values = {"user": persona.get("name") or "User", "persona": persona.get("description") or "",
              **character_macro_values(character), **({PICK_SEED: chat_id} if chat_id else {}),
              **({TIME_ZONE: time_zone} if time_zone else {})}
    if isinstance(scenario_override, str) and scenario_override.strip():
        values["scenario"] = scenario_override.strip()
    # A hidden message is a system one in SillyTavern, which getTimeSinceLastMessage skips.
    last_user = next((line for line in reversed(lines)
                      if line.get("role") == "user" and not line.get("hidden")), None)
    values["idle_duration"] = "just now"  # SillyTavern's word when no earlier message is dated
    if last_user and last_user.get("timestamp"):
        try:
            then = datetime.fromisoformat(str(last_user["timestamp"]).replace("Z", "+00:00"))
            values["idle_duration"] = idle_duration_text(
                (datetime.now(UTC) - then).total_seconds())
        except (TypeError, ValueError):
            pass
    # As SillyTavern's card fields: the card's own text, its {{user}} and {{char}} filled in
    # (SillyTavern fills those last, so they are replaced inside {{description}} and the rest).
    names = {k: v for k, v in values.items() if k in ("user", "char", TIME_ZONE)}
    for field in CARD_FIELD_MACROS:
        if isinstance(values.get(field), str):
            values[field] = macros_replace(values[field], names)
    examples = ((character.get("card") or {}).get("data") or {}).get("mes_example")
    if isinstance(examples, str) and examples.strip():
        # SillyTavern's is the field with every macro filled (baseChatReplace), so its {{pick}}
        # chooses as the example dialogue's; with the names only, {{pick}} reached the model.
        known = {k: v for k, v in values.items() if isinstance(v, str)}
        values["mesExamples"] = macros_replace(examples.strip(), known).replace("\r", "")
    return {k: v for k, v in values.items() if isinstance(v, str)}


def player_time_zone(store: FileStore, *, state: dict[str, Any]) -> str:
    """The time zone the chat's owner's browser reported ("" the server's), as SillyTavern's
    clock macros read the browser's clock."""
    return reading_time_zone(store, username=state.get("owner"))


def model_current(store: FileStore) -> str:
    """{{model}}: the model the settings send requests to."""
    return model_named(llm_settings_from_env(store.module_read("llm")))


def chat_pick_seed(metadata: dict[str, Any], instance_id: str) -> str:
    """What a chat's {{pick}} is seeded by: a chat imported from SillyTavern its
    `chat_metadata.chat_id_hash` (kept there once a pick was read, as its getChatIdHash keeps
    it; else its `main_chat`), so each pick chooses what it chose there; else the chat's id."""
    imported = metadata.get("imported")
    header = imported.get("header") if isinstance(imported, dict) else None
    chat_metadata = header.get("chat_metadata") if isinstance(header, dict) else None
    if isinstance(chat_metadata, dict):
        kept = chat_metadata.get("chat_id_hash")
        if isinstance(kept, int) and not isinstance(kept, bool) and 0 < kept < 2 ** 53:
            return str(kept)
        if isinstance(chat_metadata.get("main_chat"), str) and chat_metadata["main_chat"]:
            return str(st_string_hash(chat_metadata["main_chat"]))
    return instance_id


def imported_chat_variables(metadata: dict[str, Any]) -> dict[str, str]:
    """The variables of a chat imported from SillyTavern (`chat_metadata.variables`, what its
    {{setvar}} left), as text: what {{getvar}} reads until this chat saves its own."""
    imported = metadata.get("imported")
    header = imported.get("header") if isinstance(imported, dict) else None
    chat_metadata = header.get("chat_metadata") if isinstance(header, dict) else None
    return variables_as_text(chat_metadata.get("variables")
                             if isinstance(chat_metadata, dict) else None)


def page_macro_values(store: FileStore, *, state: dict[str, Any], lines: list[dict[str, Any]],
                      characters: ChatCharacters | None = None) -> dict[str, str]:
    """macro_values_for a page showing lines of the instance whose state is `state`."""
    persona = persona_effective(store, owner=state.get("owner"),
                                persona_id=state.get("persona_id"))
    characters = characters or ChatCharacters(store, state=state)
    character = characters.optional(state.get("character_id"))
    return LineMacros(macro_values_for(character=character, persona=persona, lines=lines,
                                       time_zone=player_time_zone(store, state=state)),
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


def player_macro_values(store: FileStore, *, state: dict[str, Any], character: dict[str, Any],
                        lines: list[dict[str, Any]], chat_id: str,
                        member_names: list[str] | None = None, earlier: int = 0
                        ) -> dict[str, str]:
    """What the macros of the message the player is sending stand for, as SillyTavern's
    `sendMessageAsUser` fills it before it joins the chat (`lines`: the chat before it, so
    {{lastMessage}} is the line it answers; `earlier`: the session's messages before them)."""
    persona = persona_effective(store, owner=state.get("owner"), persona_id=state.get("persona_id"))
    values = macro_values_for(character=character, persona=persona, lines=lines,
                              scenario_override=state.get("scenario_override"), chat_id=chat_id,
                              time_zone=player_time_zone(store, state=state))
    group = ", ".join(member_names or []) or values.get("char", "")
    values = {**values, "group": group, "charIfNotGroup": group}
    if is_group(state):  # each member's greeting and replies are read with its own {{char}}
        characters = ChatCharacters(store, state=state)
        shown_with = LineMacros(values, {
            member: character_macro_values(characters.optional(member))
            for member in own_macro_speakers(state, lines,
                                             besides=character.get("character_id"))})
    else:
        shown_with = values
    return {**values, **last_messages_shown(lines, shown_with),
            **chat_position_macros(lines, earlier=earlier), "model": model_current(store)}


def greeting_as_shown(line: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    """A greeting line with its macros filled as the page shows it, and each alternate
    greeting as the page shows it once swiped to (the same rolls: each is seeded by the line
    it becomes). The session file keeps the card's text; SillyTavern's chat keeps this."""
    shown = {**line, "content": line_macros_replace(line, values)}
    alternatives = line.get("alternatives")
    if isinstance(alternatives, list):
        base = {key: value for key, value in line.items()
                if key not in VERSION_KEYS and key not in ("alternatives", "alternative_position")}
        shown["alternatives"] = [
            {**other, "content": line_macros_replace({**base, **other}, values)}
            if isinstance(other, dict) and isinstance(other.get("content"), str) else other
            for other in alternatives]
    return shown
