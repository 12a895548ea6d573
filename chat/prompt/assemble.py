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
from chat.prompt.inputs import (
    Block,
    PromptInputs,
    PromptPlan,
    PromptResult,
    SectionReport,
    prompt_plan,
)
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
    UtilityMessages,
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
    limit_is_window,
    prompt_limit,
    recap_span,
    refusal_facts,
    refusal_with_reason,
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


@dataclasses.dataclass
class _Draft:
    """A prompt while `_prompt_built` assembles it: each stage below reads and fills it."""

    inputs: PromptInputs
    templates: TemplateSet
    plan: PromptPlan
    variables: dict[str, Any]
    made: UtilityMessages
    budgets: dict[str, int]
    sections: list[SectionReport]
    blocks: list[Block]
    in_role: list[Block]
    story_post: SectionReport | None
    warnings: list[dict[str, Any]]
    markers: tuple[str, ...]
    conversation: Conversation | None = None
    label: str = ""
    active: list[Block] = dataclasses.field(default_factory=list)
    dropped: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    system_text: str = ""
    tail_tokens: int = 0
    total: int = 0


def _prompt_built(inputs: PromptInputs, templates: TemplateSet) -> PromptResult:
    draft = _draft_start(inputs, templates)
    _conversation_place(draft)
    _blocks_and_examples_fit(draft)
    history = _history_laid(draft)
    head, moved = _head_and_moved(draft)
    messages = _messages_built(draft, history, head, moved)
    return _result(draft, messages, head, moved)


def _draft_start(inputs: PromptInputs, templates: TemplateSet) -> _Draft:
    """The sections and floating blocks, before the conversation is fitted around them."""
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
    return _Draft(inputs=inputs, templates=templates, plan=plan, variables=variables, made=made,
                  budgets=budgets, sections=sections,
                  blocks=[b for b in blocks if b.position != "after_history"],
                  in_role=in_role, story_post=story_post, warnings=warnings,
                  markers=tuple(inputs.marker_order))


def _conversation_place(draft: _Draft) -> None:
    """The conversation in the room the fixed sections leave, with its note on what it covers."""
    inputs, sections = draft.inputs, draft.sections
    if inputs.window is not None:
        fixed = _total_tokens(system_text_build(sections, draft.blocks, ""), Conversation(
            [], [], section_report("conversation", "middle", ""), 0), draft.blocks) + _tail_tokens(
            sections) + draft.made.tokens()
        draft.budgets["conversation"] = conversation_room(
            draft.budgets.get("conversation"), draft.plan.max_total_tokens, fixed)
    conversation = conversation_build(inputs, draft.plan, draft.templates, draft.variables,
                                      draft.budgets)
    recaps = next((r for r in sections if r.name == "recaps" and r.text), None)
    shown = len(inputs.recaps) - recaps.omitted if recaps else 0
    conversation.report.text = "\n".join(filter(None, [conversation.report.text, coverage_note(
        recap_span(inputs.recap_spans, shown), first_kept_turn=conversation.first_kept_turn,
        dropped=conversation.report.omitted, locale=draft.templates.locale)]))
    draft.conversation = conversation
    draft.label = conversation.report.text if conversation.messages else ""


def _kept_examples(draft: _Draft, candidate: list[SectionReport]
                   ) -> tuple[SectionReport | None, list[str]]:
    report = next((r for r in candidate if r.name == "examples"), None)
    examples = draft.variables["examples"]
    return report, examples[:len(examples) - report.omitted] if report else []


def _example_turns(draft: _Draft, candidate: list[SectionReport]) -> list[dict[str, Any]]:
    """Chat Completion: the example dialogues' own messages (each costs its overhead)."""
    inputs = draft.inputs
    if inputs.utility is None:
        return []
    return example_dialogue_messages(
        _kept_examples(draft, candidate)[1], example_chat=draft.variables["example_chat"],
        user_name=inputs.user_name, character_name=inputs.character_name,
        group=bool(inputs.utility.members))


def _blocks_and_examples_fit(draft: _Draft) -> None:
    """Floating blocks dropped, then example dialogues placed, until the prompt fits."""
    limit, markers, conversation = draft.plan.max_total_tokens, draft.markers, draft.conversation
    draft.tail_tokens = _tail_tokens(draft.sections) + draft.made.tokens()
    draft.active, draft.dropped, total = blocks_fit(
        draft.sections, draft.blocks, conversation, draft.label, limit - draft.tail_tokens,
        markers)
    total += draft.tail_tokens

    def fits(candidate: list[SectionReport]) -> bool:
        text = system_text_build(candidate, draft.active, draft.label, markers)
        return (_total_tokens(text, conversation, draft.active) + draft.tail_tokens
                + MESSAGE_OVERHEAD_TOKENS * len(_example_turns(draft, candidate)) <= limit)

    draft.sections = examples_place(
        draft.sections, draft.plan, draft.templates, draft.variables,
        draft.budgets.get("examples"), limit - total, fits, draft.warnings,
    )
    draft.system_text = system_text_build(draft.sections, draft.active, draft.label, markers)
    draft.total = _total_tokens(draft.system_text, conversation, draft.active) + draft.tail_tokens


def _history_laid(draft: _Draft) -> list[dict[str, Any]]:
    """The conversation's messages with the depth blocks woven in; with a context template
    (text completion) the story string's opening leads them."""
    inputs, active = draft.inputs, draft.active
    history = history_weave(draft.conversation.messages, active, inputs.story, inputs.user_name)
    if inputs.story is None:
        return history
    sections = draft.sections
    opening = story_opening(
        _head_with_blocks([r for r in sections if r.region == "head"], active, draft.markers),
        [r for r in sections if r.region == "middle"], draft.label, templates=draft.templates,
        variables=draft.variables, choice=inputs.story)
    draft.system_text, history = opening.opening, story_woven(history, opening)
    if draft.story_post is not None:  # the player's last turn (the inspector lists it)
        history = story_post_turn(history, draft.story_post)
        sections.append(dataclasses.replace(draft.story_post, region="middle"))
    draft.total = _total_tokens(draft.system_text, draft.conversation, active) + (
        draft.tail_tokens + (count_tokens(opening.in_chat["content"]) + MESSAGE_OVERHEAD_TOKENS
                             if opening.in_chat else 0))
    return history


def _head_and_moved(draft: _Draft) -> tuple[list[SectionReport], list[SectionReport]]:
    """The head, and the sections a preset puts after `chatHistory` (sent after it)."""
    markers = draft.markers
    head = _head_with_blocks([r for r in draft.sections if r.region == "head"], draft.active,
                             markers)
    if draft.inputs.story is not None or not markers:
        return head, []
    head, moved = markers_after_history(head, markers)
    if not moved:
        return head, []
    moved = [dataclasses.replace(r, region="tail") for r in moved]
    draft.system_text = system_text_build(draft.sections, draft.active, draft.label, markers,
                                          history_moved=True)
    draft.tail_tokens = _tail_tokens([*moved, *_tail_reports(draft.sections)]) + draft.made.tokens()
    draft.total = _total_tokens(draft.system_text, draft.conversation, draft.active) + (
        draft.tail_tokens)
    return head, moved


def _messages_built(draft: _Draft, history: list[dict[str, Any]], head: list[SectionReport],
                    moved: list[SectionReport]) -> list[dict[str, Any]]:
    conversation = draft.conversation
    # After the history each part is its own system message (a prompt after chatHistory, the
    # post-history instructions), as SillyTavern sends them; merge / strict join them later.
    messages = messages_with_utility(
        [{"role": "system", "content": draft.system_text}] if draft.system_text else [], history,
        [{"role": "system", "content": text}
         for text in marker_texts([*moved, *_tail_reports(draft.sections)]) if text], draft.made,
        conversation.messages[-1] if conversation.messages else None)
    # Chat completion: a preset's user / assistant prompt is its own message (as SillyTavern).
    messages = messages_with_block_roles(messages, [b for b in draft.in_role if b in draft.active
                                                    or b.position == "after_history"])
    turns = _example_turns(draft, head)
    if turns:  # Chat Completion: each example turn its own message
        messages = messages_with_examples(
            messages, _kept_examples(draft, head)[0], turns,
            examples_heading(draft.templates, draft.variables, draft.warnings))
        draft.total += len(turns) * MESSAGE_OVERHEAD_TOKENS
    return messages


def _result(draft: _Draft, messages: list[dict[str, Any]], head: list[SectionReport],
            moved: list[SectionReport]) -> PromptResult:
    """The prompt with its report, refused when over its limits."""
    inputs, plan, templates, conversation = (draft.inputs, draft.plan, draft.templates,
                                             draft.conversation)
    middle = [r for r in draft.sections if r.region == "middle"] + depth_reports(draft.active)
    if conversation.messages:
        middle.append(conversation.report)
    middle += draft.made.reports()
    middle_tokens = sum(r.tokens for r in middle)
    refused, limit_warnings = limits_check(
        plan, templates, draft.total, middle_tokens, conversation, draft.dropped
    )
    if refused and inputs.window is not None:
        why = fixed_refusal([(r.name, r.tokens) for r in head + middle], total=draft.total,
                            limit=plan.max_total_tokens, window=inputs.window,
                            locale=templates.locale)
        refused = refusal_with_reason(
            refused, why, by_window=limit_is_window(inputs.window, plan.max_total_tokens),
            locale=templates.locale)
    facts = refusal_facts([(r.name, r.tokens) for r in head + middle], total=draft.total,
                          limit=plan.max_total_tokens, window=inputs.window) if refused else None
    return PromptResult(
        messages=messages,
        sections=head + middle + moved + _tail_reports(draft.sections),
        total_tokens=draft.total,
        middle_tokens=middle_tokens,
        warnings=warnings_merge(draft.warnings + limit_warnings),
        refused=refused,
        refusal=facts,
        dropped_blocks=draft.dropped,
        tokenizer=tokenizer_name(),
        macro_variables=draft.variables["macro_variables"],
        lines_missing=conversation.unread and (refused is None or conversation.bounded),
        window=window_report(inputs.window, limit=plan.max_total_tokens,
                             dropped=conversation.report.omitted,
                             first_kept_turn=conversation.first_kept_turn,
                             full=conversation.full,
                             first_included=conversation.first_included),
        story_raw=inputs.story is not None,
    )
