"""Prompt-manager blocks in the role their preset gives them. The system part before the chat
is built as one text; a block placed among the character's sections (or after the history) in
the user or assistant role is then cut out of it as its own message in that role, as
SillyTavern sends each prompt of a Chat Completion preset. Lore keeps the system role there
(SillyTavern's world info before / after is always system). Framework-free."""

from __future__ import annotations

from typing import Any

from chat.prompt.inputs import Block

PLACES = ("before_char", "after_char", "after_history")
JOINER = "\n\n"


def blocks_in_role(blocks: list[Block], priority: int) -> list[Block]:
    """The prompt-manager blocks (`priority`) that are not system messages."""
    return [b for b in blocks if b.priority == priority and b.role != "system"
            and b.position in PLACES and b.report.text.strip()]


def messages_with_block_roles(messages: list[dict[str, Any]],
                              blocks: list[Block]) -> list[dict[str, Any]]:
    """`messages` with each block's text taken out of the system message holding it and put
    in its own message with the block's role, where it was."""
    for block in blocks:
        text = block.report.text
        for index, message in enumerate(messages):
            content = message.get("content")
            if message.get("role") != "system" or not isinstance(content, str) \
                    or text not in content:
                continue
            before, _, after = content.partition(text)
            before, after = before.removesuffix(JOINER), after.removeprefix(JOINER)
            parts = ([{"role": "system", "content": before}] if before.strip() else []) + [
                {"role": block.role, "content": text}] + (
                [{"role": "system", "content": after}] if after.strip() else [])
            messages = [*messages[:index], *parts, *messages[index + 1:]]
            break
    return messages
