"""The context window of a turn: how many tokens the model is given (prompt and reply), what
share the reply and the recalled memory take, and the sentence that refuses a turn whose fixed
sections alone cannot fit. Framework-free.

As in SillyTavern, the prompt is filled from the newest message back until the window is full;
older messages leave the prompt (they stay in the session and in the memory index)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from personalab.lib.generation import PROMPT_FIELDS

CONTEXT_TOKENS_DEFAULT = 16_384
# The reply share when max_tokens is unset: SillyTavern's 300 cuts role-play replies short,
# a quarter of a small window starves the history; 1,024 holds a long reply and leaves a
# 16k window 15k for the prompt. Never more than a quarter of the window.
REPLY_TOKENS_DEFAULT = 1_024
TEMPERATURE_DEFAULT = 1.0  # sent when unset, as SillyTavern does
MEMORY_SHARE_DEFAULT = 0.25
# Counted alone, the sections and the messages come to a few tokens less than the joined
# prompt (the blank lines between them), and the note saying where the conversation starts is
# written once it is known: kept free so the window never refuses a turn for them.
JOIN_SLACK_TOKENS = 64


@dataclass(frozen=True)
class ContextWindow:
    tokens: int  # the whole window: prompt and reply
    reply: int  # max_tokens of the request
    source: str  # "setting", "model list", "default" or "server refusal"
    memory_share: float = MEMORY_SHARE_DEFAULT  # of the whole window, for recalled memory

    @property
    def memory_tokens(self) -> int:
        return memory_share_tokens(self.tokens, self.memory_share)

    @property
    def prompt_room(self) -> int:
        return max(self.tokens - self.reply, 0)


def memory_share_tokens(window: int, share: float = MEMORY_SHARE_DEFAULT) -> int:
    """The most tokens recalled memory may take of a `window`-token context."""
    return max(int(window * share), 0)


def window_for(generation: dict[str, Any], *, model_tokens: int | None,
               ceiling: int | None = None) -> ContextWindow:
    """The window a turn uses: the setting, else what the model server reports, else 16,384;
    never more than `ceiling`, what the server's refusal of a longer prompt taught."""
    if generation.get("context_tokens"):
        tokens, source = int(generation["context_tokens"]), "setting"
    elif model_tokens:
        tokens, source = int(model_tokens), "model list"
    else:
        tokens, source = CONTEXT_TOKENS_DEFAULT, "default"
    if ceiling and tokens > ceiling:
        tokens, source = int(ceiling), "server refusal"
    reply = generation.get("max_tokens") or min(REPLY_TOKENS_DEFAULT, tokens // 4)
    share = generation.get("memory_share")
    return ContextWindow(tokens=tokens, reply=min(int(reply), tokens // 2), source=source,
                         memory_share=MEMORY_SHARE_DEFAULT if share is None else float(share))


def generation_sent(generation: dict[str, Any], window: ContextWindow) -> dict[str, Any]:
    """The sampling settings a request carries: always max_tokens (the reply share) and a
    temperature; context_tokens and memory_share are ours, never sent."""
    sent = {name: value for name, value in generation.items() if name not in PROMPT_FIELDS}
    sent.setdefault("temperature", TEMPERATURE_DEFAULT)
    sent["max_tokens"] = window.reply
    return sent


def prompt_limit(max_total_tokens: int, window: ContextWindow | None) -> int:
    """The prompt's limit: the window less the reply, under the hard ceiling max_total_tokens."""
    return max_total_tokens if window is None else min(max_total_tokens, window.prompt_room)


# The sections that grow with a chat, each held to a part of the memory share of the window:
# recalled memory to all of it (best first: the section keeps its first passages), the rolling
# recaps and the biography to half (newest kept). Without these, a small window (Ollama's 4,096)
# refused every turn once a long chat's recaps alone outgrew it.
GROWING_SHARES = {"recalled": 1.0, "recaps": 0.5, "biography": 0.5}


def budgets_windowed(budgets: dict[str, int], window: ContextWindow | None) -> dict[str, int]:
    """Section budgets with the growing sections held to their share of the window."""
    if window is None:
        return budgets
    held = {}
    for name, part in GROWING_SHARES.items():
        share = int(window.memory_tokens * part)
        held[name] = min(budgets.get(name, share), share)
    return {**budgets, **held}


def conversation_room(budget: int | None, limit: int, fixed_tokens: int) -> int:
    """Tokens left for the conversation once the fixed sections are in."""
    room = max(limit - fixed_tokens - JOIN_SLACK_TOKENS, 0)
    return room if budget is None else min(budget, room)


REFUSAL_WORDS = {
    "en": {"newest": "the newest message",
           "window": "the {tokens}-token context window less {reply} for the reply",
           "cap": "the server's limit",
           "raise_window": "raise “Context size” in this chat's Generation settings",
           "raise_cap": "ask an administrator to raise limits.max_total_tokens",
           "text": ("The prompt needs {total} tokens, more than {where} ({limit}), even with "
                    "only the newest message: shorten what it always holds ({biggest} tokens) "
                    "or {action}."),
           "text_window": ("The prompt needs {total} tokens, more than {where} ({limit}), even "
                           "with only the newest message, so summarizing cannot help: {action}, "
                           "or shorten the card or whatever else it always holds ({biggest} "
                           "tokens).")},
    "zh": {"newest": "最新一条消息",
           "window": "上下文窗口 {tokens} 个 token 减去留给回复的 {reply} 个",
           "cap": "服务器的上限",
           "raise_window": "请在本聊天的“生成设置”中调大“上下文大小”",
           "raise_cap": "请管理员调大 limits.max_total_tokens",
           "text": ("即使只保留最新一条消息，Prompt 仍需 {total} 个 token，超过了{where}"
                    "（{limit}）：请缩短它始终包含的内容（{biggest} 个 token），或{action}。"),
           "text_window": ("即使只保留最新一条消息，Prompt 仍需 {total} 个 token，超过了{where}"
                           "（{limit}），汇总也无济于事：{action}，或缩短角色卡等它始终包含的"
                           "内容（{biggest} 个 token）。")},
}


def refusal_facts(sections: list[tuple[str, int]], *, total: int, limit: int,
                  window: ContextWindow | None) -> dict[str, Any]:
    """A refusal's numbers, in no language: the prompt's size and limit and, with a context
    window, what the prompt always holds (biggest first, at most five; "conversation" is the
    newest message) and whether the limit is the window's room or the server's cap."""
    facts: dict[str, Any] = {"total": total, "limit": limit, "window": None}
    if window is not None:
        held = sorted(((name, tokens) for name, tokens in sections if tokens > 0),
                      key=lambda item: -item[1])[:5]
        facts["window"] = {"tokens": window.tokens, "reply": window.reply,
                           "by_window": limit_is_window(window, limit),
                           "biggest": [list(item) for item in held]}
    return facts


def fixed_refusal(sections: list[tuple[str, int]], *, total: int, limit: int,
                  window: ContextWindow | None, locale: str = "en") -> str:
    """Why a turn cannot be sent: what the prompt always holds, biggest first (the history is
    down to its newest message already); in the prompt's language."""
    words = REFUSAL_WORDS["zh" if str(locale).lower().startswith("zh") else "en"]
    facts = refusal_facts(sections, total=total, limit=limit, window=window)["window"] or {
        "biggest": [], "by_window": False}
    biggest = ", ".join(f"{words['newest'] if name == 'conversation' else name} {tokens:,}"
                        for name, tokens in facts["biggest"])
    by_window = facts["by_window"]
    where = (words["window"].format(tokens=f"{window.tokens:,}", reply=f"{window.reply:,}")
             if by_window else words["cap"])
    return words["text_window" if by_window else "text"].format(
        total=f"{total:,}", where=where, limit=f"{limit:,}", biggest=biggest,
        action=words["raise_window" if by_window else "raise_cap"])


def limit_is_window(window: ContextWindow | None, limit: int) -> bool:
    """The prompt's limit is the context window's room (not the server's smaller cap)."""
    return window is not None and limit == window.prompt_room


def refusal_with_reason(refused: str, why: str, *, by_window: bool, locale: str) -> str:
    """Over the context window, `why` alone: the template's "summarize the session" cannot
    shrink a prompt already down to its newest message. Over the server's cap, the template's
    refusal (the seed's words) with `why` after it."""
    return why if by_window else sentences_joined(refused, why, locale)


def sentences_joined(first: str, second: str, locale: str) -> str:
    """`second` after `first`, `first` closed as a sentence is (the template's refusal has no
    full stop of its own); Chinese puts no space between sentences."""
    chinese = str(locale).lower().startswith("zh")
    first = first.rstrip()
    if first and first[-1] not in ".!?。！？":
        first += "。" if chinese else "."
    return first + ("" if chinese else " ") + second


def window_report(window: ContextWindow | None, *, limit: int, dropped: int,
                  first_kept_turn: Any, full: bool = False,
                  first_included: int | None = None) -> dict[str, Any]:
    """What the prompt inspector shows of the window; `first_included`: SillyTavern's message
    id of the oldest chat message sent, which the next turn's {{firstIncludedMessageId}} reads."""
    report: dict[str, Any] = {"prompt_limit": limit, "dropped_messages": dropped, "full": full,
                              "first_kept_turn": first_kept_turn,
                              **({"first_included_message": first_included}
                                 if first_included is not None else {})}
    if window is not None:
        report.update(context_tokens=window.tokens, reply_tokens=window.reply,
                      source=window.source, memory_tokens=window.memory_tokens)
    return report


RecapSpans = tuple[tuple[int, int] | None, ...]


def recap_spans(items: list[dict[str, Any]], session_id: str) -> RecapSpans:
    """The turns of this session each rolling recap covers (first, last), None for one of
    another session's or without turns."""
    return tuple((item["from_turn"], item["to_turn"])
                 if session_id in (item.get("session_id"), item.get("from_session_id"))
                 and isinstance(item.get("from_turn"), int)
                 and isinstance(item.get("to_turn"), int) else None for item in items)


def recap_span(spans: RecapSpans, shown: int) -> tuple[int, int] | None:
    """The turns the `shown` newest recaps cover (first, last), or None: a recap the budget or
    the window left out covers nothing the model reads."""
    covered = [span for span in spans[len(spans) - shown:] if span] if shown > 0 else []
    return (min(s[0] for s in covered), max(s[1] for s in covered)) if covered else None


COVERAGE_WORDS = {
    "en": {"starts": "(The conversation below starts at turn {first}; earlier turns are not "
                     "shown.)",
           "covered": "(Turns {start}–{end} are summarized above; the conversation below starts "
                      "at turn {first}.",
           "gap": " Turns {start}–{end} are not shown.", "close": ")"},
    "zh": {"starts": "（下面的对话从第 {first} 轮开始，更早的轮次未列出。）",
           "covered": "（第 {start}–{end} 轮已在上文概括，下面的对话从第 {first} 轮开始。",
           "gap": "第 {start}–{end} 轮未列出。", "close": "）"},
}


def coverage_note(span: tuple[int, int] | None, *, first_kept_turn: Any, dropped: int,
                  locale: str = "en") -> str:
    """A sentence before the conversation saying where it starts and what the recaps cover,
    so the model is not surprised by a gap in the story; in the prompt's language."""
    if not dropped or not isinstance(first_kept_turn, int):
        return ""
    words = COVERAGE_WORDS["zh" if str(locale).lower().startswith("zh") else "en"]
    if span is None:
        return words["starts"].format(first=first_kept_turn)
    note = words["covered"].format(start=span[0], end=span[1], first=first_kept_turn)
    if span[1] + 1 < first_kept_turn:
        note += words["gap"].format(start=span[1] + 1, end=first_kept_turn - 1)
    return note + words["close"]
