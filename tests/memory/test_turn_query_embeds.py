"""A turn embeds each query text once per model: recall, the director's fallback, MiniLM's
search and every member of a group round share the rows (each searched the player's line and
embedded it again; on a busy machine a query embedding is most of a turn's own time)."""

from __future__ import annotations

import asyncio
from collections import Counter

import numpy as np
import pytest

from chat.services.instances import instance_create
from memory import runtime
from personalab.lib.embedding import embeddings
from tests.group_turns import turn_said
from tests.memory.recall_chats import WEDDING_FACT, WEDDING_SMALL_TALK
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = "What did I tell you about my sister's wedding?"


@pytest.fixture
def queries_run(monkeypatch) -> Counter:
    """The query texts e5's query engine and MiniLM ran, counted per (model, text)."""
    counted: Counter = Counter()
    engine = embeddings.model_load(role="query")
    real = engine.encode_sums

    def e5(texts, is_query=False):
        if is_query:
            counted.update(("e5", text) for text in texts)
        return real(texts, is_query)

    monkeypatch.setattr(engine, "encode_sums", e5)
    second = embeddings.second_load()
    if second is not None:
        real_second = second.encode

        def minilm(texts, *args, **kwargs):
            counted.update(("minilm", text) for text in texts)
            return real_second(texts, *args, **kwargs)

        monkeypatch.setattr(second, "encode", minilm)
    return counted


def test_a_round_embeds_the_players_question_once(
        store, alice, character, brenna, background, memory_on, use_stub,
        queries_run):
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    group = instance_create(store, owner=alice, character_ids=[character, brenna],
                            background_id=background, reply_order="everyone")
    for said in [(WEDDING_FACT, "How lovely!")] + WEDDING_SMALL_TALK * 2:
        use_stub.script(Reply(said[1]), Reply("Indeed."))
        asyncio.run(turn_said(store, group, said[0]))
    runtime.drain()
    queries_run.clear()
    use_stub.script(Reply("Oh, how wonderful for her."), Reply("So do I."))
    results = asyncio.run(turn_said(store, group, QUESTION))
    assert len(results) == 2
    searched = {store.trace_read(group, result.trace_id)["retrievals"]["query"]
                for result in results}
    assert len(searched) == 1  # both members searched the player's line ...
    query = searched.pop()
    assert queries_run[("e5", query)] == 1  # ... which was embedded once
    if embeddings.second_available():
        assert queries_run[("minilm", query)] == 1


def test_outside_a_turn_every_search_embeds(monkeypatch):
    runs = []
    monkeypatch.setattr(embeddings, "_texts_rows",
                        lambda texts, is_query, variant: runs.append(texts)
                        or np.ones((len(texts), 3), dtype=np.float32))
    embeddings.texts_embed(["a question"], is_query=True)
    embeddings.texts_embed(["a question"], is_query=True)
    with embeddings.queries_once():
        first = embeddings.texts_embed(["a question", "another"], is_query=True)
        first[0, 0] = 5.0  # a caller's change to its rows is its own
        with embeddings.queries_once():
            again = embeddings.texts_embed(["another", "a question"], is_query=True)
    assert runs == [["a question"], ["a question"], ["a question", "another"]]
    assert again.tolist() == [[1.0] * 3, [1.0] * 3]
