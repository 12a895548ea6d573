"""A context template's reply post-processing (SillyTavern's `trim_sentences` and `single_line`),
done where SillyTavern does it: on the finished reply, after the regex scripts. Framework-free;
the reply is data: walked once, no regex over it."""

from __future__ import annotations

import unicodedata
from typing import Any

# SillyTavern's trimToEndSentence: a reply ends after the last of these (or an emoji).
_ENDS = frozenset('.!?*")}`]$。！？”）】’」_')


def _is_emoji(char: str) -> bool:
    return unicodedata.category(char) == "So" and ord(char) >= 0x2190


def reply_sentence_trimmed(text: str) -> str:
    """`text` cut after its last full sentence (a closing mark or emoji), as SillyTavern's
    `trim_sentences`: a mark right after a space is dropped with it; none: trailing spaces off."""
    for index in range(len(text) - 1, -1, -1):
        char = text[index]
        if char in _ENDS or _is_emoji(char):
            last = index - 1 if index > 0 and text[index - 1].isspace() else index
            return text[:last + 1].rstrip()
    return text.rstrip()


def reply_single_line(text: str) -> str:
    """`text` up to its first newline (SillyTavern's `single_line` sends "\\n" as a stop
    string; a server that ignores stop strings gets its reply cut here)."""
    text = text.lstrip("\r\n")
    return text.split("\n", 1)[0].rstrip("\r")


def reply_lines_trimmed(text: str) -> str:
    """`text` without the spaces and tabs that end its lines (SillyTavern's cleanUpMessage
    does it to every reply, before the names); "\r" ends a line there too, and stays."""
    return "\n".join("\r".join(part.rstrip() for part in line.split("\r"))
                     for line in text.split("\n"))


def reply_trimmed(text: str, *, kept: int = 0) -> str:
    """`text` without the whitespace at its ends, as SillyTavern's "Trim spaces" (on by
    default) leaves every reply; a continued reply (its first `kept` characters said before)
    keeps its start as it was."""
    return text.rstrip() if kept else text.strip()


def reply_shaped(text: str, shape: dict[str, Any] | None, *, kept: int = 0) -> str:
    """The reply as the context template wants it (`shape`: llm_context's `reply_shape`);
    the first `kept` characters (the reply being continued) are left as they were."""
    if not shape:
        return text
    head, tail = text[:kept], text[kept:]
    if shape.get("single_line"):
        tail = reply_single_line(tail)
    if shape.get("trim_sentences"):
        tail = reply_sentence_trimmed(tail)
    return head + tail
