"""SillyTavern V2 cards (as JSON and PNG) with one field anywhere replaced by a value of another
type: imported or refused by name, never a 500; what imported opens, plays a turn and exports
(tests/library/import_fuzz.py). V3 (CHARX too), V1, Pygmalion and Agnai cards:
test_import_fuzz_cards_other.py."""

from __future__ import annotations

import pytest

from tests.library.import_fuzz import CARDS_SPEC, card_sweep, sweep  # noqa: F401 — fixture

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("base", CARDS_SPEC)
def test_a_card_with_any_field_of_another_type_imports_or_is_refused_by_name(sweep, base):  # noqa: F811
    card_sweep(sweep, base)
