"""Each linked lorebook's first PERSONALAB_LORE_VECTOR_ENTRIES_MAX vectorized entries are scored,
as a save embeds them: a cap across all of a chat's books together once left a second book's
vectors, on disk since its save, never compared with the chat (issue 29)."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from library.character_services import character_save
from library.lore import vector_store as lore_vector_store
from library.lore.services import lorebook_save
from tests.library.lore_turns import lore_fired_problems, lore_turn_run

pytestmark = pytest.mark.django_db(transaction=True)

TOWERS = [{"uid": n, "keys": [f"rune{n}"], "vectorized": True,
           "content": f"Entry {n} about the old towers."} for n in range(1, 4)]
DRAGON = {"uid": 9, "keys": ["ossakar"], "vectorized": True,
          "content": "The red dragon Ossakar sleeps beneath the northern mountains."}


def _link_books(store, character_id, *books):
    ids = [lorebook_save(store, data={"name": name, "entries": entries})
           for name, entries in books]
    definition = store.character_read(character_id)
    character_save(store, data={**definition, "lorebook_ids": ids}, character_id=character_id)
    return ids


async def test_the_second_linked_books_vectorized_entry_fires_by_meaning(
        store, instance, character, use_stub, passages, settings, alice_client):
    settings.PERSONALAB_LORE_VECTOR_ENTRIES_MAX = 2
    towers, _dragons = await sync_to_async(_link_books)(
        store, character, ("Towers", TOWERS), ("Dragons", [DRAGON]))
    assert await sync_to_async(lore_vector_store.drain)(30)
    assert len(passages) == 3  # the save embedded each book's first 2: Towers 2, Dragons 1

    result = await lore_turn_run(store, instance, "Is it true a dragon sleeps up north?")
    fired, problems = lore_fired_problems(store, instance, result)
    assert fired[9].startswith("vectorized: the recent chat is 1.000 similar")
    assert "Ossakar sleeps" in use_stub.requests[-1]["messages"][0]["content"]
    # The one entry left out is counted, for its own book only.
    assert problems == [(f"lorebook {towers}: 3 vectorized entries, only the first 2 are "
                         "compared with the chat (PERSONALAB_LORE_VECTOR_ENTRIES_MAX)")]
    page = (await sync_to_async(alice_client.get)(f"/traces/{result.trace_id}/")).content.decode()
    assert f"lorebook {towers}: 3 vectorized entries, only the first 2" in page  # the inspector
    assert len(passages) == 3  # the turn embedded no entry


async def test_books_past_the_books_cap_fire_by_their_keys_and_are_counted(
        store, instance, character, use_stub, passages, settings):
    settings.PERSONALAB_LORE_VECTOR_BOOKS_MAX = 1
    await sync_to_async(_link_books)(store, character, ("Towers", TOWERS), ("Dragons", [DRAGON]))
    assert await sync_to_async(lore_vector_store.drain)(30)

    by_meaning = await lore_turn_run(store, instance, "Is it true a dragon sleeps up north?")
    fired, problems = lore_fired_problems(store, instance, by_meaning)
    assert 9 not in fired
    assert problems == [("1 vectorized entries of 1 more lorebooks: only the first 1 "
                         "lorebooks' are compared with the chat, these fire by their keys "
                         "only (PERSONALAB_LORE_VECTOR_BOOKS_MAX)")]
    by_key = await lore_turn_run(store, instance, "Tell me about Ossakar.")
    assert lore_fired_problems(store, instance, by_key)[0][9].startswith("key 'ossakar'")
