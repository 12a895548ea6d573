"""The import sweeps' default run (each field once, the odd values rotating) reaches every odd
value: with a step of 5 over 15 values it used only null, 2**80 and one nested list, so no
sweep of `make test` sent huge text, deep nesting, NaN or a field of the swapped type."""

from __future__ import annotations

from tests.library.import_fuzz import BOOKS, CARDS, ODD_VALUES, mutations


def _reached(doc: object) -> set[int]:
    """The ODD_VALUES (by place) and the swapped value (-1) the default sweep of `doc` sends."""
    places = {id(value): place for place, value in enumerate(ODD_VALUES)}
    return {places.get(id(value), -1) for _, value in mutations(doc)}


def test_every_odd_value_is_sent_by_the_default_sweep_of_a_long_card_and_a_lorebook():
    every = {*range(len(ODD_VALUES)), -1}
    assert _reached(CARDS["card_v2"]()) == every
    assert _reached(BOOKS["st_world"]()) == every
