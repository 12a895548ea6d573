"""The memory sections that grow with a chat give way to the recent conversation in a full
window: the director's reminder (its events), the rolling recaps and the biography. Held to
their share of the window, together they still took up to 2,500 tokens of an 8,192-token window
while the conversation was cut to its newest two messages, and in a 4,096-token window with a
long card they refused every turn though a prompt without them fitted.

With what recall brought for this turn, they never take more than the recent conversation while
older messages wait for room, and never refuse a turn: the reminder's events leave first
(reference events, then this story's from the last), then the oldest recap or biography
paragraph, of whichever section is larger. Recall (`recall_shrunk`) and these sections share
that room, up to half each (`memory_part`): giving way each on its own, the recaps grew back
each time recall shrank and took its passages; counting all of recall, the recaps and the
biography left the prompt whenever a plain turn recalled a few lines. Framework-free."""

from __future__ import annotations

import dataclasses
from typing import Any

from chat.prompt.inputs import PromptInputs, PromptResult
from chat.prompt.window import JOIN_SLACK_TOKENS
from personalab.lib.tokens import count_tokens

GIVING_WAY = ("director_reminder", "recaps", "biography")
ITEM_OVERHEAD_TOKENS = 2  # the blank line or "- " an item adds in its section
RECAP_LEAST_TOKENS = 48  # a recap cut shorter than this says too little to keep


def memory_given_way(inputs: PromptInputs, prompt: PromptResult) -> PromptInputs | None:
    """`inputs` with fewer reminder events, recaps or biography paragraphs, when the prompt built
    from them is refused or they took more than the recent conversation while older messages
    wait for room (the two then share it). None when nothing is to give."""
    if inputs.window is None:
        return None
    taken = giving_way_tokens(prompt)
    if taken <= 0:
        return None
    if prompt.refused:
        over = prompt.total_tokens - prompt.window["prompt_limit"]
    elif prompt.window.get("full"):
        over = taken - memory_part(prompt, mine=taken, other=_tokens(prompt, "recalled"))
    else:
        return None
    if over <= 0:
        return None
    return _items_dropped(_shown_only(inputs, prompt), max(over, 1),
                          recaps_tokens=_tokens(prompt, "recaps"))


def memory_part(prompt: PromptResult, *, mine: int, other: int) -> int:
    """The most one side of the memory (recall, or these sections) may take of a full window
    when the other takes `other`: with the conversation, they share the room the rest of the
    prompt leaves, the conversation at least as much as the two together, and neither side more
    than half of that unless the other needs less. Computed at once: giving way step by step
    from a prompt whose conversation was one message dropped every recap before the
    conversation had grown into the room they left."""
    rest = prompt.total_tokens - mine - other - _tokens(prompt, "conversation")
    # Lore left out for want of room comes back first once there is room (as SillyTavern, world
    # info has its own budget before the history): it is not room the memory can count on.
    lore_waiting = sum(block.get("tokens", 0) for block in prompt.dropped_blocks)
    free = prompt.window["prompt_limit"] - JOIN_SLACK_TOKENS - rest - lore_waiting
    return max((free - other) // 3, (free - 2 * other) // 2, 0)


def giving_way_tokens(prompt: PromptResult) -> int:
    return sum(_tokens(prompt, name) for name in GIVING_WAY)


def _shown_only(inputs: PromptInputs, prompt: PromptResult) -> PromptInputs:
    """The recaps and paragraphs the sections show (the newest; their budgets left the rest
    out), so that dropping the oldest one frees room."""
    kept = {}
    for name in ("recaps", "biography"):
        report = next((r for r in prompt.sections if r.name == name), None)
        items = getattr(inputs, name)
        if report is not None and report.omitted:
            kept[name] = items[report.omitted:]
            if name == "recaps":
                kept["recap_spans"] = inputs.recap_spans[report.omitted:]
    return dataclasses.replace(inputs, **kept) if kept else inputs


def _items_dropped(inputs: PromptInputs, over: int, *,
                   recaps_tokens: int = 0) -> PromptInputs | None:
    director = dict(inputs.director or {})
    reminder = dict(director.get("reminder") or {})
    recaps, biography = list(inputs.recaps), list(inputs.biography)
    events = {name: list(reminder.get(name) or []) for name in ("reference_events",
                                                                  "current_events")}
    freed = 0
    while freed < over:
        dropped = _next_dropped(events, recaps, biography)
        if dropped is None:
            break
        freed += count_tokens(str(dropped)) + ITEM_OVERHEAD_TOKENS
    budgets = dict(inputs.section_budgets or {})
    if freed < over and len(recaps) == 1 and len(inputs.recaps) == 1:
        # The newest recap alone, larger than its part (a Chinese recap of a 2,048-token
        # window's): cut to what is left rather than dropped, so a recap still reaches the
        # model. Its budget shrinks at each step, so giving way ends.
        room = recaps_tokens - (over - freed)
        if room >= RECAP_LEAST_TOKENS:
            budgets["recaps"] = min(budgets.get("recaps", room), room)
            freed = over
        else:
            recaps.pop()
            freed += recaps_tokens
    if not freed:
        return None
    if reminder:
        director["reminder"] = {**reminder, **events}
    return dataclasses.replace(inputs, director=director or inputs.director, recaps=recaps,
                               recap_spans=inputs.recap_spans[len(inputs.recaps) - len(recaps):],
                               biography=biography, section_budgets=budgets)


def _next_dropped(events: dict[str, list[Any]], recaps: list[str],
                  biography: list[str]) -> Any:
    """The next item to leave (taken out of its list): a reminder event, the last first; then
    the oldest of the recaps or the biography, whichever holds more."""
    for name in ("reference_events", "current_events"):
        if events[name]:
            return events[name].pop()
    # The newest recap is cut, not dropped, when it is all that is left (_items_dropped).
    droppable = [items for items, least in ((recaps, 2), (biography, 1)) if len(items) >= least]
    if not droppable:
        return None
    longer = max(droppable, key=lambda items: sum(count_tokens(str(i)) for i in items))
    return longer.pop(0)


def _tokens(prompt: PromptResult, name: str) -> int:
    return next((report.tokens for report in prompt.sections if report.name == name), 0)
