"""An entry's probability is checked as SillyTavern checks it: an unrounded roll in [0, 100)
passes when it is at most the entry's probability, so a roll equal to it passes."""

from __future__ import annotations

import random

import pytest

from library.lore.lorebook import lorebook_match, lorebook_validate
from personalab.lib.errors import Invalid


class FixedRoll(random.Random):
    """An rng whose every draw is `value` (a draw of 0.5 is a roll of 50)."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def _match(probability: float, draw: float):
    # In the card's extensions, where SillyTavern's file may give a probability with decimals.
    book = lorebook_validate({"lorebook_id": "lb_chance", "name": "Chance", "entries": [
        {"uid": 1, "keys": ["dice"], "content": "lucky",
         "extensions": {"probability": probability}}]})
    return lorebook_match([book], messages=["roll the dice"], count_tokens=len,
                          rng=FixedRoll(draw))


@pytest.mark.parametrize(("probability", "draw", "fires"), [
    (50, 0.5, True),  # a roll equal to the probability passes
    (50, 0.49999, True),  # 49.999: passes, though it rounds to 50.00
    (50, 0.50001, False),  # 50.001: fails, though it rounds to 50.00
    (33.5, 0.3349, True),  # a probability with decimals is read as it is
    (0, 0.0, True),  # a roll of exactly 0 passes even 0%
    (0, 0.0001, False),
])
def test_a_roll_passes_when_it_is_at_most_the_probability(probability, draw, fires):
    match = _match(probability, draw)
    assert [entry["uid"] for entry in match.fired] == ([1] if fires else [])
    entry = (match.fired or match.dropped)[0]
    assert entry["roll"] == draw * 100


def test_the_trace_shows_the_roll_on_the_side_of_the_probability_it_fell():
    failed = _match(50, 0.500001).dropped[0]["reason"]
    assert failed.startswith("probability 50%: rolled 50.0001;")
    assert "(probability 33.5%: rolled 33.50)" in _match(33.5, 0.334999).fired[0]["reason"]
    assert "probability 50%: rolled 37.50)" in _match(50, 0.375).fired[0]["reason"]


@pytest.mark.parametrize(("sent", "kept"), [(33.5, 33.5), ("12.25", 12.25), ("40", 40),
                                             (50.0, 50), (0, 0), (100, 100)])
def test_a_probability_with_decimals_is_kept_as_sillytavern_keeps_it(sent, kept):
    book = lorebook_validate({"lorebook_id": "lb_chance", "name": "Chance", "entries": [
        {"uid": 1, "keys": ["dice"], "content": "lucky", "probability": sent}]})
    assert book["entries"][0]["probability"] == kept
    assert type(book["entries"][0]["probability"]) is type(kept)


@pytest.mark.parametrize(("sent", "said"), [(100.5, "must be between 0 and 100"),
                                            (-1, "must be between 0 and 100"),
                                            ("often", "must be a number"),
                                            (float("nan"), "must be a number"), (True,
                                                                                 "must be a number")])
def test_a_probability_outside_0_to_100_or_not_a_number_is_refused(sent, said):
    with pytest.raises(Invalid) as refused:
        lorebook_validate({"lorebook_id": "lb_chance", "name": "Chance", "entries": [
            {"uid": 1, "keys": ["dice"], "content": "lucky", "probability": sent}]})
    assert refused.value.fields["entries[0].probability"] == said
