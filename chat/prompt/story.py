"""A context template's story string as the opening of a text-completion prompt (SillyTavern's
layout): the story string filled from our sections, then the example dialogues under the
template's separator (unless the story string places them), then its chat-start line; or, with
`story_string_position` 1, the story string as a message `story_string_depth` messages from the
end in its role.

Which section fills which value: `system` the main prompt, `description` the card's description
(and the evolved persona), `personality`, `scenario`, `persona` your persona, `wiBefore` /
`wiAfter` world info before / after the character, `mesExamples` the example dialogues (with
world info at their top / bottom). Everything else of ours (story outline, pinned prompts,
biography, director's reminder, recalled events, recaps, prompt blocks) keeps its heading and
is `anchorAfter` (prompt blocks before the character: `anchorBefore`), put after (before) the
story string unless the story string places it, as SillyTavern puts its extension prompts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chat.prompt.examples import examples_parse
from chat.prompt.inputs import SectionReport
from chat.prompt.templates import TemplateSet
from personalab.lib.instruct import InstructTemplate, instruct_examples, instruct_system_prompt
from personalab.lib.story_string import (
    IN_CHAT,
    ROLES,
    ContextTemplate,
    examples_text,
    story_string_render,
)

VALUE_SECTIONS = {
    "main_prompt": "system", "base_persona": "description", "evolved_persona": "description",
    "personality": "personality", "scenario": "scenario", "user_persona": "persona",
}
_LORE = {"before_char": "wiBefore", "after_char": "wiAfter"}


@dataclass(frozen=True)
class StoryChoice:
    """The context template a text-completion turn uses, and whether its instruct template
    wraps (a story string that does not end in a newline gets one then, as SillyTavern's)."""
    template: ContextTemplate
    wrap: bool = False
    instruct: InstructTemplate | None = None  # formats the example dialogues as turns
    group: bool = False
    members: tuple[str, ...] = ()  # the group's other members, whose example lines are theirs
    continuing: bool = False  # the last message is a reply being continued (left open)


@dataclass
class StoryOpening:
    opening: str  # the text before the chat, put in the prompt as it is
    in_chat: dict[str, str] | None = None  # the story string as a chat message
    depth: int = 0


def _body(report: SectionReport, templates: TemplateSet) -> str:
    """A section's text without the heading our own layout gives it."""
    label = templates.label(report.name)
    if label and report.text.startswith(label + "\n"):
        return report.text[len(label) + 1:]
    return report.text


def story_opening(head: list[SectionReport], middle: list[SectionReport], label: str, *,
                  templates: TemplateSet, variables: dict[str, Any],
                  choice: StoryChoice) -> StoryOpening:
    """`head` (in its final order, with the floating blocks) and `middle` laid out by the
    context template."""
    template = choice.template
    values: dict[str, list[str]] = {}
    before: list[str] = []
    after: list[str] = []
    top: list[list[str]] = []
    bottom: list[list[str]] = []
    examples: list[str] = []
    for report in head:
        note = str(report.note or "")
        if report.name in VALUE_SECTIONS:
            values.setdefault(VALUE_SECTIONS[report.name], []).append(_body(report, templates))
        elif report.name.startswith("block:lore:") and note in _LORE:
            values.setdefault(_LORE[note], []).append(report.text)
        elif report.name.startswith("block:lore:") and note in ("em_top", "em_bottom"):
            (top if note == "em_top" else bottom).append(examples_parse(report.text))
        elif report.name == "examples":
            kept = len(variables.get("examples") or []) - report.omitted
            examples = [str(block) for block in (variables.get("examples") or [])[:kept]]
        elif report.name.startswith("block:") and note == "before_char":
            before.append(report.text)
        else:
            after.append(report.text)
    # The conversation's heading is our layout's; the chat-start line takes its place. What
    # follows it (how much of the story the recaps cover) stays.
    heading = templates.label("conversation")
    note = label[len(heading):].strip() if heading and label.startswith(heading) else label
    after += [report.text for report in middle] + ([note] if note else [])
    # Example lore as SillyTavern's Generate adds it: split at <START>, the top entries
    # prepended one by one (so in reverse), the bottom ones appended.
    blocks = [*(part for parts in reversed(top) for part in parts), *examples,
              *(part for parts in bottom for part in parts)]
    filled = {name: "\n".join(part for part in parts if part) for name, parts in values.items()}
    filled["loreBefore"], filled["loreAfter"] = filled.get("wiBefore", ""), filled.get(
        "wiAfter", "")
    if choice.instruct is not None and filled.get("system"):
        filled["system"] = instruct_system_prompt(filled["system"], template=choice.instruct)
    filled.update({
        "char": str(variables.get("char") or ""), "user": str(variables.get("user") or ""),
        "mesExamples": _examples(blocks, choice, variables),
        "mesExamplesRaw": examples_text(blocks, ""),
        "anchorBefore": "\n\n".join(before), "anchorAfter": "\n\n".join(after),
    })
    source = template.story_string
    story = story_string_render(source, filled)
    if story and not story.endswith("\n") and choice.wrap:
        story += "\n"
    # What the story string does not place goes around it, as SillyTavern's anchors do.
    if filled["anchorBefore"] and "{{anchorBefore}}" not in source:
        story = filled["anchorBefore"] + "\n" + story
    if filled["anchorAfter"] and "{{anchorAfter}}" not in source:
        story = story + ("" if story.endswith("\n") or not story else "\n") + \
            filled["anchorAfter"] + "\n"
    rest = "" if "{{mesExamples" in source else filled["mesExamples"]
    rest += f"{template.chat_start}\n" if template.chat_start else ""
    if template.story_string_position == IN_CHAT:
        message = injected_message(ROLES[template.story_string_role], story.rstrip("\n"),
                                   choice=choice, user_name=str(variables.get("user") or ""))
        return StoryOpening(opening=rest, in_chat=message,
                            depth=injected_depth(template.story_string_depth, choice))
    return StoryOpening(opening=story + rest)


def _examples(blocks: list[str], choice: StoryChoice, variables: dict[str, Any]) -> str:
    """The example dialogues as SillyTavern puts them with an instruct template: as turns
    under the separator, or as written when the template skips them."""
    separator = choice.template.example_separator
    formatted = instruct_examples(
        blocks, template=choice.instruct, user_name=str(variables.get("user") or ""),
        char_name=str(variables.get("char") or ""), heading=f"{separator}\n" if separator
        else "", group=choice.group, others=choice.members) if choice.instruct is not None \
        else None
    return formatted if formatted is not None else examples_text(blocks, separator)


def injected_depth(depth: int, choice: StoryChoice | None) -> int:
    """Where a message put into the chat (the story string, a depth block) goes: a Continue
    keeps the reply being continued last, open for the model, so depth 0 becomes 1 (as
    SillyTavern's doChatInject)."""
    return 1 if depth == 0 and choice is not None and choice.continuing else depth


def injected_message(role: str, content: str, *, choice: StoryChoice | None,
                     user_name: str) -> dict[str, str]:
    """A message put into the chat in `role`. In the player's role it speaks as the player
    (SillyTavern's doChatInject names it so): in a group, whose prompt writes the player's
    name into the player's lines itself, it gets "Name: " when the instruct template names
    every speaker (`always`); `force` names no player's line, as SillyTavern."""
    named = (role == "user" and user_name and choice is not None and choice.group
             and choice.instruct is not None and choice.instruct.names_behavior == "always")
    return {"role": role, "content": f"{user_name}: {content}" if named else content}


def story_woven(history: list[dict[str, str]], opening: StoryOpening) -> list[dict[str, str]]:
    """The history with the story string `depth` messages from its end (0: after the last)."""
    if opening.in_chat is None:
        return history
    at = max(0, len(history) - opening.depth)
    return [*history[:at], opening.in_chat, *history[at:]]



def story_post_history(sections: list[SectionReport], choice: StoryChoice | None
                       ) -> tuple[list[SectionReport], SectionReport | None]:
    """With a context template (text completion), the sections without the post-history
    instructions, and those when they are sent: as SillyTavern's text completion, only when
    the template allows them (`allow_jailbreak`), and then as the player's last turn
    (story_post_turn), never as a system message after the history."""
    if choice is None:
        return sections, None
    post = next((r for r in sections if r.name == "post_history" and r.region == "tail"), None)
    rest = [r for r in sections if r is not post]
    sent = post is not None and post.text.strip() and choice.template.allow_jailbreak
    return rest, post if sent else None


def story_post_turn(history: list[dict[str, str]], post: SectionReport) -> list[dict[str, str]]:
    """The post-history instructions after the last message, in a user turn without the
    player's name (SillyTavern's line has none). A Continue keeps the reply being continued
    last (the instruct layout moves it after this turn), as SillyTavern puts them before it."""
    return [*history, {"role": "user", "content": post.text, "unnamed": True}]
