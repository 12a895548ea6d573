"""Blocks at a depth (lore entries at position "depth", the author's note, the card's depth
prompt, a preset's in-chat prompts) woven into the history as SillyTavern 1.12 does
(populationInjectionPrompts for Chat Completion, doChatInject for text completion): every block
of one depth and role is one message, its parts joined with a newline; at one depth the
messages go assistant, user, system; a depth beyond the start of the chat still puts the deeper
message first. Framework-free."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from chat.prompt.inputs import Block, SectionReport
from chat.prompt.sections import MANAGER_PRIORITY
from chat.prompt.story import StoryChoice, injected_depth, injected_message
from chat.prompt.tally import MESSAGE_OVERHEAD_TOKENS
from personalab.lib.tokens import count_tokens

JOINER = "\n"
# SillyTavern joins its extension prompts in the order of their keys; ours by block name.
EXTENSION_KEYS = {"authors_note": "2_floating_prompt", "depth_prompt": "DEPTH_PROMPT",
                  "persona_description": "PERSONA_DESCRIPTION"}
LORE_KEY = "customDepthWI"
# SillyTavern splices system, user, assistant into the reversed chat: read top-down, reversed.
ROLE_ORDER = ("assistant", "user", "system")


@dataclass(frozen=True)
class DepthMessage:
    depth: int
    role: str
    blocks: tuple[Block, ...]

    @property
    def text(self) -> str:
        return JOINER.join(block.report.text.strip() for block in self.blocks)


def _join_key(block: Block) -> tuple[int, str]:
    """A preset's in-chat prompts come before the extension prompts (SillyTavern joins them
    first); a lore entry keeps its place among the lore (lower order first)."""
    if block.name.startswith("lore:"):
        return 1, LORE_KEY
    if block.priority == MANAGER_PRIORITY or block.name not in EXTENSION_KEYS:
        return 0, ""
    return 1, EXTENSION_KEYS[block.name]


def depth_messages(blocks: list[Block]) -> list[DepthMessage]:
    """The depth blocks as the messages they become, deepest first, then by role order."""
    grouped: dict[tuple[int, str], list[Block]] = {}
    for block in blocks:
        if block.position == "depth":
            grouped.setdefault((block.depth, block.role), []).append(block)
    ordered = sorted(grouped.items(), key=lambda item: (-item[0][0], ROLE_ORDER.index(item[0][1])))
    return [DepthMessage(depth, role, tuple(sorted(parts, key=_join_key)))
            for (depth, role), parts in ordered]


def depth_tokens(blocks: list[Block]) -> int:
    return sum(count_tokens(message.text) + MESSAGE_OVERHEAD_TOKENS
               for message in depth_messages(blocks))


def depth_reports(blocks: list[Block]) -> list[SectionReport]:
    """The depth blocks' reports for the inspector, in the order they are sent, a block sharing
    its message with others noted with its part of it."""
    reports = []
    for message in depth_messages(blocks):
        count = len(message.blocks)
        reports += [dataclasses.replace(
                        b.report, note=f"{b.report.note}; one message, part {part} of {count}")
                    if count > 1 else b.report
                    for part, b in enumerate(message.blocks, start=1)]
    return reports


def history_weave(messages: list[dict[str, str]], blocks: list[Block],
                  story: StoryChoice | None = None,
                  user_name: str = "") -> list[dict[str, str]]:
    """Depth blocks into the history: depth 0 after the last message, depth n before the last n
    (with a context template, `story`, as SillyTavern puts them: chat/prompt/story.py)."""
    at: dict[int, list[dict[str, str]]] = {}
    for message in depth_messages(blocks):
        index = max(0, len(messages) - injected_depth(message.depth, story))
        at.setdefault(index, []).append(injected_message(
            message.role, message.text, choice=story, user_name=user_name))
    if not at:
        return list(messages)
    woven: list[dict[str, str]] = []
    for index, message in enumerate(messages):
        woven.extend(at.get(index, []))
        woven.append(message)
    woven.extend(at.get(len(messages), []))
    return woven
