"""The prompt pipeline, run by `prompt_build`: plan (`inputs.py`) -> variables -> sections ->
conversation -> assemble (here) -> count -> check limits (`limits.py`).

Pure functions, no Django, no file writes (seeds/prompt-pipeline.md: late binding, zero side
effects). The only reads are the template files, through `TemplateStore`.

System message layout (seeds/personalab-flow.md step 4): HEAD (base persona, evolved persona,
world setting, outline, progress instruction, pinned prompts, biography) then the system part of
the MIDDLE (director reminder, recalled events, recaps) and the conversation label; then the
conversation itself as real chat messages, summary lines as system notes, with floating blocks of
position "depth" woven in (depth 0 = after the last message, 1 = before the last message, ...;
one message per depth and role, as SillyTavern: chat/prompt/depth_weave.py).
Blocks at "before_char" go before the base persona, at "after_char" after the last of the
character/world sections.

Token figures: each section is counted on its own text; conversation messages and depth blocks
include the per-message overhead of the chat format (MESSAGE_OVERHEAD_TOKENS; each depth block
its own, though blocks sharing a message pay it once in the total); `total_tokens` is
counted on the final messages (contents + overhead per message + REPLY_PRIMING_TOKENS).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from chat.prompt.block_roles import blocks_in_role, messages_with_block_roles
from chat.prompt.conversation import Conversation, conversation_build
from chat.prompt.depth_weave import depth_reports, depth_tokens, history_weave
from chat.prompt.examples import examples_with_lore
from chat.prompt.give_way import memory_given_way
from chat.prompt.inputs import Block, PromptInputs, PromptResult, SectionReport, prompt_plan
from chat.prompt.limits import limits_check, warnings_merge
from chat.prompt.markers import marker_texts, markers_after_history, markers_ordered
from chat.prompt.sections import (
    MANAGER_PRIORITY,
    blocks_build,
    examples_heading,
    examples_place,
    section_report,
    sections_build,
)
from chat.prompt.story import (
    story_opening,
    story_post_history,
    story_post_turn,
    story_woven,
)
from chat.prompt.tally import MESSAGE_OVERHEAD_TOKENS
from chat.prompt.templates import TemplateSet, template_problem_add
from chat.prompt.utility import (
    example_dialogue_messages,
    messages_with_examples,
    messages_with_utility,
    utility_messages,
)
from chat.prompt.variables import prompt_variables
from chat.prompt.window import (
    budgets_windowed,
    conversation_room,
    coverage_note,
    fixed_refusal,
    prompt_limit,
    recap_span,
    sentences_joined,
    window_report,
)
from personalab.lib.tokens import count_tokens, tokenizer_name

REPLY_PRIMING_TOKENS = 3
CHARACTER_SECTIONS = ("base_persona", "personality", "scenario", "evolved_persona",
                      "world_setting")
EXAMPLE_SECTIONS = ("examples", "mes_example", "example_messages")


def _head_with_blocks(head: list[SectionReport], blocks: list[Block],
                      markers: tuple[str, ...] = ()) -> list[SectionReport]:
    """The head with the floating blocks in their places, then in the order of the preset's
    markers when it has one (chat/prompt/markers.py)."""
    before = [b.report for b in blocks if b.position == "before_char"]
    after = [b.report for b in blocks if b.position == "after_char"]
    names = [r.name for r in head]
    character = [i for i, name in enumerate(names) if name in CHARACTER_SECTIONS]
    # Lore before the character also goes before the player's persona when the template puts
    # it first, as SillyTavern's default order has it (world info, persona, description).
    opening = [i for i, name in enumerate(names) if name in (*CHARACTER_SECTIONS, "user_persona")]
    first = opening[0] if opening else 0
    last = character[-1] + 1 if character else 0
    placed = [*head[:first], *before, *head[first:last], *after, *head[last:]]
    placed = _examples_with_blocks(placed, blocks)
    return markers_ordered(placed, markers) if markers else placed


def _examples_with_blocks(head: list[SectionReport], blocks: list[Block]) -> list[SectionReport]:
    """Lore at the top / bottom of the example messages; without examples, after the
    character (where SillyTavern's examples would be)."""
    top = [b.report for b in blocks if b.position == "em_top"]
    bottom = [b.report for b in blocks if b.position == "em_bottom"]
    if not top and not bottom:
        return head
    names = [r.name for r in head]
    at = next((i for i, name in enumerate(names) if name in EXAMPLE_SECTIONS), None)
    if at is None:
        after = [i for i, r in enumerate(head) if r.name in CHARACTER_SECTIONS
                 or r.name.startswith("block:")]
        at = after[-1] + 1 if after else len(head)
        return [*head[:at], *top, *bottom, *head[at:]]
    return [*head[:at], *top, head[at], *bottom, *head[at + 1:]]


def system_text_build(
    sections: list[SectionReport], blocks: list[Block], conversation_label: str,
    markers: tuple[str, ...] = (), *, history_moved: bool = False,
) -> str:
    """The system message before the conversation (`history_moved`: without the sections a
    preset puts after `chatHistory`, which follow the conversation instead)."""
    head = _head_with_blocks([r for r in sections if r.region == "head"], blocks, markers)
    if history_moved:
        head = markers_after_history(head, markers)[0]
    middle = [r for r in sections if r.region == "middle"]
    parts = marker_texts(head) + [r.text for r in middle]
    if conversation_label:
        parts.append(conversation_label)
    return "\n\n".join(part for part in parts if part)


def _total_tokens(system_text: str, conversation: Conversation, blocks: list[Block]) -> int:
    system = count_tokens(system_text) + MESSAGE_OVERHEAD_TOKENS if system_text else 0
    return (system + sum(conversation.costs) + conversation.unread_tokens + depth_tokens(blocks)
            + REPLY_PRIMING_TOKENS)


def blocks_fit(
    sections: list[SectionReport],
    blocks: list[Block],
    conversation: Conversation,
    label: str,
    limit: int,
    markers: tuple[str, ...] = (),
) -> tuple[list[Block], list[dict[str, Any]], int]:
    """Drop floating blocks until under `limit`: lowest priority first, the later one on a tie."""
    active, dropped = list(blocks), []
    total = _total_tokens(system_text_build(sections, active, label, markers), conversation,
                          active)
    while total > limit and active:
        victim = min(active, key=lambda b: (b.priority, -b.index))
        active.remove(victim)
        dropped.append(
            {
                "name": victim.name,
                "position": victim.position,
                "depth": victim.depth,
                "priority": victim.priority,
                "tokens": victim.report.tokens,
                "reason": f"prompt over max_total_tokens ({total} > {limit});"
                " lowest priority dropped first",
            }
        )
        total = _total_tokens(system_text_build(sections, active, label, markers), conversation,
                              active)
    return active, dropped, total


def _tail_reports(sections: list[SectionReport]) -> list[SectionReport]:
    return [r for r in sections if r.region == "tail"]


def _tail_tokens(sections: list[SectionReport]) -> int:
    return sum(count_tokens(r.text) + MESSAGE_OVERHEAD_TOKENS for r in _tail_reports(sections))


def prompt_build(inputs: PromptInputs, templates: TemplateSet) -> PromptResult:
    """The prompt, its growing memory sections giving way to the recent conversation in a full
    window (chat/prompt/give_way.py)."""
    prompt = _prompt_built(inputs, templates)
    while (smaller := memory_given_way(inputs, prompt)) is not None:
        inputs = smaller
        prompt = _prompt_built(inputs, templates)
    return prompt


def _prompt_built(inputs: PromptInputs, templates: TemplateSet) -> PromptResult:
    warnings: list[dict[str, Any]] = []
    for problem in templates.problems:
        template_problem_add(templates, warnings, problem)
    plan = prompt_plan(inputs, templates)
    plan.max_total_tokens = prompt_limit(plan.max_total_tokens, inputs.window)
    variables = prompt_variables(inputs, templates, warnings)
    made = utility_messages(inputs.utility, templates, variables["macros"],
                            partial=str((inputs.lines or [{}])[-1].get("content") or ""))
    budgets = budgets_windowed(dict(inputs.section_budgets or {}), inputs.window)
    sections = sections_build(plan, templates, variables, budgets, warnings)
    blocks = blocks_build(inputs, templates, variables, warnings)
    if inputs.utility is not None:  # Chat Completion: example lore is example dialogue
        variables["examples"], blocks = examples_with_lore(variables["examples"], blocks)
    in_role = blocks_in_role(blocks, MANAGER_PRIORITY) if inputs.story is None else []
    sections, story_post = story_post_history(sections, inputs.story)
    # After-history blocks join the system message after the history, before the template's
    # post-history text (SillyTavern: prompts after chatHistory, then post-history instructions).
    sections = [r for r in sections if r.region != "tail"] + [
        b.report for b in blocks if b.position == "after_history"] + _tail_reports(sections)
    blocks = [b for b in blocks if b.position != "after_history"]
    if inputs.window is not None:  # the history fills what the fixed sections leave
        fixed = _total_tokens(system_text_build(sections, blocks, ""), Conversation(
            [], [], section_report("conversation", "middle", ""), 0), blocks) + _tail_tokens(
            sections) + made.tokens()
        budgets["conversation"] = conversation_room(budgets.get("conversation"),
                                                    plan.max_total_tokens, fixed)
    conversation = conversation_build(inputs, plan, templates, variables, budgets)
    recaps = next((r for r in sections if r.name == "recaps" and r.text), None)
    shown = len(inputs.recaps) - recaps.omitted if recaps else 0
    conversation.report.text = "\n".join(filter(None, [conversation.report.text, coverage_note(
        recap_span(inputs.recap_spans, shown), first_kept_turn=conversation.first_kept_turn,
        dropped=conversation.report.omitted, locale=templates.locale)]))
    label = conversation.report.text if conversation.messages else ""
    tail_tokens = _tail_tokens(sections) + made.tokens()
    markers = tuple(inputs.marker_order)
    active, dropped, total = blocks_fit(
        sections, blocks, conversation, label, plan.max_total_tokens - tail_tokens, markers
    )
    total += tail_tokens

    def kept_examples(candidate: list[SectionReport]) -> tuple[SectionReport | None, list[str]]:
        report = next((r for r in candidate if r.name == "examples"), None)
        blocks = variables["examples"]
        return report, blocks[:len(blocks) - report.omitted] if report else []

    def example_turns(candidate: list[SectionReport]) -> list[dict[str, Any]]:
        """Chat Completion: the example dialogues' own messages (each costs its overhead)."""
        if inputs.utility is None:
            return []
        return example_dialogue_messages(
            kept_examples(candidate)[1], example_chat=variables["example_chat"],
            user_name=inputs.user_name, character_name=inputs.character_name,
            group=bool(inputs.utility.members))

    def fits(candidate: list[SectionReport]) -> bool:
        text = system_text_build(candidate, active, label, markers)
        return (_total_tokens(text, conversation, active) + tail_tokens + MESSAGE_OVERHEAD_TOKENS
                * len(example_turns(candidate)) <= plan.max_total_tokens)

    sections = examples_place(
        sections, plan, templates, variables, budgets.get("examples"),
        plan.max_total_tokens - total, fits, warnings,
    )
    system_text = system_text_build(sections, active, label, markers)
    total = _total_tokens(system_text, conversation, active) + tail_tokens
    history = history_weave(conversation.messages, active, inputs.story, inputs.user_name)
    if inputs.story is not None:  # a context template lays out the opening instead
        opening = story_opening(
            _head_with_blocks([r for r in sections if r.region == "head"], active, markers),
            [r for r in sections if r.region == "middle"], label, templates=templates,
            variables=variables, choice=inputs.story)
        system_text, history = opening.opening, story_woven(history, opening)
        if story_post is not None:  # the player's last turn (the inspector lists it)
            history = story_post_turn(history, story_post)
            sections.append(dataclasses.replace(story_post, region="middle"))
            total += story_post.tokens + MESSAGE_OVERHEAD_TOKENS
        total = _total_tokens(system_text, conversation, active) + tail_tokens + (
            count_tokens(opening.in_chat["content"]) + MESSAGE_OVERHEAD_TOKENS
            if opening.in_chat else 0)
    head = _head_with_blocks([r for r in sections if r.region == "head"], active, markers)
    moved: list[SectionReport] = []
    if inputs.story is None and markers:  # chatHistory moved among the markers: it goes there
        head, moved = markers_after_history(head, markers)
        moved = [dataclasses.replace(r, region="tail") for r in moved]
    if moved:
        system_text = system_text_build(sections, active, label, markers, history_moved=True)
        tail_tokens = _tail_tokens([*moved, *_tail_reports(sections)]) + made.tokens()
        total = _total_tokens(system_text, conversation, active) + tail_tokens
    # After the history each part is its own system message (a prompt after chatHistory, the
    # post-history instructions), as SillyTavern sends them; merge / strict join them later.
    messages = messages_with_utility(
        [{"role": "system", "content": system_text}] if system_text else [], history,
        [{"role": "system", "content": text}
         for text in marker_texts([*moved, *_tail_reports(sections)]) if text], made, conversation.messages[-1] if conversation.messages else None)
    # Chat completion: a preset's user / assistant prompt is its own message (as SillyTavern).
    messages = messages_with_block_roles(messages, [b for b in in_role if b in active
                                                    or b.position == "after_history"])
    turns = example_turns(head)
    if turns:  # Chat Completion: each example turn its own message
        messages = messages_with_examples(messages, kept_examples(head)[0], turns,
                                          examples_heading(templates, variables, warnings))
        total += len(turns) * MESSAGE_OVERHEAD_TOKENS

    middle = [r for r in sections if r.region == "middle"] + depth_reports(active)
    if conversation.messages:
        middle.append(conversation.report)
    middle += made.reports()
    middle_tokens = sum(r.tokens for r in middle)
    refused, limit_warnings = limits_check(
        plan, templates, total, middle_tokens, conversation, dropped
    )
    if refused and inputs.window is not None:
        why = fixed_refusal([(r.name, r.tokens) for r in head + middle], total=total,
                            limit=plan.max_total_tokens, window=inputs.window,
                            locale=templates.locale)
        refused = sentences_joined(refused, why, templates.locale)
    return PromptResult(
        messages=messages,
        sections=head + middle + moved + _tail_reports(sections),
        total_tokens=total,
        middle_tokens=middle_tokens,
        warnings=warnings_merge(warnings + limit_warnings),
        refused=refused,
        dropped_blocks=dropped,
        tokenizer=tokenizer_name(),
        lines_missing=conversation.unread and refused is None,
        window=window_report(inputs.window, limit=plan.max_total_tokens,
                             dropped=conversation.report.omitted,
                             first_kept_turn=conversation.first_kept_turn,
                             full=conversation.full),
        story_raw=inputs.story is not None,
    )
