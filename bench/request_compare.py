"""The requests two apps sent to the model for the same turns, compared (bench/st_side_by_side.py,
st_side_group.py): where each lore and card marker (`[ELDORIA]`) landed, in which role and how far
from the end; how often SillyTavern's utility lines were sent; the example turns; and the order of
the lore both placed alike."""

from __future__ import annotations

import re

MARKER = re.compile(r"\[[A-Z][A-Z0-9-]+\]")


def short(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


# "In the system prompt before the conversation" (how many messages it spans varies): before
# the character's description, or after it.
HEAD_BEFORE, HEAD = 1000, 999


def placements(body: dict) -> list[tuple[str, int, str]]:
    """(marker, message index from the end, role) for each lore/card marker in a request; markers
    in the system messages before the conversation count as one place (HEAD), as SillyTavern
    sends each section as its own system message where PersonaLab joins them."""
    messages = body.get("messages") or []
    start = next((i for i, m in enumerate(messages) if m.get("role") != "system"), len(messages))
    texts = [message_text(m) for m in messages]
    head = "\n".join(texts[:start])
    description = next((m.start() for m in MARKER.finditer(head)
                        if m.group().endswith("-DESC]")), None)
    found = []
    for index, content in enumerate(texts):
        if index < start:
            continue
        for marker in MARKER.findall(content):
            found.append((marker, len(messages) - index, messages[index].get("role", "?")))
    # Before the conversation: before or after the character's description.
    for match in MARKER.finditer(head):
        before = description is not None and match.start() < description
        found.append((match.group(), HEAD_BEFORE if before else HEAD, "system"))
    return sorted(found, key=lambda item: -item[1])


def message_text(message: dict) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        content = " ".join(part.get("text", "") for part in content)
    return str(content)


def placement_of(body: dict) -> dict[str, tuple[int, str]]:
    return {marker: (back, role) for marker, back, role in placements(body)}


def place_said(place: tuple[int, str]) -> str:
    back, role = place
    if back == HEAD_BEFORE:
        return f"{role} before the character"
    return f"{role} before the conversation" if back == HEAD else f"{role} {back} from the end"


def lore_markers(card: dict) -> set[str]:
    entries = (card["data"].get("character_book") or {}).get("entries") or []
    return {m for entry in entries for m in MARKER.findall(entry.get("content", ""))}


# SillyTavern's utility lines and wordings (chat completion), counted in each request: the
# new chat and example chat lines, the personality / scenario wording, the group nudge and its
# default main prompt.
UTILITY_LINES = ("[Start a new Chat]", "[Example Chat]", "'s personality: ",
                 "[Circumstances and context of the dialogue: ", "[Write the next reply only as",
                 "next reply in a fictional chat between")
EXAMPLE_NAMES = ("example_user", "example_assistant")


def example_turns(body: dict) -> list[tuple[str, str, str]]:
    """The example dialogue turns sent as messages of their own: (role, name, short text)."""
    return [(m.get("role", "?"), m["name"], short(message_text(m), 40))
            for m in body.get("messages") or [] if m.get("name") in EXAMPLE_NAMES]


def compare(name: str, st: list[dict], pl: list[dict], lore: set[str] = frozenset()) -> list[str]:
    lines = [f"== {name}"]
    differences = 0
    for turn, (a, b) in enumerate(zip(st, pl), start=1):
        lines.append(f"-- turn {turn}")
        for label, body in (("SillyTavern", a), ("PersonaLab", b)):
            lines.append(f"   {label}:")
            for message in body.get("messages") or []:
                content = message.get("content") or ""
                lines.append(f"     {message.get('role', '?'):9} {short(str(content))}")
        sa, sb = placement_of(a), placement_of(b)
        for marker in sorted(set(sa) | set(sb)):
            if marker not in sb:
                lines.append(f"   DIFF {marker}: only in SillyTavern ({place_said(sa[marker])})")
            elif marker not in sa:
                lines.append(f"   DIFF {marker}: only in PersonaLab ({place_said(sb[marker])})")
            elif sa[marker] != sb[marker]:
                lines.append(f"   DIFF {marker}: SillyTavern {place_said(sa[marker])}, "
                             f"PersonaLab {place_said(sb[marker])}")
            else:
                continue
            differences += 1
        # SillyTavern's utility lines (chat completion): how often each is sent.
        for line in UTILITY_LINES:
            ca, cb = (sum(message_text(m).count(line) for m in body.get("messages") or [])
                      for body in (a, b))
            if ca != cb:
                lines.append(f"   DIFF {line!r}: SillyTavern {ca}x, PersonaLab {cb}x")
                differences += 1
        # Example dialogues: each turn a named system message in SillyTavern.
        if example_turns(a) != example_turns(b):
            lines.append(f"   DIFF example turns: SillyTavern {example_turns(a)}, "
                         f"PersonaLab {example_turns(b)}")
            differences += 1
        # Lore that both apps placed alike should also read in the same order.
        same = [m for m in sa if m in lore and sa[m] == sb.get(m)]
        order_a = [m for m, _, _ in placements(a) if m in same]
        order_b = [m for m, _, _ in placements(b) if m in same]
        if order_a != order_b:
            lines.append(f"   DIFF order: SillyTavern {' '.join(order_a)}, "
                         f"PersonaLab {' '.join(order_b)}")
            differences += 1
    lines.append(f"   {differences} difference(s)")
    return lines
