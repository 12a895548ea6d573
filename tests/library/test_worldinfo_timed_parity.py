"""Timed effects as SillyTavern 1.12.6 counts them (public/scripts/world-info.js,
`WorldInfoTimedEffects`): the cooldown after a sticky entry starts at the scan that finds the
sticky time over (`onEnded.sticky`), which with two messages a turn is a message after it ended
when sticky is odd."""

from __future__ import annotations

from library.lore.lorebook import lorebook_match, lorebook_validate


def _run(entry: dict, lengths: tuple[int, ...]) -> tuple[list[tuple[int, str]], list[int]]:
    lore = lorebook_validate({"lorebook_id": "lb_t", "name": "t", "entries": [entry]})
    timed: dict = {}
    fired, cooling = [], []
    for length in lengths:
        match = lorebook_match([lore], messages=["the dragon"], count_tokens=len,
                               chat_length=length, timed=timed)
        timed = match.timed
        fired += [(length, e["reason"].split(" ")[0]) for e in match.fired]
        cooling += [length for d in match.dropped if d["reason"].startswith("on cooldown")]
    return fired, cooling


def test_the_cooldown_after_an_odd_sticky_counts_from_the_turn_that_sees_it_over():
    # SillyTavern: fired at 2 (sticky until 5); 4 sticky; 6 finds it over and cools 6..8;
    # the key fires it again at 10. Before: the cooldown ran 5..7, so the key fired it at 8.
    fired, cooling = _run({"uid": 1, "keys": ["dragon"], "sticky": 3, "cooldown": 3,
                           "content": "D"}, (2, 4, 6, 8, 10))
    assert fired == [(2, "key"), (4, "sticky"), (10, "key")]
    assert cooling == [6, 8]


def test_a_regenerate_where_the_cooldown_began_keeps_it():
    # SillyTavern protects the cooldown a sticky end starts: a regenerate at that length
    # (the chat did not grow) is still on cooldown.
    fired, cooling = _run({"uid": 1, "keys": ["dragon"], "sticky": 1, "cooldown": 1,
                           "content": "D"}, (2, 4, 4, 6))
    assert fired == [(2, "key"), (6, "key")]
    assert cooling == [4, 4]


def test_a_cooldown_without_sticky_counts_from_the_firing():
    fired, cooling = _run({"uid": 1, "keys": ["dragon"], "cooldown": 3, "content": "D"},
                          (2, 4, 6))
    assert fired == [(2, "key"), (6, "key")]
    assert cooling == [4]
