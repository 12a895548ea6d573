"""The group part of issue 32's side-by-side run (bench/st_side_by_side.py): three of its cards
in one group chat, in SillyTavern (a group made over its REST API, opened from the character list
and played from the input box, activation "list order", so every member answers each message in
the order listed) and in PersonaLab (an instance with the same members, `reply_order`
"everyone": each member once, in list order), the same persona and messages.

Compared per reply as the single cards are (lore and card markers, their roles and places,
SillyTavern's utility lines, the example turns with their `Name: ` prefixes), plus what only a
group has: which member each request asks for (the group nudge), each member's greeting, and
the history's roles and `Name: ` prefixes.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from request_compare import compare, lore_markers, message_text, short
from st_page import PERSONA_NAME, st_card_open, st_messages_send, st_page_ready

GROUP = ("amy", "brin", "cato")
GROUP_NAME = "Bench group"
GROUP_MESSAGES = ["Tell me about Eldoria, and have you seen a dragon?",
                  "How much for a lantern? Please check the price.",
                  "Where do we sleep tonight?"]
NUDGE = re.compile(r"\[Write the next reply only as ([^.\]]+)\.\]")
# The card fields in SillyTavern's wording: whose personality and scenario a request carries.
FIELDS = re.compile(r"\[[^\]\[]*'s personality: [^\]]*\]|\[Circumstances and context of the "
                    r"dialogue: [^\]]*\]")


def st_group_play(page: Any, cards: dict[str, dict], members: list[str], stub: Any,
                  opened: dict[str, str]) -> list[dict]:
    """Make the group of `members` (their cards opened first when the run has not: `opened`
    maps a card to its avatar), open it as a user does and send the messages."""
    for name in members:
        if name not in opened:
            opened[name] = st_card_open(page, cards[name])
    made = page.evaluate("""async ([name, avatars]) => {
        const ctx = SillyTavern.getContext();
        const answer = await fetch('/api/groups/create', {method: 'POST',
            headers: ctx.getRequestHeaders(),
            body: JSON.stringify({name, members: avatars, activation_strategy: 1,
                                  generation_mode: 0, chat_metadata: {}, fav: false,
                                  avatar_url: 'img/ai4.png'})});  // as its own form sends
        if (!answer.ok) throw new Error('group: ' + await answer.text());
        return await answer.json();
    }""", [GROUP_NAME, [opened[name] for name in members]])
    print(f"SillyTavern group: {made['id']} {made['members']}", file=sys.stderr)
    page.reload()
    st_page_ready(page)
    page.wait_for_function("(id) => SillyTavern.getContext().groups.some(g => g.id === id)",
                           arg=made["id"], timeout=120_000)
    # The group's entry in the character list (hidden while a character's card is shown):
    # its click handler opens the group, as a click in the list does.
    page.wait_for_selector(f".group_select[grid='{made['id']}']", state="attached",
                           timeout=60_000)
    page.evaluate("(id) => $(`.group_select[grid='${id}']`).first().trigger('click')",
                  made["id"])
    page.wait_for_function("([id, n]) => SillyTavern.getContext().groupId === id"
                           " && SillyTavern.getContext().chat.filter(m => !m.is_system)"
                           ".length >= n", arg=[made["id"], len(members)], timeout=60_000)
    return st_messages_send(page, GROUP_MESSAGES, stub, replies=len(members))


def pl_group_play(call: Any, character_ids: dict[str, str], persona_id: Any,
                  members: list[str]) -> int:
    """The same group over PersonaLab's REST API; how many requests it made."""
    instance = call("post", "/api/v1/instances", {
        "character_ids": [character_ids[name] for name in members], "reply_order": "everyone",
        "persona_id": persona_id})
    instance_id = instance.get("id") or instance.get("instance_id")
    for text in GROUP_MESSAGES:
        call("post", "/api/v1/chat", {"instance_id": instance_id, "query": text})
    return len(GROUP_MESSAGES) * len(members)


def asked_for(body: dict) -> str:
    """The member a group request asks to reply (its group nudge)."""
    found = NUDGE.findall("\n".join(message_text(m) for m in body.get("messages") or []))
    return found[-1] if found else "?"


def history_of(body: dict) -> list[tuple[str, str]]:
    """The conversation as sent: (role, text) of each player / character message."""
    return [(m.get("role", "?"), " ".join(message_text(m).split()))
            for m in body.get("messages") or [] if m.get("role") in ("user", "assistant")]


def fields_of(body: dict) -> list[str]:
    return FIELDS.findall("\n".join(message_text(m) for m in body.get("messages") or []))


def greetings_of(body: dict, greetings: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Each member's greeting: the role and the start of the message that holds it."""
    found = {}
    for name, greeting in greetings.items():
        for role, text in history_of(body):
            if greeting in text:
                found[name] = (role, text[:len(text) - len(greeting)] + "…")
                break
    return found


def group_compare(st: list[dict], pl: list[dict], cards: dict[str, dict],
                  members: list[str]) -> list[str]:
    """compare() of the single cards over the group's replies, and the group's own checks."""
    lore = set().union(*(lore_markers(cards[name]) for name in members))
    lines = compare("group " + "+".join(members), st, pl, lore)
    differences = int(lines.pop().split()[0])
    # Each greeting with its macros as that member's ({{char}} per member).
    greetings = {cards[n]["data"]["name"]: cards[n]["data"]["first_mes"].replace(
        "{{char}}", cards[n]["data"]["name"]).replace("{{user}}", PERSONA_NAME)
        for n in members}
    for reply, (a, b) in enumerate(zip(st, pl), start=1):
        notes = []
        if asked_for(a) != asked_for(b):
            notes.append(f"asked for: SillyTavern {asked_for(a)}, PersonaLab {asked_for(b)}")
        if fields_of(a) != fields_of(b):
            notes.append(f"card fields: SillyTavern {fields_of(a)}, PersonaLab {fields_of(b)}")
        ga, gb = greetings_of(a, greetings), greetings_of(b, greetings)
        if ga != gb:
            notes.append(f"greetings: SillyTavern {ga}, PersonaLab {gb}")
        if history_of(a) != history_of(b):
            shown = [f"{r}:{short(t, 30)}" for r, t in history_of(a)[-3:]]
            ours = [f"{r}:{short(t, 30)}" for r, t in history_of(b)[-3:]]
            notes.append(f"history: SillyTavern …{shown}, PersonaLab …{ours}")
        for note in notes:
            lines.append(f"   DIFF reply {reply} ({asked_for(a)}) {note}")
        differences += len(notes)
    lines.append(f"   {differences} difference(s)")
    return lines
