"""Fixtures of the library tests."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from library.lore import vector_store as lore_vector_store
from personalab.lib.embedding import embeddings
from tests.library.topic_vectors import topic_vector


@pytest.fixture
def passages(monkeypatch):
    """Every passage embedding, with the name of the thread that asked for it."""
    calls: list[tuple[str, str]] = []

    def embed(texts):
        calls.extend((threading.current_thread().name, text) for text in texts)
        return np.stack([topic_vector(text) for text in texts])

    monkeypatch.setattr(embeddings, "embed_passages", embed)
    monkeypatch.setattr(embeddings, "embed_queries",
                        lambda texts: np.stack([topic_vector(text) for text in texts]))
    yield calls
    assert lore_vector_store.drain(30)
