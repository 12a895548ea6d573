"""A message cut in the middle to a number of tokens, a mark where it was cut: the message right
before the newest (the character's last reply, as a rule) when it does not fit what the
conversation's room has left, so the model still reads how it began and how it ended
(docs/decisions/newest-reply-cut.md)."""

from __future__ import annotations

from functools import lru_cache

from personalab.lib.tokens import count_tokens

MESSAGE_CUT_MARK = " […] "
# A cut shorter than this says too little of the message: it leaves the prompt whole instead.
MESSAGE_CUT_LEAST_TOKENS = 48
HEAD_SHARE = 2 / 3  # of what is kept, from the start; the rest from the end
SHRINK_STEPS = 24


@lru_cache(maxsize=64)
def text_middle_cut(text: str, tokens: int) -> str:
    """`text` within `tokens` tokens: its start and its end, MESSAGE_CUT_MARK between them; the
    whole text when it fits. Each try counts only the cut (a few thousand tokens at most), never
    the whole text again, and the prompt is built several times a turn: remembered."""
    total = count_tokens(text)
    if total <= tokens:
        return text
    share = tokens / total
    for _ in range(SHRINK_STEPS):
        keep = int(len(text) * share)
        head = int(keep * HEAD_SHARE)
        cut = (text[:head].rstrip() + MESSAGE_CUT_MARK
               + text[len(text) - (keep - head):].lstrip())
        if count_tokens(cut) <= tokens:
            return cut
        share *= 0.9
    return MESSAGE_CUT_MARK.strip()
