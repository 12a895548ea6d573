"""In a group each member's prompt reads its own card's book, not the other members' (as
SillyTavern 1.12.6, which scans the speaking character's lore only): through a real group
round against the stub, which records each member's request. A chat's own book reaches every
member (tests/library/test_worldinfo_parity.py). The cards are written here from the
documented V3 format."""

from __future__ import annotations

import pytest

from tests.text_turns import english, group_create, group_turn

pytestmark = pytest.mark.django_db(transaction=True)


def _book(name: str, *entries: tuple[str, int]) -> dict:
    return {"name": name, "entries": [
        {"id": uid, "keys": [], "content": content, "enabled": True, "constant": True,
         "insertion_order": 100, "extensions": {"position": position}}
        for uid, (content, position) in enumerate(entries, start=1)]}


CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "A field medic.", "personality": "", "scenario": "",
    "first_mes": "Hold still.", "alternate_greetings": [], "mes_example": "",
    "system_prompt": "", "post_history_instructions": "", "tags": [], "extensions": {},
    "character_book": _book("Clinic", ("[MIRA-LORE] The clinic floods in spring.", 0),
                            ("{{char}}: [MIRA-EXAMPLE] Hold the lamp.", 5))}}


def test_each_member_reads_only_its_own_cards_book(store, alice, use_stub):
    english(store)
    instance_id = group_create(store, alice, CARD, character_book=_book(
        "Docks", ("[ROOK-LORE] The docks close at dusk.", 1)))
    group_turn(store, instance_id)
    mira, rook = (str(use_stub.requests[i]["messages"]) for i in (-2, -1))
    assert "[MIRA-LORE]" in mira and "[MIRA-EXAMPLE]" in mira and "[ROOK-LORE]" not in mira
    assert "[ROOK-LORE]" in rook
    assert "[MIRA-LORE]" not in rook and "[MIRA-EXAMPLE]" not in rook
