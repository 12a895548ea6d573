"""The name a question is addressed to ("Bram, remind me — what did I say my job was?",
"…, Bram?", "Sora你还记得…"): it says who should answer, not what to recall. Left in, it was
searched (every line that says "Bram") and taken for whose lines are wanted (the speaker
preference gave Bram's lines +0.3), while the player asks about the player's own line.
Framework-free and pure; a name inside the question ("What did Bram say about the boat?")
stays.
"""

from __future__ import annotations

import re

# What follows a name said to someone: a comma, colon, dash or "!", or in Chinese 你 / 您
# ("Sora你还记得…"), with or without a space before.
_AFTER_LEADING = (",", "，", ":", "：", "!", "！", "—", "–", "-", "、", "你", "您")
_BEFORE_TRAILING = (",", "，")
_TRAILING_END = "?？!！.。 \t\n"
# A greeting or a word of calling before the name ("Hey Bram, …", "Ok Sora: …") is at most
# one short word; anything longer is the question itself.
_LEADING_WORD = re.compile(r"[A-Za-z]{1,6}[ \t]+")
NAME_PARTS = re.compile(r"[^\W\d_]{2,}")
# A question is said to a few names at once ("Bram and Sora, …"); a longer run is left as said.
# Each name of the run is looked for among all the speakers', and an imported chat may keep
# 10,000 names: a 20,000-character question chaining them took a second of CPU per turn.
RUN_MAX = 8


def addressed_strip(text: str, speakers: set[str]) -> str:
    """`text` without the speakers' names it is addressed to, at its start (one or more, "Bram
    and Sora, …") or at its end ("…, Bram?"). A speaker is named by the whole name or any part
    of it ("Bram" for "Bram Stoker"); `text` itself when nothing else would be left."""
    names = _names(speakers)
    if not names:
        return text
    stripped = _trailing_strip(_leading_strip(text, names), names)
    return stripped if stripped.strip(_TRAILING_END + ",，:：—–-、") else text


def _names(speakers: set[str]) -> list[str]:
    """Every speaker's name and its parts, longest first, lower-cased."""
    names = {name.strip().lower() for name in speakers if name.strip()}
    names |= {part.lower() for name in speakers for part in NAME_PARTS.findall(name)}
    return sorted(names, key=len, reverse=True)


def _name_at(lowered: str, start: int, names: list[str]) -> str | None:
    """The name that `lowered` holds at `start` as a whole word, or None."""
    for name in names:
        end = start + len(name)
        if lowered.startswith(name, start) and not (end < len(lowered) and name[-1:].isalpha()
                                                   and lowered[end].isascii()
                                                   and lowered[end].isalnum()):
            return name
    return None


def _leading_strip(text: str, names: list[str]) -> str:
    start = len(text) - len(text.lstrip())
    word = _LEADING_WORD.match(text, start)
    for begin in (start, word.end() if word else None):
        if begin is None:
            continue
        end = _names_run_end(text, begin, names)
        if end is not None:
            return text[end:].lstrip(" \t,，:：!！—–-、")
    return text


def _names_run_end(text: str, start: int, names: list[str]) -> int | None:
    """Where a run of names at `start` ("Bram", "Bram and Sora", "Bram、Sora") ends, when a
    mark of address follows it; else None."""
    lowered = text.lower()
    position = start
    for _ in range(min(len(names) + 1, RUN_MAX)):
        name = _name_at(lowered, position, names)
        if name is None:
            return None
        position += len(name)
        rest = lowered[position:].lstrip(" \t")
        if rest.startswith(("and ", "& ", "和", "、")):
            joiner = 4 if rest.startswith("and ") else 2 if rest.startswith("& ") else 1
            position = len(lowered) - len(rest) + joiner
            position += len(lowered[position:]) - len(lowered[position:].lstrip(" \t"))
            continue
        if rest.startswith(_AFTER_LEADING):
            # 你 / 您 stay: they are part of what is asked ("你还记得…").
            return len(lowered) - len(rest)
        return None
    return None


def _trailing_strip(text: str, names: list[str]) -> str:
    body = text.rstrip(_TRAILING_END)
    lowered = body.lower()
    for name in names:
        if not lowered.endswith(name):
            continue
        before = body[: len(body) - len(name)].rstrip(" \t")
        if before.endswith(_BEFORE_TRAILING):
            return before[:-1].rstrip() + text[len(body):]
    return text
