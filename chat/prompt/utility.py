"""SillyTavern's utility prompts in a Chat Completion request (the prompt manager's `utility`,
personalab/lib/prompt_manager.py): the line before the chat history ("[Start a new Chat]", a
group's "[Start a new group chat. Group members: ...]") as its own system message, each example
dialogue as its own messages after an "[Example Chat]" line, a group's nudge ("[Write the next
reply only as {{char}}.]") after the history, the card's personality and scenario in their
wording, and on Continue the nudge after the reply being continued, or with `continue_prefill`
that reply sent last as the assistant's prefill, as SillyTavern 1.12.6 sends them. Text completion lays the prompt out with its instruct and context
templates instead (chat/prompt/story.py): none of this applies there. Framework-free."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chat.prompt.examples import example_messages
from chat.prompt.inputs import SectionReport
from chat.prompt.sections import section_report
from chat.prompt.tally import MESSAGE_OVERHEAD_TOKENS
from chat.prompt.templates import TemplateSet
from personalab.lib.macros import macros_replace
from personalab.lib.prompt_manager import UTILITY_DEFAULTS


@dataclass(frozen=True)
class ChatUtility:
    """What a Chat Completion turn needs of the utility prompts: those its prompt manager sets
    (`own`; the rest come from the prompt template's defaults, SillyTavern's words in English),
    a group's member names for `{{group}}`, whether the turn continues the last reply and
    whether it writes the player's suggestion (Impersonate: no group nudge)."""

    own: dict[str, Any] = field(default_factory=dict)
    members: tuple[str, ...] = ()
    continuing: bool = False
    impersonating: bool = False

    def text(self, key: str, templates: TemplateSet) -> str:
        own = self.own.get(key)
        if isinstance(own, str):
            return own
        return templates.default(key) or str(UTILITY_DEFAULTS[key])

    def prefill(self) -> bool:
        return self.own.get("continue_prefill") is True


@dataclass
class UtilityMessages:
    """A turn's utility messages: the line before the history, and on Continue either the
    nudge after it or the reply so far sent last (`prefill`)."""

    new_chat: dict[str, str] | None = None
    nudge: dict[str, str] | None = None
    group_nudge: dict[str, str] | None = None
    prefill: bool = False

    def reports(self) -> list[SectionReport]:
        """The prompt inspector's rows for what is sent."""
        return [section_report(name, "middle", message["content"], note=note)
                for name, message, note in (
                    ("new_chat", self.new_chat, "SillyTavern's new chat line, before the history"),
                    ("group_nudge", self.group_nudge, "SillyTavern's group nudge"),
                    ("continue_nudge", self.nudge, "SillyTavern's continue nudge"))
                if message]

    def tokens(self) -> int:
        return sum(r.tokens + MESSAGE_OVERHEAD_TOKENS for r in self.reports())


def utility_messages(utility: ChatUtility | None, templates: TemplateSet,
                     macros: dict[str, str], *, partial: str) -> UtilityMessages:
    """The utility messages of a turn (`partial`: the reply a Continue continues); none for
    text completion. A line the prompt manager empties is not sent."""
    if utility is None:
        return UtilityMessages()
    key = "new_group_chat_prompt" if utility.members else "new_chat_prompt"
    text = macros_replace(utility.text(key, templates),
                          {**macros, "group": ", ".join(utility.members)}).strip()
    made = UtilityMessages(new_chat=_system(text))
    if utility.members and not utility.impersonating:
        made.group_nudge = _system(macros_replace(utility.text("group_nudge_prompt", templates),
                                                  macros).strip())
    if not utility.continuing:
        return made
    if utility.prefill():
        made.prefill = True
        return made
    nudge = macros_replace(utility.text("continue_nudge_prompt", templates),
                           {**macros, "lastChatMessage": partial.strip()}).strip()
    made.nudge = _system(nudge)
    return made


def _system(text: str) -> dict[str, str] | None:
    return {"role": "system", "content": text} if text else None


def messages_with_utility(opening: list[dict[str, Any]], history: list[dict[str, Any]],
                          after: list[dict[str, Any]], made: UtilityMessages,
                          partial: dict[str, Any] | None) -> list[dict[str, Any]]:
    """opening, the new-chat line, the history (its depth-0 notes included), the Continue
    nudge, then what follows the history (`after`); with continue_prefill the reply so far
    (`partial`, a message of `history`) is taken out and sent last instead, as SillyTavern's
    Chat Completion does."""
    if made.prefill and partial is not None:
        history = [m for m in history if m is not partial]
        after = [*after, partial]
    return [*opening, *([made.new_chat] if made.new_chat else []), *history,
            *([made.group_nudge] if made.group_nudge else []),
            *([made.nudge] if made.nudge else []), *after]


def example_dialogue_messages(blocks: list[str], *, example_chat: str, user_name: str,
                              character_name: str, group: bool) -> list[dict[str, Any]]:
    """The messages of the example dialogues `blocks` (a block without a turn: none)."""
    made: list[dict[str, Any]] = []
    for block in blocks:
        turns = example_messages(block, user_name=user_name, character_name=character_name,
                                 group=group)
        if turns:
            made += [*([_system(example_chat)] if example_chat else []), *turns]
    return made


def messages_with_examples(messages: list[dict[str, Any]], report: SectionReport | None,
                           turns: list[dict[str, Any]], heading: str = "") -> list[dict[str, Any]]:
    """Chat Completion: the example dialogues (`report`, the section that holds them) cut out
    of the system message holding them and sent as `turns` (example_dialogue_messages) where
    they were, as SillyTavern's populateDialogueExamples does. What the section's template
    writes around the dialogues (`heading`: its label, a custom template's own lines) stays in
    the system text before them."""
    if report is None or not report.text.strip():
        return messages
    for index, message in enumerate(messages):
        content = message.get("content")
        if message.get("role") != "system" or not isinstance(content, str) \
                or report.text not in content:
            continue
        before, _, after = content.partition(report.text)
        before = "\n\n".join(part for part in (before.strip(), heading.strip()) if part)
        parts = [*([_system(before)] if before else []), *turns,
                 *([_system(after.strip())] if after.strip() else [])]
        return [*messages[:index], *parts, *messages[index + 1:]]
    return messages
