"""What the prompt needs to know of the session lines it leaves out, tallied once and extended
turn by turn, so a turn does not cost more as the part of the history left out grows."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from personalab.lib.lines import line_prompt_usable, lines_overlap
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

    def followed(self, lines: list[dict[str, Any]], k: int, m: int) -> _Tally:
        """The tally of `lines`, whose first `m` are this tally's lines from the k-th on
        (lines_overlap): the lines before them and past them taken back out, those past the
        m-th of `lines` counted."""
        tally = _Tally(lines, self.tokenizer, self.usable, self.message_tokens)
        front = tally._taken_back(self.lines[:k])
        back = tally._taken_back(self.lines[k + m:])
        tally.summaries = self.summaries[front:len(self.summaries) - back]
        for line in lines[m:]:
            if not _line_usable(line):
                continue
            tally.usable += 1
            if line.get("type") == "summary":
                tally.summaries.append(line)
            else:
                tally.message_tokens += _message_cost(line["content"])
        return tally

    def _taken_back(self, lines: list[dict[str, Any]]) -> int:
        """Take counted `lines` back out of the figures; returns how many summaries they hold."""
        summaries = 0
        for line in lines:
            if not _line_usable(line):
                continue
            self.usable -= 1
            if line.get("type") == "summary":
                summaries += 1
            else:
                self.message_tokens -= _message_cost(line["content"])
        return summaries


TALLY_SESSIONS = 8
_tallies: list[_Tally] = []
_tallies_lock = threading.Lock()


def older_lines_tally(lines: list[dict[str, Any]]) -> _Tally:
    """Tally `lines`, starting from the tally of an earlier turn that shares most of them
    (lines_overlap). The lines left out of an old session that opens with thousands of summary
    lines (decisions/summary-seed.md) begin a little later each turn, as the newest messages
    take more of the prompt's token room, and end earlier or later: only the lines at either
    end are counted or taken back. The session cache hands back the very same line objects
    turn after turn; equal lines that are other objects count just the same."""
    tokenizer = tokenizer_name()
    with _tallies_lock:
        candidates = [tally for tally in _tallies if tally.tokenizer == tokenizer]
    for base in candidates:
        overlap = lines_overlap(base.lines, lines)
        if overlap is not None and len(base.lines) + len(lines) - 2 * overlap[1] < len(lines):
            break
    else:
        base, overlap = _Tally([], tokenizer), (0, 0)
    tally = base.followed(lines, *overlap)
    # A tally that only grew replaces its base; one that dropped lines at the end keeps it,
    # since the next turn's lines may end where the base did.
    grown = overlap == (0, len(base.lines))
    with _tallies_lock:
        _tallies[:] = [tally, *(t for t in _tallies if t is not tally and not (
            grown and t is base))][:TALLY_SESSIONS]
    return tally
