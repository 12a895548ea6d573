"""A line only the keyword side holds yet (a turn played while an import's fill holds the
memory worker) is recalled as a line of its conversation: with its instance, so the lines around
it come along, as they do for an embedded line (issue 30)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from memory import runtime
from memory.keyword_index.live import live_drain
from memory.recall import unembedded
from memory.recall.passages import lines_near
from memory.recall.rag import query_user_history
from memory.recall.unembedded import UNEMBEDDED_MAX
from memory.vectors.index import MemoryIndex
from personalab.lib.embedding import embeddings
from tests.memory.memory_turns import memory_turn_run

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_line_not_embedded_yet_comes_with_the_reply_after_it(store, instance, memory_on,
                                                              use_stub):
    said = "My cousin Theodora breeds alpacas near Cusco."
    release = threading.Event()
    runtime.schedule(release.wait, 60)  # a long fill job on the single memory-jobs thread
    try:
        asyncio.run(memory_turn_run(store, instance, said))
        live_drain()
        index = runtime.index_for(store)
        hits = query_user_history("Who breeds alpacas near Cusco?", instance, index=index,
                                  force=True, k=5).hits
        line = next(hit for hit in hits if hit.text == said)
        assert line.metadata["instance_id"] == instance
        after = lines_near(index, [line])[line.key].after
        assert after is not None and after.metadata["role"] == "assistant"
    finally:
        release.set()
    runtime.drain()


OLD_SESSION = [
    {"role": "user", "content": "How was your weekend?", "turn": 1, "timestamp": "t",
     "speaker": "Mara"},
    {"role": "assistant", "content": "My grandmother taught me her sourdough bread on Sunday.",
     "turn": 1, "timestamp": "t", "speaker": "Ines"},
    {"role": "user", "content": "That sounds lovely.", "turn": 2, "timestamp": "t",
     "speaker": "Mara"},
    {"role": "assistant", "content": "It was, the kitchen smelled wonderful.", "turn": 2,
     "timestamp": "t", "speaker": "Ines"},
]
NEWER_LINES = [
    "I baked croissants with my aunt last month.", "The bakery on Elm sells rye loaves.",
    "My cousin showed me how to knead dough.", "We made pizza from scratch on Friday.",
    "Grandpa always made pancakes for breakfast.", "I want to learn to make bagels.",
    "The pastry class starts in June.", "My mother's apple pie recipe is a secret.",
    "Flour prices went up again.", "I burnt the cookies yesterday.",
]


def _newer_session() -> list[dict]:
    return [{"role": "user" if n % 2 == 0 else "assistant", "content": text, "turn": n // 2 + 1,
             "timestamp": "t", "speaker": "Mara" if n % 2 == 0 else "Ines"}
            for n, text in enumerate(NEWER_LINES)]


def _bread_hit(index):
    hits = query_user_history("Who taught you to make bread?", "inst_fill", index=index,
                              force=True, k=5).hits
    return [hit.text for hit in hits], next(
        (hit for hit in hits if hit.text.startswith("My grandmother")), None)


def test_a_line_the_fill_has_not_embedded_yet_is_ranked_as_it_will_be_once_embedded(tmp_path):
    """An import's old lines wait for the fill (newest first); meanwhile a question about one
    ranks it with the dense cosine it will have, not as a line the dense side never saw."""
    index = MemoryIndex(chroma_path=tmp_path / "chroma_db")
    owner = {"instance_id": "inst_fill", "character_id": "char_x", "background_id": None}
    index.add_turns(**owner, session_id="sess_001", turns=OLD_SESSION, before=None,
                    keywords_only=True)
    index.add_turns(**owner, session_id="sess_002", turns=_newer_session(), before=None)
    assert index.vectors_lacking("inst_fill", ["turn_sess_001_1_assistant"]) == [
        "turn_sess_001_1_assistant"]

    during_order, during = _bread_hit(index)
    index.add_turns(**owner, session_id="sess_001", turns=OLD_SESSION, before=None)
    assert index.vectors_lacking("inst_fill", ["turn_sess_001_1_assistant"]) == []
    after_order, after = _bread_hit(index)

    assert after is not None and during is not None
    assert during_order == after_order
    assert during.score == pytest.approx(after.score, abs=1e-4)
    assert during.dense == pytest.approx(after.dense, abs=1e-4)


class _HeldByTheFill:
    """An engine lock a fill holds call after call: a turn that takes it waits."""

    def __enter__(self):
        raise AssertionError("a turn queued behind the fill's passage engine")

    def __exit__(self, *exc):
        return False


def test_a_turn_embeds_a_few_unembedded_lines_beside_the_fill_never_behind_it(
        tmp_path, monkeypatch):
    """Right after a big import nearly every candidate of a turn's search lacks vectors; the
    search embeds the keyword side's best UNEMBEDDED_MAX of them on the query side's engine
    (the fill holds the passage side's) and counts the others by their keywords."""
    index = MemoryIndex(chroma_path=tmp_path / "chroma_db")
    owner = {"instance_id": "inst_fill", "character_id": "char_x", "background_id": None}
    lines = [{"role": "user" if n % 2 == 0 else "assistant", "turn": n // 2 + 1,
              "content": f"The bakery sold {n} loaves of rye bread today.", "timestamp": "t"}
             for n in range(3 * UNEMBEDDED_MAX)]
    index.add_turns(**owner, session_id="sess_001", turns=lines, before=None, keywords_only=True)
    index.query_embed("warm")  # both engines built before the fill's lock is taken
    monkeypatch.setitem(embeddings._locks, "passage", _HeldByTheFill())
    monkeypatch.setitem(embeddings._second_locks, "passage", _HeldByTheFill())
    embedded = []
    real = unembedded.passages_embed
    monkeypatch.setattr(unembedded, "passages_embed",
                        lambda embedder, texts, contexts: embedded.extend(texts)
                        or real(embedder, texts, contexts))
    result = query_user_history("How many loaves of rye bread did the bakery sell?",
                                "inst_fill", index=index, force=True, k=3 * UNEMBEDDED_MAX)
    assert result.warning is None
    assert len(result.hits) == 3 * UNEMBEDDED_MAX
    assert len(embedded) == UNEMBEDDED_MAX
