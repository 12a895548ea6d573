"""Whose macros a stored line is read with. In a group every member's lines — its greeting
first — say `{{char}}` meaning that member, as SillyTavern resolves each member's card on its
own; the player's values ({{user}}, {{persona}}…) are the same for every line."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from personalab.lib.lines import lines_overlap
from personalab.lib.macros import message_macros_replace


def character_macro_values(character: Mapping[str, Any]) -> dict[str, str]:
    """The macros a character's own card gives: its name and its card fields (SillyTavern's
    `getCharacterCardFields`: {{charPrompt}} is the card's system prompt, {{charJailbreak}} its
    post-history instructions)."""
    card = (character.get("card") or {}).get("data") or {}
    version = card.get("character_version") or ""
    values = {"char": character.get("name") or "",
              "description": card.get("description") or character.get("base_persona") or "",
              "personality": card.get("personality") or "", "scenario": card.get("scenario") or "",
              "charPrompt": str(card.get("system_prompt") or "").strip(),
              "charJailbreak": str(card.get("post_history_instructions") or "").strip(),
              "charVersion": version, "char_version": version}
    return {k: v for k, v in values.items() if isinstance(v, str)}


class LineMacros(dict):
    """Macro values (a dict, as before) that also know each group member's own values."""

    def __init__(self, values: Mapping[str, str],
                 by_speaker: Mapping[str, Mapping[str, str]] | None = None):
        super().__init__(values)
        self.by_speaker = dict(by_speaker or {})

    def for_line(self, line: Mapping[str, Any]) -> dict[str, str]:
        own = self.by_speaker.get(str(line.get("speaker") or ""))
        if own is not None and not own.get("char") and line.get("name"):
            own = {**own, "char": str(line["name"])}  # its card is gone: the name it spoke under
        return {**self, **own} if own else dict(self)


def macros_in(text: str) -> bool:
    """Whether a player's text may hold a macro: such a line, once filled, is stored marked
    `"macros_filled": true` (a line without one reads the same either way)."""
    return "{{" in text or "<" in text


def line_macros_replace(line: Mapping[str, Any], values: Mapping[str, str]) -> str:
    """The line's content with its macros filled in for whoever said it."""
    content = line.get("content")
    if not isinstance(content, str):
        return "" if content is None else str(content)
    if line.get("macros_filled"):
        return content  # filled when it was sent; what its variables held is kept as written
    if isinstance(values, LineMacros):
        values = values.for_line(line)
    return message_macros_replace(content, values,
                                  seed=f"{line.get('turn')}:{line.get('timestamp')}")


LAST_MESSAGE_MACROS = (("lastMessage", ("user", "assistant")), ("lastUserMessage", ("user",)),
                       ("lastCharMessage", ("assistant",)))


def last_messages_shown(lines: list[dict[str, Any]], values: Mapping[str, str]) -> dict[str, str]:
    """{{lastMessage}}, {{lastUserMessage}} and {{lastCharMessage}}: the newest such line of
    `lines` as the page shows it and the prompt sends it, read with `values` (a greeting's
    {{user}} and {{roll}} filled, the same roll: SillyTavern keeps the greeting as the
    player saw it, and these macros read what it keeps); a hidden line only for {{lastMessage}}."""
    shown = {}
    for name, roles in LAST_MESSAGE_MACROS:
        # A hidden line is a system message in SillyTavern: {{lastMessage}} still reads it
        # (getLastMessage has no filter), and a narrator's note too; the player's and the
        # character's skip them.
        line = next((line for line in reversed(lines)
                     if (line.get("role") in roles or (name == "lastMessage"
                                                       and line.get("type") == "note"))
                     and isinstance(line.get("content"), str)
                     and not (line.get("hidden") and name != "lastMessage")), None)
        shown[name] = "" if line is None else line_macros_replace(line, values)
    return shown


def _in_sillytavern_chat(line: Mapping[str, Any]) -> bool:
    return line.get("role") in ("user", "assistant") or line.get("type") in ("note", "summary")


def chat_position_macros(lines: list[dict[str, Any]], *, earlier: int = 0) -> dict[str, str]:
    """SillyTavern's {{lastMessageId}} (the newest message's index in its chat, counted from
    0 as the SillyTavern export numbers the session's lines; `earlier`: those before `lines`),
    {{currentSwipeId}} (the 1-based version shown of the newest message, a character's; a
    player's line has none) and {{lastSwipeId}} (how many versions it has), empty for an
    empty chat."""
    count = earlier + _chat_lines_count(lines)
    newest = next((line for line in reversed(lines) if _in_sillytavern_chat(line)), None)
    swipe = ""
    if newest is not None and newest.get("role") == "assistant":
        versions = len(newest.get("alternatives") or [])
        position = newest.get("alternative_position")
        swipe = str((position if isinstance(position, int) and 0 <= position <= versions
                     else versions) + 1)
    last = str(len(newest.get("alternatives") or []) + 1) if swipe else ""
    return {"lastMessageId": str(count - 1) if count else "", "currentSwipeId": swipe,
            "lastSwipeId": last}


_COUNTED = 8
# The chat lines counted in recent lists of lines: (a copy of the list, its count).
_counted: list[tuple[list[dict[str, Any]], int]] = []
_counted_lock = threading.Lock()


def _chat_lines_count(lines: list[dict[str, Any]]) -> int:
    """How many of `lines` a SillyTavern chat holds. A turn's lines are thousands in a long
    chat or an old session opening with thousands of summary lines (the stretch back to the
    prompt's token room), and the same as the last turn's but for a few at either end: counted
    from the last count of lines sharing most of them (lines_overlap), only those ends walked."""
    with _counted_lock:
        held = list(_counted)
    for old, old_count in held:
        overlap = lines_overlap(old, lines)
        if overlap is not None and len(old) + len(lines) - 2 * overlap[1] < len(lines):
            k, m = overlap
            count = old_count - _in_chat(old[:k]) - _in_chat(old[k + m:]) + _in_chat(lines[m:])
            break
    else:
        count = _in_chat(lines)
    with _counted_lock:
        _counted[:] = [(list(lines), count), *_counted][:_COUNTED]
    return count


def chat_lines_in(lines: list[dict[str, Any]]) -> int:
    """How many of `lines` a SillyTavern chat holds (its message ids count them)."""
    return _in_chat(lines)


def _in_chat(lines: list[dict[str, Any]]) -> int:
    # Without a call per line: this walks whole stretches when nothing was counted before.
    return sum(1 for line in lines if line.get("role") in ("user", "assistant")
               or line.get("type") in ("note", "summary"))
