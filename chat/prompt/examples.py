"""Example dialogues (`mes_example`): blocks that each start with `<START>`, kept in order
while the prompt has room for them; they are left out before the conversation is cut."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

START = "<start>"
EXAMPLE_LORE = ("em_top", "em_bottom")


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


def examples_fill(*, text: str, blocks: list[str], fill: Callable[[str], str]) -> list[str]:
    """The example blocks with their macros filled (`fill`): in the whole field `text` before it
    is split at `<START>`, as SillyTavern's Generate (`baseChatReplace` on `mes_example`, then
    `parseMesExamples`), so a {{pick}} is seeded by the whole field and its place in it and
    chooses as there; without the field (`blocks` only), block by block."""
    if not text:
        return [fill(block) for block in blocks]
    return examples_parse(fill(text).replace("\r", ""))


def examples_keep(blocks: list[str], fits: Callable[[list[str]], bool]) -> list[str]:
    """The longest run of blocks, from the first, for which `fits` holds."""
    kept: list[str] = []
    for block in blocks:
        if not fits([*kept, block]):
            break
        kept.append(block)
    return kept


def examples_with_lore(examples: list[str], blocks: list[Any]) -> tuple[list[str], list[Any]]:
    """Chat Completion: lore at the top / bottom of the example messages (`blocks` of position
    em_top / em_bottom) as example dialogues of their own before / after the card's, and the
    other blocks. As SillyTavern 1.12.6 (Generate, world info examples): each entry's text is
    split at `<START>` like `mes_example`; the top ones come in the reverse of their prompt
    order (it prepends them one by one), the bottom ones in it; an entry without a player's or
    character's line sends nothing (example_messages)."""
    top = [b for b in blocks if b.position == "em_top"]
    bottom = [b for b in blocks if b.position == "em_bottom"]
    if not top and not bottom:
        return examples, blocks
    parsed = {id(b): examples_parse(b.report.text) for b in [*top, *bottom]}
    return ([*(part for b in reversed(top) for part in parsed[id(b)]), *examples,
             *(part for b in bottom for part in parsed[id(b)])],
            [b for b in blocks if b.position not in EXAMPLE_LORE])


EXAMPLE_NAMES = {"user": "example_user", "assistant": "example_assistant"}


def example_messages(block: str, *, user_name: str, character_name: str,
                     group: bool = False) -> list[dict[str, str]]:
    """One example dialogue as Chat Completion messages, as SillyTavern sends them: each
    speaker's turn a system message named `example_user` / `example_assistant`, the speaker's
    `Name:` taken off (kept in front in a group). A turn starts at a line that begins with the
    player's or the character's name and a colon (the same speaker's next line stays in the same
    turn); text before the first such line belongs to the first turn; a block without one sends
    nothing."""
    made: list[dict[str, str]] = []
    speaker: str | None = None
    lines: list[str] = []

    def close() -> None:
        name = user_name if speaker == "user" else character_name
        text = "\n".join(lines).replace(f"{name}:", "", 1).strip()
        made.append({"role": "system", "content": f"{name}: {text}" if group else text,
                     "name": EXAMPLE_NAMES[speaker or "user"]})

    for line in [*block.strip().split("\n"), ""]:
        starts = ("user" if line.startswith(f"{user_name}:") else "assistant"
                  if line.startswith(f"{character_name}:") else None)
        if starts is not None and starts != speaker:
            if speaker is not None:
                close()
                lines = []
            speaker = starts
        lines.append(line)
    if speaker is not None:
        close()
    return made
