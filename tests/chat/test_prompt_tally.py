"""The tally of the lines a prompt leaves out (chat/prompt/tally.py), kept from turn to turn: in
an old session that opens with thousands of summary lines those lines end a little earlier each
turn, and the tally is then taken back from the longer one, equal to counting them afresh."""

from __future__ import annotations

from chat.prompt import tally as tally_module
from chat.prompt.tally import _Tally, older_lines_tally
from personalab.lib.tokens import tokenizer_name

LINES = [*({"type": "summary", "content": f"Event {n}: the mill burned."} for n in range(50)),
         *({"role": role, "content": f"{role} says {n}", "turn": n}
           for n in range(1, 6) for role in ("user", "assistant")),
         {"role": "user", "content": "hidden", "turn": 6, "hidden": True}]


def _counted(tally: _Tally) -> tuple:
    return tally.usable, tally.message_tokens, tally.summaries


def test_a_shorter_stretch_is_taken_back_from_the_longer_tally(monkeypatch):
    ends = (58, 45, 30)
    afresh = [_counted(_Tally([], tokenizer_name()).followed(LINES[:end], 0, 0)) for end in ends]
    monkeypatch.setattr(tally_module, "_tallies", [])
    older_lines_tally(LINES)
    walked: list[dict] = []
    usable = tally_module._line_usable
    monkeypatch.setattr(tally_module, "_line_usable", lambda line: walked.append(line)
                        or usable(line))

    shorter = [_counted(older_lines_tally(LINES[:end])) for end in ends]

    assert shorter == afresh
    assert len(walked) == len(LINES) - ends[-1]  # each taken back from the last, not counted again


def test_a_stretch_that_begins_later_is_tallied_from_the_last_walking_only_its_ends(monkeypatch):
    """Each turn the newest messages take more of the token room: the lines left out begin a
    few summary lines later, and end earlier or later."""
    spans = ((0, 40), (4, 44), (9, 43), (12, 61), (12, 61))
    afresh = [_counted(_Tally([], tokenizer_name()).followed(LINES[a:b], 0, 0))
              for a, b in spans]
    monkeypatch.setattr(tally_module, "_tallies", [])
    walked: list[dict] = []
    usable = tally_module._line_usable
    monkeypatch.setattr(tally_module, "_line_usable", lambda line: walked.append(line)
                        or usable(line))

    moved = [_counted(older_lines_tally(LINES[a:b])) for a, b in spans]

    assert moved == afresh
    assert len(walked) == 40 + (4 + 4) + (5 + 1 + 0) + (3 + 18) + 0
