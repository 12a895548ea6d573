"""Cards of other apps (SillyTavern V1/V2/V3 as JSON, PNG and CHARX, Pygmalion, Agnai) with one field
anywhere replaced by a value of another type: imported or refused by name, never a 500; what imported
opens, plays a turn and exports (tests/library/import_fuzz.py)."""

from __future__ import annotations

import pytest

from tests.library.import_fuzz import (  # noqa: F401 — fixture
    CARDS,
    EXPORTS,
    card_played,
    charx_body,
    json_body,
    label,
    mutations,
    png_body,
    replaced,
    sweep,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("base", CARDS)
def test_a_card_with_any_field_of_another_type_imports_or_is_refused_by_name(sweep, base):
    doc = CARDS[base]()
    for index, (path, value) in enumerate(mutations(doc)):
        what = label(base, path, value)
        changed = replaced(doc, path, value)
        if index % 3 == 0:  # the library page's form
            landed = sweep.upload_page(what, "/library/cards/upload", "card.json",
                                       json_body(changed))
            made = {"character_id": landed.split("/")[-2]} if landed else None
        else:  # as a PNG, or a CHARX zip for a V3 card (the JSON goes through the form)
            name, body = (("card.charx", charx_body(changed)) if base == "card_v3" and index % 3 == 2
                          else ("card.png", png_body(changed)))
            made = sweep.upload(what, "/api/v1/characters/import", name, body)
        if made:
            card_played(sweep, what, made["character_id"],
                         EXPORTS[index % len(EXPORTS)])
    assert sweep.failures == [], "\n".join(sweep.failures[:40])
    assert sweep.imported > 0
