"""What a group member's prompt reads of the scene: the head block of who else is in it, and
whether the speaker joined it later (chat/groups/prompt.py writes it in the prompt's language);
the other members' lines with their own macros; the name of whoever said the unnamed lines."""

from __future__ import annotations

from typing import Any

from chat.groups.cards import card_join_settings
from chat.groups.prompt import members_block, unnamed_lines_by
from chat.play.macros import macro_values_for, own_macro_speakers, player_time_zone
from library.selectors import character_for_chat_optional
from memory.selectors import member_presence
from personalab.lib.filestore.store import FileStore
from personalab.lib.line_macros import LineMacros, character_macro_values, line_macros_replace
from personalab.lib.participants import member_ids


def scene_members_blocks(store: FileStore, *, state: dict[str, Any], instance_id: str,
                         speaker_id: str | None, speaker_name: str,
                         locale: str) -> list[dict[str, Any]]:
    """[the block] for a group turn with a speaker, [] otherwise. With the cards joined
    (chat/groups/cards.py) the block names the others without their descriptions: the joined
    cards hold them whole."""
    if speaker_id is None:
        return []
    others = [character_for_chat_optional(store, state=state, character_id=character_id)
              | {"character_id": character_id}
              for character_id in member_ids(state) if character_id != speaker_id]
    presence = member_presence(store, instance_id=instance_id, character_id=speaker_id)
    return [members_block(others, speaker_name=speaker_name, locale=locale,
                          joined_later=presence.spans != ((None, None),),
                          described=card_join_settings(state)["generation_mode"] == "swap",
                          time_zone=player_time_zone(store, state=state))]


def lines_with_own_macros(store: FileStore, *, state: dict[str, Any],
                          lines: list[dict[str, Any]], character: dict[str, Any],
                          speaker_id: str | None,
                          persona: dict[str, Any]) -> list[dict[str, Any]]:
    """`lines` with other members' lines read with their own {{char}}: the pipeline fills in
    the speaker's values, which would make Bob's greeting say Ann's name when Ann speaks."""
    values = LineMacros(macro_values_for(character=character, persona=persona, lines=[],
                                         time_zone=player_time_zone(store, state=state)),
                        _members_values(store, state, lines, besides=speaker_id))
    return [{**line, "content": line_macros_replace(line, values)}
            if line.get("speaker") in values.by_speaker and line.get("role") == "assistant"
            else line for line in lines]


def recall_macros(store: FileStore, *, state: dict[str, Any], lines: list[dict[str, Any]],
                  macros: dict[str, str], member_names: tuple[str, ...]) -> LineMacros:
    """The macros recalled lines are read with in a group: the speaker's, {{group}}, and each
    member's own (a group's greetings are recalled together, each with its own {{char}})."""
    group = ", ".join(member_names) or macros.get("char", "")
    return LineMacros({**macros, "group": group, "charIfNotGroup": group},
                      _members_values(store, state, lines, besides=None))


def _members_values(store: FileStore, state: dict[str, Any], lines: list[dict[str, Any]], *,
                    besides: str | None) -> dict[str, dict[str, str]]:
    """Each member's own macro values (and any other speaker's of `lines`), by character id."""
    return {member: character_macro_values(character_for_chat_optional(
                store, state=state, character_id=member))
            for member in own_macro_speakers(state, lines, besides=besides)}


def unnamed_name(store: FileStore, state: dict[str, Any]) -> str:
    character_id = unnamed_lines_by(state) or ""
    return character_for_chat_optional(store, state=state,
                                       character_id=character_id).get("name") or character_id
