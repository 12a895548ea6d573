"""SillyTavern V3 cards (as JSON, PNG and CHARX) and cards of other apps (SillyTavern V1,
Pygmalion, Agnai) with one field anywhere replaced by a value of another type: imported or
refused by name, never a 500; what imported opens, plays a turn and exports
(tests/library/import_fuzz.py). V2: test_import_fuzz_cards.py, the longest, on its own."""

from __future__ import annotations

import pytest

from tests.library.import_fuzz import CARDS, CARDS_SPEC, card_sweep, sweep  # noqa: F401 — fixture

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("base", [base for base in CARDS if base not in CARDS_SPEC])
def test_a_card_with_any_field_of_another_type_imports_or_is_refused_by_name(sweep, base):  # noqa: F811
    card_sweep(sweep, base)
