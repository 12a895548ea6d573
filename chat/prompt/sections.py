"""Stage 3 of the prompt: each section rendered from its template and held to its token
budget (list sections cut item by item, text cut at the end), and the floating blocks (lore,
author's notes) with their position, depth and role, and the example dialogues placed while
the prompt has room for them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chat.prompt.examples import examples_keep
from chat.prompt.inputs import Block, PromptInputs, PromptPlan, SectionReport
from chat.prompt.section_size import section_too_long
from chat.prompt.tally import MESSAGE_OVERHEAD_TOKENS
from chat.prompt.templates import TemplateSet, template_problem_add, warning_make
from chat.prompt.variables import author_text
from library.find_replace.scripts import WORLD_INFO
from personalab.lib.template_sandbox import (
    MAX_RENDER_CHARS,
    TemplateError,
    TemplateTooLong,
    render_template,
)
from personalab.lib.tokens import count_tokens, count_tokens_uncached

CUT_MARK = "…"
SECTION_JOIN_TOKENS = 1  # the blank line between two sections of the system message
# Sections cut item by item when over budget: (variable, which items survive). Recaps and the
# biography are chronological, so the newest survive; recalled events are shown in the order
# they were said, each with its `rank` best match first, and the best survive.
LIST_SECTIONS: dict[str, tuple[str, str]] = {
    "biography": ("biography", "last"),
    "recaps": ("recaps", "last"),
    "recalled": ("recalled", "best"),
}
BLOCK_POSITIONS = ("before_char", "after_char", "em_top", "em_bottom", "depth", "after_history")
# The prompt manager's own blocks are the author's setup, not lore: dropped last on overflow.
MANAGER_PRIORITY = 2000
CHAT_ROLES = ("system", "user", "assistant")


def _section_source_render(
    name: str, templates: TemplateSet, variables: dict[str, Any], warnings: list[dict[str, Any]]
) -> str:
    source = templates.section_source(name)
    fallback = templates.master_source(name)
    too_long = None
    for text, where in ((source, name), (fallback if fallback != source else "",
                                         f"{name} (master)")):
        if not text:
            continue
        try:
            return render_template(text, variables)
        except TemplateTooLong:  # the text it was given, not the template: said once, by name
            too_long = too_long or text
        except TemplateError as error:
            template_problem_add(templates, warnings, f"section {where}: {error}")
    if too_long:
        detail, field, size = section_too_long(name, too_long, variables)
        warnings.append(warning_make(templates, "section_too_long", size, MAX_RENDER_CHARS,
                                 detail=detail, section=name, field=field))
    return ""


def section_text(
    name: str, templates: TemplateSet, variables: dict[str, Any], warnings: list[dict[str, Any]]
) -> str:
    body = _section_source_render(name, templates, variables, warnings).strip()
    if not body:
        return ""
    label = templates.label(name)
    return f"{label}\n{body}" if label else body


def examples_heading(templates: TemplateSet, variables: dict[str, Any],
                     warnings: list[dict[str, Any]]) -> str:
    """What the examples section writes besides the dialogues: its label and the lines its
    template has around them (a custom template's heading)."""
    body = _section_source_render("examples", templates, {**variables, "examples": []},
                                  warnings).strip()
    return "\n".join(part for part in (templates.label("examples"), body) if part)


def section_report(name: str, region: str, text: str, **extra: Any) -> SectionReport:
    return SectionReport(
        name=name, region=region, tokens=count_tokens(text), chars=len(text), text=text, **extra
    )


def text_cut_to_tokens(text: str, budget: int) -> str:
    """The longest start of `text` (plus a cut mark) within `budget` tokens."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if count_tokens_uncached(text[:middle] + CUT_MARK) <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low] + CUT_MARK if low else ""


def _items_kept(items: list[Any], count: int, end: str) -> list[Any]:
    if count <= 0:
        return []
    if end == "best":  # the `count` best ranked, in the order they are shown
        ranks = sorted(range(len(items)), key=lambda at: (_rank(items[at]), at))[:count]
        return [items[at] for at in sorted(ranks)]
    return items[-count:] if end == "last" else items[:count]


def _rank(item: Any) -> int:
    rank = item.get("rank") if isinstance(item, dict) else None
    return rank if isinstance(rank, int) else 0


def _section_cut_items(
    name: str,
    region: str,
    budget: int,
    templates: TemplateSet,
    variables: dict[str, Any],
    warnings: list[dict[str, Any]],
) -> SectionReport:
    variable, end = LIST_SECTIONS[name]
    items = variables[variable]

    def render_with(count: int) -> str:
        return section_text(
            name, templates, {**variables, variable: _items_kept(items, count, end)}, warnings
        )

    low, high = 0, len(items) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if count_tokens_uncached(render_with(middle)) <= budget:
            low = middle
        else:
            high = middle - 1
    text = render_with(low) if low else text_cut_to_tokens(render_with(1), budget)
    kept = max(low, 1) if text else 0
    which = {"last": "newest", "best": "best"}.get(end, "first")
    note = f"over its budget of {budget} tokens: kept the {which} {kept} of {len(items)} items"
    return section_report(name, region, text, cut=True, omitted=len(items) - kept, note=note)


def section_build(
    name: str,
    region: str,
    templates: TemplateSet,
    variables: dict[str, Any],
    budgets: dict[str, int],
    warnings: list[dict[str, Any]],
) -> SectionReport | None:
    text = section_text(name, templates, variables, warnings)
    if not text:
        return None
    report = section_report(name, region, text)
    budget = budgets.get(name)
    if budget is None or report.tokens <= budget:
        return report
    if name in LIST_SECTIONS and len(variables[LIST_SECTIONS[name][0]]) > 1:
        return _section_cut_items(name, region, budget, templates, variables, warnings)
    cut = text_cut_to_tokens(text, budget)
    return section_report(
        name, region, cut, cut=True, note=f"over its budget of {budget} tokens: text cut at the end"
    )


def _source_note(report: SectionReport, variables: dict[str, Any]) -> None:
    sources = [item["source"] for item in variables["recalled"] if item["source"]]
    if sources:
        report.note = "; ".join(filter(None, [report.note, "sources: " + ", ".join(sources)]))


def sections_build(
    plan: PromptPlan,
    templates: TemplateSet,
    variables: dict[str, Any],
    budgets: dict[str, int],
    warnings: list[dict[str, Any]],
) -> list[SectionReport]:
    reports = []
    for region, names in (("head", plan.head), ("middle", plan.middle), ("tail", plan.tail)):
        for name in names:
            if name == "examples":
                continue  # placed by examples_place once the rest of the prompt is known
            report = section_build(name, region, templates, variables, budgets, warnings)
            if report is None:
                continue
            if name == "recalled":
                _source_note(report, variables)
            reports.append(report)
    return reports


def blocks_build(
    inputs: PromptInputs,
    templates: TemplateSet,
    variables: dict[str, Any],
    warnings: list[dict[str, Any]],
) -> list[Block]:
    blocks = []
    for index, raw in enumerate([*inputs.floating_blocks, *_manager_blocks(inputs)]):
        name = str(raw.get("name") or f"block_{index + 1}")
        content = author_text(str(raw.get("content") or ""), variables,
                              roll_seed=str(raw.get("roll_seed") or ""))
        position = raw.get("position") if raw.get("position") in BLOCK_POSITIONS else "depth"
        depth = max(0, int(raw.get("depth") or 0))
        if inputs.regex and name.startswith("lore:"):
            content = inputs.regex.text(content, WORLD_INFO, prompt=True,
                                        depth=depth if position == "depth" else None)
        if not content.strip():
            continue
        role = raw.get("role") if raw.get("role") in CHAT_ROLES else "system"
        region = {"depth": "middle", "after_history": "tail"}.get(position, "head")
        tokens = count_tokens(content) + (MESSAGE_OVERHEAD_TOKENS if position == "depth" else 0)
        note = f"depth {depth}, role {role}" if position == "depth" else position
        report = SectionReport(
            f"block:{name}", region, tokens, len(content), note=note, text=content
        )
        priority = int(raw.get("priority") or 0)
        blocks.append(Block(index, name, position, depth, role, priority, report))
    return blocks



def _manager_blocks(inputs: PromptInputs) -> list[dict[str, Any]]:
    """The prompt manager's enabled blocks that float (main and post-history are slots)."""
    return [{"name": block["name"], "content": block["content"], "position": block["place"],
             "role": block["role"], "depth": block["depth"], "priority": MANAGER_PRIORITY}
            for block in inputs.prompt_blocks
            if block.get("enabled") and block.get("place") not in ("main", "post_history")]


def _head_insert(sections: list[SectionReport], report: SectionReport,
                 order: list[str]) -> list[SectionReport]:
    """`sections` with `report` at its place in the template's head order."""
    rank = {name: index for index, name in enumerate(order)}
    mine = rank.get(report.name, len(order))
    at = next((i for i, r in enumerate(sections)
               if r.region != "head" or rank.get(r.name, -1) > mine), len(sections))
    return [*sections[:at], report, *sections[at:]]


def examples_place(
    sections: list[SectionReport],
    plan: PromptPlan,
    templates: TemplateSet,
    variables: dict[str, Any],
    budget: int | None,
    room: int,
    fits: Callable[[list[SectionReport]], bool],
    warnings: list[dict[str, Any]],
) -> list[SectionReport]:
    """Example dialogues, in order, while the prompt stays under its limit (and the section
    under its own budget, if one is set): they go before any message of the conversation.
    Blocks are chosen on the section's own tokens against `room` (the prompt's limit less
    its size without examples), so a 100 KB description is not counted once per block; the
    whole prompt is then counted once (`fits`) and the last block dropped if it still ran over."""
    blocks = variables["examples"]
    if "examples" not in plan.head or not blocks:
        return sections

    def placed(kept: list[str]) -> list[SectionReport]:
        text = section_text("examples", templates, {**variables, "examples": kept}, warnings)
        report = section_report("examples", "head", text, cut=len(kept) < len(blocks),
                         omitted=len(blocks) - len(kept),
                         note=f"mes_example: {len(kept)} of {len(blocks)} blocks kept")
        return _head_insert(sections, report, plan.head)

    def fit(kept: list[str]) -> bool:
        text = section_text("examples", templates, {**variables, "examples": kept}, warnings)
        tokens = count_tokens(text)
        return (budget is None or tokens <= budget) and tokens + SECTION_JOIN_TOKENS <= room

    kept = examples_keep(blocks, fit)
    while kept and not fits(placed(kept)):
        kept.pop()
    return placed(kept) if kept else sections
