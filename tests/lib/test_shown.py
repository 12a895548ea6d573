"""A refused value as a message repeats it: whole when it could be an id, cut when it could not."""

from __future__ import annotations

from personalab.lib.shown import SHOWN_CHARS, value_shown


def test_a_value_as_long_as_an_id_is_repeated_whole():
    assert value_shown("lore_missing") == "'lore_missing'"
    assert value_shown("x" * SHOWN_CHARS) == repr("x" * SHOWN_CHARS)
    assert value_shown(7) == "7"


def test_a_longer_value_is_cut_to_its_first_characters():
    shown = value_shown("lore_" + "x" * 1_000_000)
    assert shown == repr("lore_" + "x" * (SHOWN_CHARS - 6) + "…")
    assert len(shown) == SHOWN_CHARS + 2  # and its quotes
    listed = value_shown(list(range(100_000)))
    assert listed.startswith("[0, 1, 2") and listed.endswith("…") and len(listed) == SHOWN_CHARS
