"""Speakers' names in a finished reply or impersonation, as SillyTavern 1.12.6's `cleanUpMessage`
(`public/script.js`) leaves them at its defaults (`allow_name1_display` and
`allow_name2_display` off, group trimming on): a reply stops where the model starts writing the
player's line (or, in a group, another member's), and the speaker's own `Name:` at a line's
start is taken off; an impersonation stops at the character's line and loses the player's own
`Name:`. Framework-free; names are matched as literal text (escaped), linear in the reply."""

from __future__ import annotations

import re
from collections.abc import Sequence

ENDOFTEXT = "<|endoftext|>"


def _cut_at_line(text: str, name: str) -> str:
    """`text` up to where a line starts with `name:` (the whole text when it starts so)."""
    if text.startswith(f"{name}:"):
        return ""
    at = text.find(f"\n{name}:")
    return text if at < 0 else text[:at]


def reply_names_cleaned(text: str, *, user_name: str, char_name: str,
                        others: Sequence[str] = (), impersonate: bool = False) -> str:
    """`text` (a reply by `char_name`, or with `impersonate` the player's suggested line)
    cleaned of speakers' names as SillyTavern cleans it; `others`: a group's other members."""
    cut = char_name if impersonate else user_name
    if cut:
        text = _cut_at_line(text, cut)
    if ENDOFTEXT in text:
        text = text[:text.index(ENDOFTEXT)]
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
