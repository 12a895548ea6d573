"""Embedding input is bounded and a query never queues behind passage work."""

from __future__ import annotations

import threading

import numpy as np

from memory import embeddings
from memory.embeddings import text_pieces, texts_embed


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
