"""Stage 6 of the prompt: the refusal over max_total_tokens and the warnings near it (middle
section, conversation, dropped blocks), one warning per category."""

from __future__ import annotations

from typing import Any

from chat.prompt.conversation import Conversation
from chat.prompt.inputs import PromptPlan
from chat.prompt.templates import TemplateSet, warning_make

NEAR_LIMIT_RATIO = 0.9


def refusal_text(templates: TemplateSet, actual: int, limit: int) -> str:
    words = (
        templates.text("refused")
        or "Prompt总长度超过限制（{actual} > {limit}），请执行汇总或调整配置"
    )
    return words.replace("{actual}", str(actual)).replace("{limit}", str(limit))


def limits_check(
    plan: PromptPlan,
    templates: TemplateSet,
    total: int,
    middle: int,
    conversation: Conversation,
    dropped: list[dict[str, Any]],
) -> tuple[str | None, list[dict[str, Any]]]:
    refused = (
        refusal_text(templates, total, plan.max_total_tokens)
        if total > plan.max_total_tokens
        else None
    )
    warnings = []
    if middle > plan.middle_warning_tokens:
        warnings.append(
            warning_make(templates, "middle_section_overflow", middle, plan.middle_warning_tokens)
        )
    # Older messages left out by the window is the window doing its job (as in SillyTavern),
    # not a limit coming near: a long chat would warn on every turn.
    if (refused is None and total > NEAR_LIMIT_RATIO * plan.max_total_tokens
            and not conversation.report.omitted):
        warnings.append(warning_make(templates, "total_near_limit", total, plan.max_total_tokens))
    if conversation.session_tokens > plan.conversation_max_tokens:
        warnings.append(
            warning_make(
                templates,
                "conversation_overflow",
                conversation.session_tokens,
                plan.conversation_max_tokens,
            )
        )
    if dropped:
        names = ", ".join(d["name"] for d in dropped)
        warnings.append(
            warning_make(templates, "prompt_blocks_dropped", len(dropped), None, detail=names)
        )
    return refused, warnings


def warnings_merge(warnings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One warning per category (the UI shows one per kind); details are joined."""
    merged: dict[str, dict[str, Any]] = {}
    for warning in warnings:
        seen = merged.get(warning["category"])
        if seen is None:
            merged[warning["category"]] = dict(warning)
        elif warning.get("detail") and warning["detail"] not in (seen.get("detail") or ""):
            seen["detail"] = "; ".join(filter(None, [seen.get("detail"), warning["detail"]]))
    return list(merged.values())
