"""The messages a turn hands the world-info scan reach as deep as any entry reads: a card entry's
own depth in `extensions.scan_depth` (SillyTavern's convertCharacterBook reads it there), and
the message past a min-activations max depth that SillyTavern 1.12.6's last step reads."""

from __future__ import annotations

import pytest

from library.card_formats.cards import card_to_definition
from library.lore.scan_window import lore_scan_window
from tests.stub_llm import Reply
from tests.text_turns import english, solo_create, turn

pytestmark = pytest.mark.django_db(transaction=True)


def _card(*entries: dict, **book) -> dict:
    """A V2 card whose book entries are laid out as SillyTavern's card export writes them."""
    written = [{"id": uid, "keys": keys, "secondary_keys": [], "comment": tag, "content": tag,
                "constant": False, "selective": True, "insertion_order": 100, "enabled": True,
                "position": "after_char", "use_regex": True,
                "extensions": {"position": 1, "match_whole_words": None, "case_sensitive": None,
                               "depth": 4, "role": 0, "selectiveLogic": 0, "scan_depth": None,
                               **extensions}}
               for uid, (keys, tag, extensions) in enumerate(entries)]
    return {"spec": "chara_card_v2", "spec_version": "2.0",
            "data": {"name": "Cass", "description": "", "first_mes": "Hi.",
                     "character_book": {"name": "Cass", "entries": written, **book}}}


def _window(card: dict, **book) -> int | None:
    _, lorebook = card_to_definition(card)
    return lore_scan_window([{**lorebook, **book}])


def test_a_card_entrys_own_scan_depth_widens_the_window():
    card = _card((["harbor"], "DEEP", {"scan_depth": 5}), (["harbor"], "BOOK", {}))
    assert _window(card) == 5
    assert _window(_card((["harbor"], "BOOK", {}))) == 2  # SillyTavern's default depth


def test_min_activations_hand_over_the_message_past_the_max_depth():
    card = _card((["harbor"], "H", {}), scan_depth=1)
    assert _window(card, min_activations=2, min_activations_depth_max=3) == 4
    assert _window(card, min_activations=2) is None  # no max: the whole chat
    assert _window(card, min_activations_depth_max=3) == 1  # no minimum: no steps


def test_an_imported_cards_entry_fires_at_its_own_scan_depth_in_a_turn(store, alice, use_stub):
    # The book reads 2 messages; the entry's extensions.scan_depth 3 reads the player's first
    # line too. Only the book's depth was handed over, so it never fired.
    english(store)
    instance_id = solo_create(store, alice, _card((["harbor"], "DEEP-LORE", {"scan_depth": 3}),
                                                  (["harbor"], "BOOK-LORE", {})))
    use_stub.script(Reply("Aye."), Reply("Aye."))
    turn(store, instance_id, "The harbor is quiet.")
    turn(store, instance_id, "Hello.")
    sent = "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])
    assert "DEEP-LORE" in sent and "BOOK-LORE" not in sent


def test_the_min_activations_step_past_the_max_depth_reads_a_real_message(
        store, alice, use_stub):
    # Scan depth 1, max depth 2: SillyTavern scans depths 1, 2 and 3, and the harbor is 3
    # messages back (Hello, Aye, the harbor). The turn handed over only 2 messages.
    english(store)
    card = _card((["harbor"], "PORT-LORE", {}), (["nothing"], "NEVER", {}), scan_depth=1)
    instance_id = solo_create(store, alice, card)
    lorebook_id = store.character_read(store.instance_state_read(instance_id)["character_id"])[
        "lorebook_ids"][0]
    lorebook = store.lorebook_read(lorebook_id)
    store.lorebook_write(lorebook_id, {**lorebook, "min_activations": 2,
                                       "min_activations_depth_max": 2})
    use_stub.script(Reply("Aye."), Reply("Aye."))
    turn(store, instance_id, "The harbor is quiet.")
    turn(store, instance_id, "Hello.")
    sent = "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])
    assert "PORT-LORE" in sent
