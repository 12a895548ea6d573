"""Embedding input is bounded and a query never queues behind passage work."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from personalab.lib.embedding import embeddings
from personalab.lib.embedding.embeddings import text_pieces, texts_embed

# What the model gives and when: it runs on every call (tests/embedding_cache.py).
pytestmark = pytest.mark.embedding_uncached


def test_a_huge_reply_is_embedded_from_a_bounded_prefix_in_small_pieces():
    reply = "她推开门，雨还在下。" * 2_000_000  # 20 MB of text
    pieces = text_pieces(reply)
    assert sum(map(len, pieces)) == embeddings.MAX_PASSAGE_CHARS
    assert max(map(len, pieces)) <= embeddings.PIECE_CHARS
    assert "".join(pieces) == reply[:embeddings.MAX_PASSAGE_CHARS]
    # Pieces end at a sentence break when one is near the cut.
    assert all(piece.endswith("。") for piece in pieces)


def test_short_text_is_one_piece_and_blank_text_still_embeds():
    assert text_pieces("Hello there.") == ["Hello there."]
    assert text_pieces("   ") == ["-"]


def test_long_passage_vector_is_the_weighted_mean_of_its_pieces(monkeypatch):
    monkeypatch.setattr(embeddings, "MAX_PASSAGE_CHARS", 1500)
    first = "Caroline went to the LGBTQ support group on Sunday. " * 19
    second = "Melanie painted a sunrise over the lake last year. " * 10
    text = first + second + "ignored tail " * 1000
    whole = texts_embed([text], is_query=False)[0]
    pieces = text_pieces(text, limit=1500)
    parts = texts_embed(pieces, is_query=False)
    weights = np.array([len(p) for p in pieces], dtype=np.float32)
    mean = (parts * weights[:, None]).sum(axis=0)
    assert len(pieces) == 2 and "ignored" not in "".join(pieces)
    assert np.isclose(np.linalg.norm(whole), 1.0, atol=1e-4)
    assert float(whole @ (mean / np.linalg.norm(mean))) > 0.999


def test_a_query_does_not_wait_for_passage_work_in_progress():
    texts_embed(["warm"], is_query=True)
    done = threading.Event()
    # A passage call in progress (the indexing of a long reply) holds the passage engine.
    with embeddings._locks["passage"]:
        asker = threading.Thread(target=lambda: (texts_embed(["the lighthouse?"], is_query=True),
                                                 done.set()))
        asker.start()
        assert done.wait(30), "the query waited for the passage engine"
    asker.join()


QUESTION = "Caroline: Did you go to the lake with the kids last weekend?"
ANSWER = "Melanie: Yes, last Sunday! We painted the sunrise together."
THANKS = "Caroline: That sounds lovely."


def test_a_line_with_its_context_is_close_to_the_two_embedded_together(monkeypatch):
    monkeypatch.setattr(embeddings, "LINES_ONCE", True)
    together = texts_embed([f"{QUESTION}\n{ANSWER}", f"{ANSWER}\n{THANKS}"], is_query=False)
    rows = embeddings.default_embedder().embed_in_context([ANSWER, THANKS], [QUESTION, ANSWER])
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-4)
    assert (rows * together).sum(axis=1).min() > 0.95
    # Not just close to anything: each is nearest to its own pair.
    assert list((rows @ together.T).argmax(axis=1)) == [0, 1]


def test_a_chat_runs_each_line_through_the_model_once(monkeypatch, encoded):
    """An import of N lines costs the model N lines, not N pairs (each line is also the next
    one's context)."""
    engine = embeddings.model_load(role="passage")
    monkeypatch.setattr(embeddings, "LINES_ONCE", True)
    lines = [QUESTION, ANSWER, THANKS]
    rows = embeddings.default_embedder().embed_in_context(lines, [None, *lines[:-1]])
    assert sorted(encoded) == sorted(lines) and encoded.queries == []
    assert rows.shape == (3, engine.dim)
    alone = texts_embed([QUESTION], is_query=False)[0]
    assert float(rows[0] @ alone) > 0.999  # a line without context is the line alone


def test_by_default_a_line_is_embedded_together_with_its_context():
    rows = embeddings.default_embedder().embed_in_context([ANSWER, QUESTION], [QUESTION, None])
    together = texts_embed([f"{QUESTION}\n{ANSWER}", QUESTION], is_query=False)
    assert np.allclose(rows, together, atol=1e-5)


def test_an_imports_chunk_runs_each_line_once_and_a_turns_lines_run_as_pairs(encoded):
    """The fill of a long import (chunks of 256 lines) costs the model each line once, by default;
    a turn's own two lines keep the pair embedding (the closest rankings)."""
    lines = [f"Caroline: line {n} about the lake trip" for n in range(256)]  # a fill chunk
    with embeddings.fill_scope(embeddings.LINES_ONCE_FROM):  # of a long fill
        embeddings.default_embedder().embed_in_context(lines, [None, *lines[:-1]])
    assert sorted(encoded) == sorted(lines) and encoded.queries == []
    rows = embeddings.default_embedder().embed_in_context([ANSWER, THANKS], [QUESTION, ANSWER])
    together = texts_embed([f"{QUESTION}\n{ANSWER}", f"{ANSWER}\n{THANKS}"], is_query=False)
    assert np.allclose(rows, together, atol=1e-5)
