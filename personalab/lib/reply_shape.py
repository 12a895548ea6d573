"""A context template's reply post-processing (SillyTavern's `trim_sentences` and `single_line`),
done where SillyTavern does it: on the finished reply, after the regex scripts. Framework-free;
the reply is data: walked once (a one-character class finds the next mark), no pattern of
the user's over it."""

from __future__ import annotations

import re
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


# fixMarkdown's spaces (no newline): tab, space, and the Unicode spaces its class names.
_SPACES = frozenset("\t \u00a0\u1680\u202f\u205f\u3000\ufeff"
                    + "".join(chr(code) for code in range(0x2000, 0x200B)))
_MARKS = "*_"
_MARK = re.compile(r"[*_]")


def _pair_spaces_removed(text: str) -> str:
    """SillyTavern's `/(\\*|_)(\\s+)|(\\s+)(\\*|_)/g` → "$1$4" inside one pair: the spaces right
    after a mark or right before one go, walked once."""
    out: list[str] = []
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        end = index + 1 if char in _MARKS else index
        while end < size and text[end] in _SPACES:
            end += 1
        if char in _MARKS:
            out.append(char)  # and the spaces after it, if any, go
        elif end > index and end < size and text[end] in _MARKS:
            out.append(text[end])  # the spaces before a mark go
            end += 1
        else:
            out.append(text[index:max(end, index + 1)])
            end = max(end, index + 1)
        index = end
    return "".join(out)


def reply_markdown_fixed(text: str) -> str:
    """`text` as SillyTavern's "Auto-fix Markdown" (on by default) stores a reply: in each pair
    of `*` / `_` (or `**`, `__`, the first closing one, as its lazy regex finds them) no space
    right inside a mark, so "* smiles *" is "*smiles*". Linear: a mark with no closing one
    after a place is not looked for again."""
    return _markdown_walk(text)[0]


def reply_markdown_open(text: str) -> bool:
    """Whether a mark of `text` found no closing one (more text may pair it, and change the
    spaces after it)."""
    return _markdown_walk(text)[1]


def _markdown_walk(text: str) -> tuple[str, bool]:
    unclosed = False
    out: list[str] = []
    absent: dict[str, int] = {}  # a mark not found from this place on
    index = start = 0
    size = len(text)
    while index < size:
        if text[index] not in _MARKS:
            at = _MARK.search(text, index)  # the next mark, found in C
            if at is None:
                break
            index = at.start()
        found = -1
        for mark in ((text[index:index + 2],) if text[index + 1:index + 2] and
                     text[index + 1] in _MARKS else ()) + (text[index],):
            after = index + len(mark)
            if absent.get(mark, size + 1) <= after:
                unclosed = True  # (a `**` found no closing one: more text may give it)
                continue
            found = text.find(mark, after)
            if found < 0:
                absent[mark] = after
                unclosed = True
                continue
            found += len(mark)
            break
        if found < 0:
            unclosed = True
            index += 1
            continue
        out.append(text[start:index])
        out.append(_pair_spaces_removed(text[index:found]))
        index = start = found
    out.append(text[start:])
    return "".join(out), unclosed


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
