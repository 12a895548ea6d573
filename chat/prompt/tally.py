"""What the prompt needs to know of the session lines it leaves out, tallied once and extended
turn by turn, so a turn does not cost more as the part of the history left out grows."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from personalab.lib.lines import line_prompt_usable
from personalab.lib.tokens import count_tokens, tokenizer_name

MESSAGE_OVERHEAD_TOKENS = 4

_line_usable = line_prompt_usable


def _message_cost(content: str) -> int:
    return count_tokens(content) + MESSAGE_OVERHEAD_TOKENS


@dataclass(eq=False)
class _Tally:
    """What the prompt needs to know of the lines it leaves out: how many messages they are
    and their tokens. Summary lines are kept to be rendered each turn, since their template
    may use variables that change; a user or assistant message costs the same every turn."""

    lines: list[dict[str, Any]]
    tokenizer: str
    usable: int = 0
    message_tokens: int = 0
    summaries: list[dict[str, Any]] = field(default_factory=list)

    def extended(self, lines: list[dict[str, Any]]) -> _Tally:
        tally = _Tally(lines, self.tokenizer, self.usable, self.message_tokens,
                       list(self.summaries))
        for line in lines[len(self.lines) :]:
            if not _line_usable(line):
                continue
            tally.usable += 1
            if line.get("type") == "summary":
                tally.summaries.append(line)
            else:
                tally.message_tokens += _message_cost(line["content"])
        return tally

    def shortened(self, lines: list[dict[str, Any]]) -> _Tally:
        """The tally of `lines`, which begin this tally's lines: the lines past them taken
        back out (their summaries are the last ones counted)."""
        tally = _Tally(lines, self.tokenizer, self.usable, self.message_tokens,
                       list(self.summaries))
        for line in self.lines[len(lines):]:
            if not _line_usable(line):
                continue
            tally.usable -= 1
            if line.get("type") == "summary":
                tally.summaries.pop()
            else:
                tally.message_tokens -= _message_cost(line["content"])
        return tally


TALLY_SESSIONS = 8
_tallies: list[_Tally] = []
_tallies_lock = threading.Lock()


def older_lines_tally(lines: list[dict[str, Any]]) -> _Tally:
    """Tally `lines`, starting from the tally of an earlier turn when `lines` begins with the
    lines it counted. The session cache hands back the very same line objects turn after turn,
    so that comparison is an identity check at C speed; equal lines that are other objects
    (a file parsed again) compare by value, which is just as correct."""
    tokenizer = tokenizer_name()
    with _tallies_lock:
        candidates = [tally for tally in _tallies if tally.tokenizer == tokenizer]
    base = next((tally for tally in candidates if len(tally.lines) <= len(lines)
                 and lines[: len(tally.lines)] == tally.lines), None)
    if base is None:
        # The lines left out of an old session that opens with thousands of summary lines
        # (decisions/summary-seed.md) end a little earlier each turn, as the newest messages
        # take more of the window: taken back from a longer tally, not counted again.
        longer = min((tally for tally in candidates if len(tally.lines) > len(lines)
                      and tally.lines[: len(lines)] == lines),
                     key=lambda tally: len(tally.lines), default=None)
        if longer is not None:
            tally = longer.shortened(lines)
            with _tallies_lock:
                _tallies[:] = [tally, *_tallies][:TALLY_SESSIONS]
            return tally
        base = _Tally([], tokenizer)
    tally = base.extended(lines)
    with _tallies_lock:
        _tallies[:] = [tally, *(t for t in _tallies if t is not base)][:TALLY_SESSIONS]
    return tally
