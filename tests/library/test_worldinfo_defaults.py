"""World info left at its defaults behaves as in SillyTavern (issue 32 item 1): a book that
sets nothing scans the last 2 messages, chains entries by recursion and matches whole words;
an export writes only what its author set. Through real turns against the stub server."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from library.lore.services import lorebook_export
from tests.library.lore_turns import lore_turn_run, lorebook_link

pytestmark = pytest.mark.django_db(transaction=True)


def _sent(stub) -> str:
    return "\n".join(m["content"] for m in stub.requests[-1]["messages"])


async def test_a_book_that_sets_nothing_chains_entries_by_recursion(
        store, instance, character, use_stub):
    await sync_to_async(lorebook_link)(
        store, character,
        {"uid": 1, "keys": ["Eldoria"], "content": "ELDORIA-LORE: Eldoria's wolves follow Shadowfang."},
        {"uid": 2, "keys": ["Shadowfang"], "content": "SHADOWFANG-LORE: he waits in the glade."},
        {"uid": 3, "keys": ["glade"], "content": "GLADE-LORE: moonlit and silent."})
    await lore_turn_run(store, instance, "Tell me about Eldoria.")
    sent = _sent(use_stub)
    assert "ELDORIA-LORE" in sent and "SHADOWFANG-LORE" in sent and "GLADE-LORE" in sent


async def test_a_key_inside_a_longer_word_does_not_fire_by_default(
        store, instance, character, use_stub):
    await sync_to_async(lorebook_link)(store, character,
                                       {"uid": 1, "keys": ["love"], "content": "LOVE-LORE"})
    await lore_turn_run(store, instance, "She pulls on her gloves.")
    assert "LOVE-LORE" not in _sent(use_stub)
    await lore_turn_run(store, instance, "I love the snow.")
    assert "LOVE-LORE" in _sent(use_stub)


async def test_a_book_that_sets_nothing_scans_only_the_last_two_messages(
        store, instance, character, use_stub):
    await sync_to_async(lorebook_link)(store, character,
                                       {"uid": 1, "keys": ["lantern"], "content": "LANTERN-LORE"})
    await lore_turn_run(store, instance, "I light the lantern.")
    assert "LANTERN-LORE" in _sent(use_stub)
    await lore_turn_run(store, instance, "We walk on.")  # the lantern is 3 messages back now
    assert "LANTERN-LORE" not in _sent(use_stub)


async def test_a_book_that_sets_its_depth_keeps_it(store, instance, character, use_stub):
    await sync_to_async(lorebook_link)(store, character,
                                       {"uid": 1, "keys": ["lantern"], "content": "LANTERN-LORE"},
                                       scan_depth=4)
    await lore_turn_run(store, instance, "I light the lantern.")
    await lore_turn_run(store, instance, "We walk on.")
    assert "LANTERN-LORE" in _sent(use_stub)


def test_an_untouched_book_exports_no_scan_settings_its_author_never_set(store):
    from library.lore.services import lorebook_save

    lorebook_id = lorebook_save(store, data={"name": "Plain", "entries": [
        {"keys": ["a"], "content": "b"}]})
    card = lorebook_export(store.lorebook_read(lorebook_id), fmt="card")
    assert "scan_depth" not in card and "recursive_scanning" not in card
    set_id = lorebook_save(store, data={"name": "Set", "scan_depth": 4, "recursive": False,
                                        "entries": [{"keys": ["a"], "content": "b"}]})
    card = lorebook_export(store.lorebook_read(set_id), fmt="card")
    assert card["scan_depth"] == 4 and card["recursive_scanning"] is False
