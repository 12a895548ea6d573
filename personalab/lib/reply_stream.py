"""A streaming reply as the player sees it: the text so far cleaned as SillyTavern 1.12.6's
`onProgressStreaming` shows it (`cleanUpMessage` with `displayIncompleteSentences`): the start
of a stop string it ends in cut, the lines' trailing spaces, the speakers' names and instruct
markers (personalab/lib/reply_names.py), "Auto-fix Markdown", "single line" and the ends'
whitespace; "Trim incomplete sentences" waits for the end, and the regex scripts run on the
finished reply only (docs/decisions/streamed-reply-clean-up.md).

Each piece costs what the text since the last settled place costs, not the whole reply: a
place far enough back (`lag`) that no stop string, marker or name reaches over it, with every
`*` / `_` pair before it closed, where the clean text of the part before it and of the rest
make the clean text of the whole tail, is settled and not cleaned again. A tail longer than
`TAIL_MAX` is settled even with a mark unclosed (a lone `*`): the finished reply, cleaned
whole, may then differ in the spaces after that mark. With "single line" the whole text is
cleaned again from its first line break until the first line is final (at most
`SINGLE_LINE_TRIES` pieces, or `SINGLE_LINE_CHARS` of text). Past TAIL_MAX a tail of marks and
spaces alone settles where it falls. Framework-free."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
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
SINGLE_LINE_TRIES = 64
# With "single line", the whole text is cleaned again per piece only this long: a first line
# with a lone `*` and 100,000 characters after it took 5 s of the event loop (tenth red-team
# pass); the finished reply is cleaned whole anyway.
SINGLE_LINE_CHARS = 8000
SHOWN_PER_SECOND = 30  # SillyTavern's default streaming_fps
SETTLE_EVERY = 128  # characters of tail past the lag before a place is looked for


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
        names_said = [f"\n{name}:" for name in (names or {}).get("others") or ()] + [
            f"\n{(names or {}).get(key) or ''}:" for key in ("user_name", "char_name")]
        words = [*self.stops, *self.anywhere, *names_said]
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
        self.continued = continued
        self.raw: list[str] = []  # the whole text, kept only with "single line"
        self.broken = False
        self.tries = 0

    def feed(self, text: str) -> tuple[int, str] | None:
        """(at, text): the shown reply is now its first `at` characters, then `text`; None
        when it did not change."""
        if self.frozen or not text:
            return None
        if self.single_line:
            change = self._one_line(text)
            if self.broken:
                return change
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
        self.searched = len(tail)
        return min(found) if found else -1

    def _clean(self, raw: str, *, end: bool) -> str:
        """The clean text of `raw` (a stretch of the reply), no whitespace trimmed at its ends;
        `end`: it ends the text so far, so the start of a stop string it ends in goes."""
        return self._shaped(self._named(raw, end=end))

    def _named(self, raw: str, *, end: bool) -> str:
        if end:
            raw = reply_stop_start_cut(raw, self.stops)
        text = reply_lines_trimmed(raw)
        return reply_names_cleaned(text, **self.names) if self.names else text

    def _shaped(self, text: str) -> str:
        return reply_markdown_fixed(text)

    def _one_line(self, text: str) -> tuple[int, str] | None:
        """With "single line", once a raw line break came: the whole text cleaned again each
        piece, its first line shown, until that line cannot change (its clean text has a line
        after it and no mark open in it) or SINGLE_LINE_TRIES pieces went by."""
        self.raw.append(text)
        self.broken = self.broken or "\n" in text
        if not self.broken:
            return None
        self.tries += 1
        named = self._named("".join(self.raw), end=True)
        body = self._shaped(named).lstrip("\r\n")
        first = named.lstrip("\r\n").split("\n", 1)[0]  # a mark open in it may pair later
        line = reply_single_line(body)
        line = line.rstrip() if self.continued else line.strip()
        self.frozen = ("\n" in body and not reply_markdown_open(first)
                       or self.tries >= SINGLE_LINE_TRIES or len(named) > SINGLE_LINE_CHARS)
        old = self.text()
        self.settled, self.settled_size, self.settled_spaces = [line], len(line), ""
        self.shown = ""
        if line == old:
            return None
        common = len(old) if line.startswith(old) else _common(old, line)
        return common, line[common:]

    def _settle(self, clean: str, added: list[str]) -> str:
        """The tail's clean text after what can be settled of it (put in `added`) is."""
        tail = self.tail
        if len(tail) < self.lag + SETTLE_EVERY:  # tried now and then, not at every piece
            return clean
        place = _place(tail, len(tail) - self.lag)
        if place <= 0 and len(tail) <= TAIL_MAX:
            return clean
        # A tail of marks and spaces alone has no place: past TAIL_MAX it settles where it
        # falls (100,000 `*` kept it whole, cleaned again at each piece on the event loop:
        # up to 1.8 s a piece, 100 s in all; tenth red-team pass).
        place = place if place > 0 else len(tail) - self.lag
        named = self._named(tail[:place], end=False)
        part, rest = self._shaped(named), self._clean(tail[place:], end=True)
        # (the pairs as the marks came: "* *" fixed is "**", a double mark)
        if len(tail) <= TAIL_MAX and (part + rest != clean or reply_markdown_open(named)):
            return clean  # the place would change what shows: a later one may not
        self.tail = tail[place:]
        self.searched = max(0, self.searched - place)
        self.at_start = []
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


class ReplyShownPaced:
    """A ReplyShown fed at most `per_second` times a second, as SillyTavern redraws a
    streaming reply (`streaming_fps`, 30 by default): the pieces between are fed together, so
    a fast stream is not cleaned at each of its pieces; `flush` feeds what is left."""

    def __init__(self, cleaner: ReplyShown, *, per_second: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.cleaner, self.clock = cleaner, clock
        self.every = 1 / (per_second or SHOWN_PER_SECOND)
        self.pending: list[str] = []
        self.fed_at = float("-inf")

    def feed(self, text: str) -> tuple[int, str] | None:
        self.pending.append(text)
        now = self.clock()
        if now - self.fed_at < self.every:
            return None
        self.fed_at = now
        return self.flush()

    def flush(self) -> tuple[int, str] | None:
        text = "".join(self.pending)
        self.pending.clear()
        return self.cleaner.feed(text)


def _place(text: str, before: int) -> int:
    """Where to settle, at or before `before`: after a character that is not whitespace, not
    beside a `*` or `_` (a pair's mark may be two long); a word's end when there is one near
    (text without spaces, as Chinese, settles inside its words), else 0."""
    place = min(before, len(text) - 1)
    for near in range(place, max(place - 64, 0), -1):
        if text[near].isspace() and not text[near - 1].isspace() \
                and text[near - 1] not in "*_":
            return near
    while place > 0 and (text[place - 1].isspace() or text[place - 1] in "*_"
                         or text[place] in "*_"):
        place -= 1
    return place


def _common(old: str, new: str) -> int:
    size = min(len(old), len(new))
    index = 0
    while index < size and old[index] == new[index]:
        index += 1
    return index
