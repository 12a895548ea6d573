"""Stage 4 of the prompt: the session as chat messages. The newest messages that fit the
trimming and the conversation's token budget are kept; the lines before them are tallied, not
walked, so a turn does not cost more as the part left out grows."""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from chat.prompt.inputs import (
    DEFAULT_TRIMMING,
    PromptInputs,
    PromptPlan,
    SectionReport,
    config_value,
)
from chat.prompt.message_cut import MESSAGE_CUT_LEAST_TOKENS, text_middle_cut
from chat.prompt.tally import (
    MESSAGE_OVERHEAD_TOKENS,
    _line_usable,
    _message_cost,
    _Tally,
    older_lines_tally,
)
from chat.prompt.templates import TemplateSet
from chat.prompt.window import ContextWindow, prompt_limit
from library.find_replace.scripts import AI_OUTPUT, USER_INPUT, RegexRun
from personalab.lib.filestore.session_read import LinesBefore
from personalab.lib.line_macros import chat_lines_in
from personalab.lib.macros import message_macros_replace
from personalab.lib.template_sandbox import TemplateError, render_template, template_reads_only
from personalab.lib.tokens import count_tokens


@dataclass
class Conversation:
    messages: list[dict[str, str]]
    costs: list[int]
    report: SectionReport
    session_tokens: int
    # What the lines left unread would add to the prompt: the window reached the oldest line
    # read without closing (a whole-session prompt over its limit, or too few lines read).
    unread_tokens: int = 0
    unread: bool = False
    # The window had a token room: the lines left unread would have closed it (a read cut
    # short by a message cut to fit), so a prompt over its limit with their tally is no refusal.
    bounded: bool = False
    first_kept_turn: Any = None
    # SillyTavern's message id of the oldest chat message kept ({{firstIncludedMessageId}}).
    first_included: int = 0
    full: bool = False  # older messages left out for want of room, not by the trimming settings


# Summary lines remembered as rendered, by their template and text: every line is rendered each
# turn (the tokens the session holds include them all), and a long chat holds thousands. Only
# texts of an event's size are kept: a line a player edited to a page's length is rendered each
# time, so what one account writes cannot fill the server's memory through this cache (at most
# about 4,096 x 2,000 characters, key and rendering).
SUMMARY_RENDERS_KEPT = 4_096
SUMMARY_RENDER_KEPT_CHARS = 2_000
_CONTENT_ONLY = frozenset({"content"})


def _summary_render(summary_source: str, variables: dict[str, Any]) -> str:
    try:
        return render_template(summary_source, variables).strip()
    except TemplateError:
        return variables["content"]


@lru_cache(maxsize=SUMMARY_RENDERS_KEPT)
def _summary_render_of_content(summary_source: str, content: str) -> str:
    """What a template that reads only `content` renders: the same text every turn."""
    return _summary_render(summary_source, {"content": content})


def _line_message(
    line: dict[str, Any], summary_source: str, variables: dict[str, Any]
) -> dict[str, str]:
    if line.get("type") == "summary":
        if (len(line["content"]) <= SUMMARY_RENDER_KEPT_CHARS
                and template_reads_only(summary_source, _CONTENT_ONLY)):
            content = _summary_render_of_content(summary_source, line["content"])
        else:
            content = _summary_render(summary_source, {**variables, "content": line["content"]})
        return {"role": "system", "content": content}
    seed = f"{line.get('turn')}:{line.get('timestamp')}"
    content = (line["content"] if line.get("macros_filled")
               else message_macros_replace(line["content"], variables["macros"], seed=seed))
    # A sendable narrator note goes as SillyTavern sends it: a system message, no name.
    return {"role": line.get("role") or "system", "content": content}


def line_placement(line: dict[str, Any]) -> int:
    """Where SillyTavern's scripts see a message: the player's input or the AI's output (in a
    group another member's reply is still an output, though the speaker reads it as a user
    turn)."""
    return USER_INPUT if (line.get("said_role") or line.get("role")) == "user" else AI_OUTPUT


def line_scripted(regex: RegexRun, content: str, line: dict[str, Any], *, depth: int) -> str:
    """A message after the prompt's scripts, run on the text as said: a group's "Name: " in
    front of it is left out of what they see, as SillyTavern puts the name on after them."""
    prefix = str(line.get("shown_prefix") or "")
    if not (prefix and content.startswith(prefix)):
        return regex.text(content, line_placement(line), prompt=True, depth=depth)
    return prefix + regex.text(content[len(prefix):], line_placement(line), prompt=True,
                               depth=depth)


# Older messages each larger than the conversation's whole room, passed over before the window
# closes: a pasted text or two is passed over, a room smaller than the chat's messages closes it.
PASSED_OVER_IN_A_ROW = 3


@dataclass
class _Window:
    """The newest messages the prompt keeps, gathered newest first. It closes at the first
    message that would break a limit: the trimming (conversation_load_all off) or the token
    budget of the conversation section. The newest message is always kept. A character's reply
    right before it that does not fit what is left is cut in the middle to half of that
    (`cut`): dropped, the model read the player answering a reply it never saw.
    An older message larger than the whole budget is passed over instead (`skipped`): it could
    never be sent, and closing there made every later turn forget everything said before it."""

    max_messages: int | None
    max_chars: int | None
    token_room: int | None
    messages: list[dict[str, str]] = field(default_factory=list)
    costs: list[int] = field(default_factory=list)
    chars: int = 0
    tokens: int = 0
    closed_by: str = ""
    skipped: int = 0
    skipped_in_a_row: int = 0
    cut: tuple[int, int] | None = None  # the message before the newest: its tokens, and kept

    def offer(self, message: dict[str, str], cost: int, *, cuttable: bool = True) -> bool:
        """Keep `message` if it fits; False once the window is closed. `cuttable`: a reply of
        a character, which may be cut to fit (a player's text the prompt refused is not)."""
        whole_cost = cost
        if (cuttable and len(self.messages) == 1 and self.token_room is not None
                and self.tokens + cost > self.token_room):
            message, cost = self._cut(message, cost)
        size = len(message["content"])
        if self.messages and self.token_room is not None and cost > self.token_room:
            if self.skipped_in_a_row >= PASSED_OVER_IN_A_ROW:
                # Not one pasted text but a room smaller than the chat's messages: passing
                # every one over read the whole session and counted it as sent (refused).
                self.closed_by = "budget"
                return False
            self.skipped += 1
            self.skipped_in_a_row += 1
            return True
        self.skipped_in_a_row = 0
        if self.messages:
            if self.max_messages is not None and (
                len(self.messages) + 1 > self.max_messages or self.chars + size > self.max_chars
            ):
                self.closed_by = "trimming"
                return False
            if self.token_room is not None and self.tokens + cost > self.token_room:
                self.closed_by = "budget"
                return False
        self.messages.append(message)
        self.costs.append(cost)
        self.chars += size
        self.tokens += cost
        if cost != whole_cost:
            self.cut = (whole_cost, cost)
        return True

    def _cut(self, message: dict[str, str], cost: int) -> tuple[dict[str, str], int]:
        """`message` cut to half of the room left, the other half for the older messages; as
        it was when that is too little to say anything."""
        room = (self.token_room - self.tokens) // 2 - MESSAGE_OVERHEAD_TOKENS
        if room < MESSAGE_CUT_LEAST_TOKENS:
            return message, cost
        cut = {**message, "content": text_middle_cut(message["content"], room)}
        return cut, _message_cost(cut["content"])


def conversation_window(
    lines: list[dict[str, Any]], window: _Window, summary_source: str, variables: dict[str, Any],
    counted: dict[str, int] | None = None, regex: RegexRun | None = None,
) -> int:
    """Fill `window` from the newest line back; returns how many lines lie before it (the
    line that closed it included), which the prompt leaves out. `counted`: tokens of texts
    counted already; `regex`: the scripts run on each message as the prompt is built."""
    counted = counted or {}
    depth = 0  # SillyTavern's depth of a message: how many messages come after it
    for position in range(len(lines) - 1, -1, -1):
        line = lines[position]
        if not _line_usable(line):
            continue
        message = _line_message(line, summary_source, variables)
        if regex and line.get("type") != "summary":
            message["content"] = line_scripted(regex, message["content"], line, depth=depth)
            depth += 1
        tokens = counted.get(message["content"])
        cost = (MESSAGE_OVERHEAD_TOKENS + tokens if tokens is not None
                else _message_cost(message["content"]))
        if not window.offer(message, cost, cuttable=line.get("role") == "assistant"):
            return position + 1
    return 0


def conversation_build(
    inputs: PromptInputs,
    plan: PromptPlan,
    templates: TemplateSet,
    variables: dict[str, Any],
    budgets: dict[str, int],
) -> Conversation:
    """The session as chat messages. Only the messages the prompt keeps are walked (from the
    newest back); the lines before them are tallied once and the tally extended turn by turn,
    so a turn does not cost more as the part of the history left out grows."""
    summary_source = str(
        templates.data.get("conversation", {}).get("summary_note", "{{ content }}")
    )
    label = templates.label("conversation")
    label_tokens = count_tokens(label)
    trimming = {**DEFAULT_TRIMMING, **(inputs.trimming or {})}
    budget = budgets.get("conversation")
    window = _Window(
        max_messages=None if plan.load_all else int(trimming["max_messages"]),
        max_chars=None if plan.load_all else int(trimming["max_chars"]),
        token_room=None if budget is None else budget - label_tokens,
    )
    older = conversation_window(inputs.lines, window, summary_source, variables,
                                inputs.token_counts, inputs.regex)
    tally = older_lines_tally(inputs.lines[:older]) if older else _Tally([], "")
    before = inputs.lines_before or LinesBefore(0, 0, 0, [])
    summary_lines = len(before.summaries) + len(tally.summaries)
    left_out = _summaries_readable(before.summaries, tally.summaries, window, summary_source,
                                   variables)
    if left_out and window.closed_by == "budget" and window.token_room is not None:
        # The summary lines open the session a summarize started, so the window, filled from
        # the newest message back, left them all out first: they may take up to half its room.
        summaries_cost = sum(_message_cost(message["content"]) for message in left_out)
        window = dataclasses.replace(
            window, token_room=window.token_room - min(summaries_cost, window.token_room // 2),
            messages=[], costs=[], chars=0, tokens=0, closed_by="", skipped=0,
            skipped_in_a_row=0, cut=None)
        older = conversation_window(inputs.lines, window, summary_source, variables,
                                    inputs.token_counts, inputs.regex)
        tally = older_lines_tally(inputs.lines[:older]) if older else _Tally([], "")
        window.token_room = budget - label_tokens
        summary_lines = len(before.summaries) + len(tally.summaries)
        left_out = _summaries_readable(before.summaries, tally.summaries, window,
                                       summary_source, variables)
    summaries_kept = _summaries_kept(left_out, window) if window.closed_by else 0
    summary_tokens = sum(_message_cost(message["content"])
                         for message in left_out[:len(left_out) - summaries_kept])
    unread = bool(before.usable) and not window.closed_by
    message_tokens = (tally.message_tokens + before.message_tokens
                      + before.messages * MESSAGE_OVERHEAD_TOKENS
                      + (_macro_difference(before, summary_source, variables) if unread else 0))
    kept, costs = window.messages[::-1], window.costs[::-1]
    notes = _window_notes(window, plan, trimming, budget)
    if summaries_kept < summary_lines and window.closed_by:
        notes.append(f"{summaries_kept} of {summary_lines} summary lines kept (the newest)")
    if unread:
        notes.append(f"{before.usable} older lines not read: the prompt is over its limit")
    report = _conversation_report(kept, costs, tally.usable + before.usable + window.skipped
                                  - summaries_kept, label, label_tokens, notes)
    report.cut = report.cut or window.cut is not None
    if unread:
        report.tokens += message_tokens + summary_tokens
    session_tokens = window.tokens + message_tokens + summary_tokens + (
        window.cut[0] - window.cut[1] if window.cut else 0)
    return Conversation(kept, costs, report, session_tokens,
                        unread_tokens=message_tokens + summary_tokens if unread else 0,
                        unread=unread, bounded=window.token_room is not None,
                        full=window.closed_by == "budget" or window.skipped > 0
                        or window.cut is not None,
                        first_kept_turn=next((line.get("turn") for line in
                        inputs.lines[older:] if _line_usable(line)), None),
                        first_included=before.chat_messages + chat_lines_in(inputs.lines[:older]))


def _summaries_readable(older: list[dict[str, Any]], newer: list[dict[str, Any]],
                        window: _Window, summary_source: str,
                        variables: dict[str, Any]) -> list[dict[str, str]]:
    """The messages of the summary lines the window left out (`older`, then `newer`) that a
    prompt could keep: once it closed with a token room, the newest whose costs fill that room
    and one more (so the room reads as full); the older ones are counted, never rendered, nor
    gathered into one list. A session seeded before the summary bound
    (decisions/summary-seed.md) holds thousands, and every turn rendered and counted them all."""
    if not window.closed_by or window.token_room is None:
        return [_line_message(line, summary_source, variables)
                for line in itertools.chain(older, newer)]
    messages: list[dict[str, str]] = []
    used = 0
    for line in itertools.chain(reversed(newer), reversed(older)):
        if used > window.token_room:
            break
        message = _line_message(line, summary_source, variables)
        messages.append(message)
        used += _message_cost(message["content"])
    return messages[::-1]


def _summaries_kept(left_out: list[dict[str, str]], window: _Window) -> int:
    """Put the newest of the summary lines the window left out before its messages, as many as
    its room still holds (all of them under the trimming alone); returns how many."""
    kept = 0
    for message in reversed(left_out):
        cost = _message_cost(message["content"])
        if window.token_room is not None and window.tokens + cost > window.token_room:
            break
        window.messages.append(message)
        window.costs.append(cost)
        window.tokens += cost
        window.chars += len(message["content"])
        kept += 1
    return kept


def _macro_difference(before: LinesBefore, summary_source: str, variables: dict[str, Any]) -> int:
    """What the macros in the unread messages add to their tallied cost once filled in."""
    return sum(count_tokens(_line_message(line, summary_source, variables)["content"])
               - count_tokens(line["content"]) for line in before.macro_messages)


def conversation_lines_wanted(config: dict[str, Any], trimming: dict[str, Any]) -> int | None:
    """How many of the newest sendable lines the conversation can use (the one that closes the
    window included): None when the whole session may be sent."""
    if config_value(config, "preferences", "conversation_load_all"):
        return None
    return max(int({**DEFAULT_TRIMMING, **trimming}["max_messages"]), 1) + 1


def conversation_tokens_room(config: dict[str, Any], section_budgets: Any,
                             window: ContextWindow | None = None) -> int:
    """The most tokens the conversation of a prompt can hold: its section budget, and never more
    than the prompt's limit (`window` less the reply, under max_total_tokens: a prompt whose
    messages weigh more than that is refused)."""
    room = prompt_limit(int(config_value(config, "limits", "max_total_tokens")), window)
    budget = section_budgets.get("conversation") if isinstance(section_budgets, dict) else None
    if isinstance(budget, int) and not isinstance(budget, bool):
        room = min(room, budget)
    return max(room, 0)


def _window_notes(
    window: _Window, plan: PromptPlan, trimming: dict[str, int], budget: int | None
) -> list[str]:
    notes = []
    if window.messages and not plan.load_all:
        notes.append(
            f"conversation_load_all off: last {trimming['max_messages']} messages"
            f" within {trimming['max_chars']} characters"
        )
    if window.closed_by == "budget":
        notes.append(f"over its budget of {budget} tokens: oldest messages left out")
    if window.cut:
        notes.append(f"the message before the newest cut in the middle to {window.cut[1]} of "
                     f"its {window.cut[0]} tokens")
    if window.skipped:
        notes.append(f"{window.skipped} message(s) larger than the whole budget left out")
    return notes


def _conversation_report(
    kept: list[dict[str, str]],
    costs: list[int],
    omitted: int,
    label: str,
    label_tokens: int,
    notes: list[str],
) -> SectionReport:
    return SectionReport(
        "conversation",
        "middle",
        (label_tokens + sum(costs)) if kept else 0,
        sum(len(m["content"]) for m in kept),
        cut=omitted > 0,
        omitted=omitted,
        note="; ".join([f"{len(kept)} messages, {omitted} omitted", *notes]),
        text=label,
    )
