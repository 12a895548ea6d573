"""Speakers' names in a finished reply or impersonation, as SillyTavern 1.12.6's `cleanUpMessage`
(`public/script.js`) leaves them at its defaults (`allow_name1_display` and
`allow_name2_display` off, group trimming on): a reply stops where the model starts writing the
player's line (or, in a group, another member's), and the speaker's own `Name:` at a line's
start is taken off; an impersonation stops at the character's line and loses the player's own
`Name:`. In text completion the instruct template's markers go too: the text stops at its stop
sequence or the player's turn marker, and the lines of the other turn markers are removed.
Framework-free; names are matched as literal text (escaped), linear in the reply."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

ENDOFTEXT = "<|endoftext|>"


class Markers(Protocol):
    """The instruct template's sequences the clean-up reads (personalab.lib.instruct)."""

    stop_sequence: str
    input_sequence: str
    output_sequence: str
    last_output_sequence: str


def _cut_at(text: str, marker: str) -> str:
    return text[:text.index(marker)] if marker and marker in text else text


def _lines_removed(text: str, sequence: str) -> str:
    for line in sequence.split("\n"):
        if line.strip():
            text = text.replace(line, "")
    return text


def _markers_cleaned(text: str, markers: Markers, *, impersonate: bool) -> str:
    """SillyTavern's instruct steps of cleanUpMessage, with the sequences as written."""
    text = _cut_at(_cut_at(text, markers.stop_sequence), markers.input_sequence)
    if impersonate:
        return _lines_removed(text, markers.input_sequence)
    return _lines_removed(_lines_removed(text, markers.output_sequence),
                          markers.last_output_sequence)


def reply_stop_start_cut(text: str, stops: Sequence[str]) -> str:
    """`text` without the start of a stop string it ends in (a reply cut short by its length
    mid-marker), the longest start of each in the list's order, as SillyTavern's first step
    (before the regex scripts). The server cuts at a stop string itself, at the earliest."""
    for stop in stops:
        if not text:
            break
        # Only the starts that end in the text's last character (linear in the stop's length).
        end = stop.rfind(text[-1])
        while end >= 0:
            if text.endswith(stop[:end + 1]):
                text = text[:-end - 1]
                break
            end = stop.rfind(text[-1], 0, end)
    return text


def _cut_at_line(text: str, name: str) -> str:
    """`text` up to where a line starts with `name:` (the whole text when it starts so)."""
    if text.startswith(f"{name}:"):
        return ""
    at = text.find(f"\n{name}:")
    return text if at < 0 else text[:at]


def reply_names_cleaned(text: str, *, user_name: str, char_name: str,
                        others: Sequence[str] = (), impersonate: bool = False,
                        markers: Markers | None = None, stops: Sequence[str] = ()) -> str:
    """`text` (a reply by `char_name`, or with `impersonate` the player's suggested line)
    cleaned of speakers' names as SillyTavern cleans it; `others`: a group's other members;
    `markers`: the instruct template of a text-completion turn; `stops`: its stop strings."""
    text = reply_stop_start_cut(text, stops)
    cut = char_name if impersonate else user_name
    if cut:
        text = _cut_at_line(text, cut)
    text = _cut_at(text, ENDOFTEXT)
    if markers is not None:
        text = _markers_cleaned(text, markers, impersonate=impersonate)
    for name in others:  # SillyTavern's cleanGroupMessage: the speaker itself is skipped
        if name and name != char_name:
            text = _cut_at_line(text, name)
    if char_name:
        text = re.sub(r"(^|\n)" + re.escape(char_name) + r":\s*", r"\1", text)
    if impersonate:
        text = text.strip()
    own = user_name if impersonate else char_name
    if own and text.startswith(f"{own}:"):
        text = text[len(own) + 1:].lstrip()
    return text.strip() if impersonate else text
