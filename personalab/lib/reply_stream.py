"""A streaming reply as the player sees it: the text so far cleaned as SillyTavern 1.12.6's
`onProgressStreaming` shows it (`cleanUpMessage` with `displayIncompleteSentences`): the start
of a stop string it ends in cut, the lines' trailing spaces, the speakers' names and instruct
markers (personalab/lib/reply_names.py), "Auto-fix Markdown", "single line" and the ends'
whitespace; "Trim incomplete sentences" waits for the end, and the regex scripts run on the
finished reply only (docs/decisions/streamed-reply-clean-up.md).

Each piece costs what the text since the last settled place costs, not the whole reply: the
clean text of what lies before a place where a word ends, far enough back (`LAG`) that no
stop string or marker can reach over it, whose `*` / `_` pairs all closed before it, and
whose clean text the whole tail's starts with, is settled and not cleaned again. A tail
longer than `TAIL_MAX` is settled even with a mark unclosed (a lone `*`): the finished reply,
cleaned whole, may then differ in the spaces after that mark. Framework-free."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from personalab.lib.reply_names import ENDOFTEXT, reply_names_cleaned, reply_stop_start_cut
from personalab.lib.reply_shape import (
    reply_lines_trimmed,
    reply_markdown_fixed,
    reply_markdown_open,
    reply_single_line,
)

LAG_MAX = 4096
TAIL_MAX = 6000


def _cuts(names: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(strings whose first place ends the reply, names that end it at the reply's start)."""
    user, char = names.get("user_name") or "", names.get("char_name") or ""
    at_line = [name for name in (user, *(other for other in names.get("others") or ()
                                         if other != char)) if name]
    markers = names.get("markers")
    anywhere = [ENDOFTEXT, *(f"\n{name}:" for name in at_line)]
    if markers is not None:
        anywhere += [marker for marker in (markers.stop_sequence, markers.input_sequence)
                     if marker]
    return anywhere, [f"{name}:" for name in at_line]


class ReplyShown:
    """Fed the reply's text as it comes (`names`: chat/play/reply_clean.py reply_names's
    answer, or None; `shape`: the context template's `reply_shape`; `continued`: the text
    goes on a reply already there, whose start is left as it was)."""

    def __init__(self, *, names: dict[str, Any] | None, shape: dict[str, Any] | None,
                 continued: bool = False) -> None:
        self.names = {**names, "stops": ()} if names else None
        self.stops: Sequence[str] = names["stops"] if names else ()
        self.single_line = bool((shape or {}).get("single_line"))
        self.anywhere, self.at_start = _cuts(names) if names else ([], [])
        words = [*self.stops, *self.anywhere]
        if names and names.get("markers") is not None:
            markers = names["markers"]
            words += [line for sequence in (markers.output_sequence,
                                            markers.last_output_sequence)
                      for line in (sequence or "").split("\n")]
        self.lag = min(LAG_MAX, sum(len(word) for word in words) + 1)
        self.tail = ""  # the raw text after the settled place
        self.settled: list[str] = []  # the clean text before it
        self.settled_size = 0
        self.settled_spaces = ""  # the whitespace ending the settled text
        self.started = continued  # the shown text has begun (its start is not trimmed)
        self.at_start = self.at_start if not continued else []
        self.searched = 0  # how far the tail was searched for a cut
        self.frozen = False
        self.shown = ""  # the shown text after the settled part

    def feed(self, text: str) -> tuple[int, str] | None:
        """(at, text): the shown reply is now its first `at` characters, then `text`; None
        when it did not change."""
        if self.frozen or not text:
            return None
        self.tail += text
        cut = self._cut_found()
        clean = self._clean(self.tail if cut < 0 else self.tail[:cut], end=cut < 0)
        self.frozen = cut >= 0
        spaces, base = self.settled_spaces, self.settled_size - len(self.settled_spaces)
        old = spaces + self.shown if self.shown else ""
        added: list[str] = []
        if cut < 0:
            clean = self._settle(clean, added)
        self.shown = clean.rstrip() if self.started else clean.strip()
        new = spaces + "".join(added) + self.shown
        new = new if self.shown else new.rstrip()
        if new == old:
            return None
        common = len(old) if new.startswith(old) else _common(old, new)
        return base + common, new[common:]

    def text(self) -> str:
        """The whole reply as shown now."""
        whole = "".join(self.settled)
        return whole + self.shown if self.shown else whole.rstrip()

    def _cut_found(self) -> int:
        """Where in the tail the first stop string, marker or other speaker's line starts,
        or -1; searched from just before the text not searched yet."""
        tail = self.tail
        if any(tail.startswith(word) for word in self.at_start):
            return 0
        start = max(0, self.searched - self.lag)
        found = [at for word in self.anywhere if (at := tail.find(word, start)) >= 0]
        if self.single_line:
            head = 0 if self.settled else len(tail) - len(tail.lstrip("\r\n"))
            if (at := tail.find("\n", max(start, head))) >= 0:
                found.append(at)
        self.searched = len(tail)
        return min(found) if found else -1

    def _clean(self, raw: str, *, end: bool) -> str:
        """The clean text of `raw` (a stretch of the reply), no whitespace trimmed at its ends;
        `end`: it ends the text so far, so the start of a stop string it ends in goes."""
        if end:
            raw = reply_stop_start_cut(raw, self.stops)
        text = reply_lines_trimmed(raw)
        if self.names:
            text = reply_names_cleaned(text, **self.names)
        text = reply_markdown_fixed(text)
        if self.single_line and text.strip():
            lead = len(text) - len(text.lstrip("\r\n"))
            text = text[:lead] + reply_single_line(text[lead:])
        return text

    def _settle(self, clean: str, added: list[str]) -> str:
        """The tail's clean text after what can be settled of it (put in `added`) is."""
        tail = self.tail
        place = _word_end(tail, len(tail) - self.lag)
        if place <= 0:
            return clean
        part = self._clean(tail[:place], end=False)
        if len(tail) <= TAIL_MAX and not (clean.startswith(part)
                                          and not reply_markdown_open(part)):
            return clean
        self.tail = tail[place:]
        self.searched = max(0, self.searched - place)
        self.at_start = []
        rest = clean[len(part):] if clean.startswith(part) else self._clean(self.tail, end=True)
        if not self.started:
            part = part.lstrip()
        if part:
            added.append(part)
            self.settled.append(part)
            self.settled_size += len(part)
            kept = part.rstrip()
            self.settled_spaces = part[len(kept):] if kept else self.settled_spaces + part
            self.started = self.started or bool(kept)
        return rest


def _word_end(text: str, before: int) -> int:
    """The last place at or before `before` where a word ends (whitespace after, none before),
    or 0."""
    for place in range(min(before, len(text) - 1), 0, -1):
        if text[place].isspace() and not text[place - 1].isspace():
            return place
    return 0


def _common(old: str, new: str) -> int:
    size = min(len(old), len(new))
    index = 0
    while index < size and old[index] == new[index]:
        index += 1
    return index
