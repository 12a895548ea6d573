"""Example dialogues (`mes_example`): blocks that each start with `<START>`, kept in order
while the prompt has room for them; they are left out before the conversation is cut."""

from __future__ import annotations

from collections.abc import Callable

START = "<start>"


def examples_parse(text: str) -> list[str]:
    """The example blocks of `text`, without their `<START>` line. Text before the first
    `<START>` is a block of its own, as SillyTavern reads it."""
    blocks, lowered, position = [], text.lower(), 0
    while position <= len(text):
        found = lowered.find(START, position)
        end = len(text) if found < 0 else found
        block = text[position:end].strip()
        if block:
            blocks.append(block)
        if found < 0:
            break
        position = found + len(START)
    return blocks


def examples_keep(blocks: list[str], fits: Callable[[list[str]], bool]) -> list[str]:
    """The longest run of blocks, from the first, for which `fits` holds."""
    kept: list[str] = []
    for block in blocks:
        if not fits([*kept, block]):
            break
        kept.append(block)
    return kept
