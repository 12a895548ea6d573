"""Vectorized lore is embedded when its book is saved, in the background, and kept on disk: a
book of 200 vectorized entries once made its first turn embed them all while holding the
instance's lock (97-199 s, every other request of that chat waiting; issue 29)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from asgiref.sync import sync_to_async

from library.lore import vector_store as lore_vector_store
from personalab.lib.embedding import embeddings
from tests.library.lore_turns import lore_fired_problems, lore_turn_run, lorebook_link
from tests.library.topic_vectors import topic_vector

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_first_turn_with_200_entries_not_embedded_yet_does_not_wait_for_them(
        store, instance, character, use_stub, monkeypatch):
    release = threading.Event()
    threads: list[str] = []

    def blocked(texts):  # the model, busy for as long as the test likes
        threads.append(threading.current_thread().name)
        release.wait(20)
        return np.stack([topic_vector(text) for text in texts])

    monkeypatch.setattr(embeddings, "embed_passages", blocked)
    try:
        await sync_to_async(lorebook_link)(
            store, character,
            {"uid": 0, "keys": ["dragon"], "vectorized": True, "content": "DRAGON-LORE"},
            *({"uid": n, "keys": [f"rune{n}"], "vectorized": True,
               "content": f"Entry {n} about the old towers."} for n in range(1, 200)))
        result = await lore_turn_run(store, instance, "The dragon wakes.")
        fired, problems = lore_fired_problems(store, instance, result)
    finally:
        release.set()
        assert await sync_to_async(lore_vector_store.drain)(60)
    assert "DRAGON-LORE" in "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])
    assert fired[0].startswith("key 'dragon'")  # the entry still fires by its key
    assert any("200 vectorized entries are not embedded yet" in p for p in problems)
    assert set(threads) == {"lore-vectors"}  # never the turn's thread, which holds the lock


async def test_vectors_made_at_save_are_reused_by_turns_and_after_a_restart(
        store, instance, character, use_stub, passages, data_dir):
    await sync_to_async(lorebook_link)(
        store, character,
        {"uid": 1, "keys": ["ossakar"], "vectorized": True,
         "content": "The red dragon Ossakar sleeps beneath the northern mountains."},
        {"uid": 2, "keys": ["kessel"], "vectorized": True,
         "content": "The night train to Kessel leaves at midnight."})
    assert await sync_to_async(lore_vector_store.drain)(30)
    assert len(passages) == 2 and {name for name, _ in passages} == {"lore-vectors"}
    assert list((data_dir / "lore_vectors").rglob("*.f32"))  # kept on disk

    lore_vector_store.cache_forget()  # what a restart (or another server process) starts with
    result = await lore_turn_run(store, instance, "Is it true a dragon sleeps up north?")
    fired, problems = lore_fired_problems(store, instance, result)
    assert fired[1].startswith("vectorized: the recent chat is 1.000 similar")
    assert 2 not in fired and problems == []
    assert len(passages) == 2  # the turn embedded no entry


async def test_a_book_saved_before_vectors_were_kept_is_embedded_after_its_first_turn(
        store, instance, character, use_stub, passages, alice_client):
    lorebook_id = await sync_to_async(lorebook_link)(store, character)
    store.lorebook_write(lorebook_id, {"name": "Old", "entries": [
        {"uid": 1, "keys": ["ossakar"], "vectorized": True,
         "content": "The red dragon Ossakar sleeps beneath the northern mountains."}]})
    first = await lore_turn_run(store, instance, "Is it true a dragon sleeps up north?")
    fired, problems = lore_fired_problems(store, instance, first)
    assert 1 not in fired and "1 vectorized entries are not embedded yet" in problems[0]
    page = (await sync_to_async(alice_client.get)(f"/traces/{first.trace_id}/")).content.decode()
    assert 'id="lore-problems"' in page and "not embedded yet" in page  # the prompt inspector
    assert await sync_to_async(lore_vector_store.drain)(30)
    second = await lore_turn_run(store, instance, "Tell me about the dragon.")
    fired, problems = lore_fired_problems(store, instance, second)
    assert fired[1].startswith("vectorized:") and problems == []
