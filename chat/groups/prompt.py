"""What a speaker's prompt shows of a conversation with several characters. Pure functions.

The speaker's own lines stay assistant messages; everyone else's (the player's and the other
characters') become user messages prefixed with the speaker's name, so the shared history reads
as a scene and the model answers as the one speaker.
"""

from __future__ import annotations

from typing import Any

from personalab.lib.macros import TIME_ZONE, macros_replace

DESCRIPTION_CHARS = 200


def said_by_another(line: dict[str, Any], *, speaker_id: str, speaker_name: str,
                    unnamed_by: str | None = None) -> bool:
    """A reply by another member. A line without `speaker` (from before the group, or an
    imported chat's non-member) is judged by its name; one with no name either was said by
    `unnamed_by` (the character the story had before it became a group), else by the speaker."""
    if line.get("role") != "assistant":
        return False
    if line.get("speaker") is not None:
        return line["speaker"] != speaker_id
    name, own_name = line.get("name"), speaker_name.strip().casefold()
    if not (isinstance(name, str) and name.strip()):
        return unnamed_by is not None and unnamed_by != speaker_id
    return bool(own_name and name.strip().casefold() != own_name)


def unnamed_lines_by(instance_state: dict[str, Any]) -> str | None:
    """Who said the story's lines without `speaker`: the character it had before a second one
    joined or before its first member left (recorded then as `solo_character_id`), else its
    first character."""
    return instance_state.get("solo_character_id") or instance_state.get("character_id")


def lines_for_speaker(lines: list[dict[str, Any]], *, speaker_id: str, player_name: str,
                      speaker_name: str = "", unnamed_by: str | None = None,
                      unnamed_name: str = "", every_named: bool = False
                      ) -> list[dict[str, Any]]:
    """`every_named`: an impersonation, which nobody of the group speaks: every member's
    line stays the characters' own turn, named ("Rook: …"), as SillyTavern sends a group's
    history (openai.js setOpenAIMessages; text completion's output sequence)."""
    shown = []
    for line in lines:
        if line.get("role") == "user":
            name = line.get("name") or player_name  # the persona it was said under
            shown.append(_named(line, f"{name}: ", role="user"))
            continue
        another = said_by_another(line, speaker_id=speaker_id, speaker_name=speaker_name,
                                  unnamed_by=unnamed_by)
        if another:
            name = line.get("name") or line.get("speaker") or unnamed_name or unnamed_by
            shown.append(_named(line, f"{name}: ", role="assistant" if every_named else "user"))
        elif every_named and line.get("role") == "assistant":
            shown.append(_named(line, f"{line.get('name') or speaker_name}: ", role="assistant"))
        else:
            shown.append(line)
    return shown


def _named(line: dict[str, Any], prefix: str, *, role: str) -> dict[str, Any]:
    """A line shown as `role` with `prefix` ("Name: "); `said_role` and `shown_prefix` keep
    how it was said, for the prompt's regex scripts (chat/prompt/conversation.py
    line_scripted), which SillyTavern runs on the message as said, before the name."""
    return {**line, "role": role, "said_role": line.get("said_role") or line.get("role"),
            "shown_prefix": prefix, "content": f"{prefix}{line.get('content', '')}"}


MEMBERS_TEXT = {
    "zh": ("本场景中还有以下角色（你只扮演{speaker}，不替他们说话）：\n",
           ("\n你是中途加入这个场景的：你加入之前（或离开期间）的对话你并未亲历，"
            "只是知道大概发生了什么，不要声称亲眼见过。")),
    "en": ("Also in this scene (you play only {speaker}; never speak for them):\n",
           ("\nYou joined this scene later: you did not witness what was said before you came "
            "(or while you were away), you only know roughly what happened; never claim to "
            "have seen it.")),
}


def members_block(others: list[dict[str, Any]], *, speaker_name: str,
                  joined_later: bool = False, locale: str = "zh",
                  described: bool = True, time_zone: str = "") -> dict[str, Any]:
    """A head block: who else is in the scene, each in a short description (`described`) or by
    name alone; a speaker who was not there from the start is told it did not witness what came
    before. Written in the prompt's language (`locale`), as the rest of the prompt;
    `time_zone`: the player's, which a description's {{time}} reads."""
    heading, late = MEMBERS_TEXT["zh" if str(locale).lower().startswith("zh") else "en"]
    rows = [f"- {_name(o)}: {_short(o, time_zone)}" if described else f"- {_name(o)}"
            for o in others]
    content = heading.format(speaker=speaker_name) + "\n".join(rows)
    if joined_later:
        content += late
    return {"name": "group_members", "content": content, "position": "after_char"}


def _name(definition: dict[str, Any]) -> str:
    return definition.get("name") or definition["character_id"]


def _short(definition: dict[str, Any], time_zone: str = "") -> str:
    """The member's description, its own `{{char}}` already its own name: the block is read
    with the speaker as `{{char}}` (SillyTavern substitutes each member's card as that member)."""
    data = (definition.get("card") or {}).get("data") or {}
    text = str(data.get("description") or definition.get("base_persona") or "").strip()
    text = macros_replace(text, {"char": _name(definition),
                                 **({TIME_ZONE: time_zone} if time_zone else {})})
    text = " ".join(text.split())
    return text if len(text) <= DESCRIPTION_CHARS else text[:DESCRIPTION_CHARS] + "…"
