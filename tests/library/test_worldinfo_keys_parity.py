"""Whole-word keys as SillyTavern 1.12.6 matches them (`WorldInfoBuffer.matchKeys`): a key
that `split(/\\s+/)` cuts in several words is looked for as a phrase anywhere, one word with
non-word characters (JavaScript's ASCII `\\W`) on both sides."""

from __future__ import annotations

import pytest

from library.lore.lorebook import lorebook_match, lorebook_validate


def _fires(key: str, text: str) -> bool:
    lore = lorebook_validate({"lorebook_id": "lb_k", "name": "k", "entries": [
        {"uid": 1, "keys": [key], "content": "x", "match_whole_words": True}]})
    return bool(lorebook_match([lore], messages=[text], count_tokens=len).fired)


@pytest.mark.parametrize("space", ["\u3000", "\u00a0", "\t"])
def test_a_key_with_an_ideographic_no_break_or_tab_space_is_a_phrase(space):
    # "red dragon" is two words to SillyTavern whatever the space, so "red dragons" fires it;
    # read as one word it needed a non-word character after "dragon".
    assert _fires(f"red{space}dragon", f"the red{space}dragons came")


def test_one_word_still_needs_its_boundaries():
    assert not _fires("dragon", "the dragons came")
    assert _fires("dragon", "the dragon, again")
    assert _fires("龙", "一条龙飞过")  # no ASCII word character around it: a whole word
