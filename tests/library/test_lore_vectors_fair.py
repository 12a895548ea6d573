"""Lore vectors are embedded one book at a time in turn, not first come first served: one
account's 1,000-entry book once held every other book's vectors behind it (issue 29). A deleted
book's entries are no longer embedded."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from library.lore import vector_store as lore_vector_store


@pytest.fixture
def model(monkeypatch):
    """A stand-in model that records what it embeds and waits for `release` the first time."""
    release = threading.Event()
    made: list[str] = []

    def embed(texts):
        release.wait(20)
        made.extend(texts)
        return np.ones((len(texts), 4), dtype=np.float32)

    monkeypatch.setattr(lore_vector_store, "_embedder", ("stand-in", embed))
    monkeypatch.setattr(lore_vector_store, "_max_chars", None)
    yield release, made
    release.set()
    assert lore_vector_store.drain(30)


def test_a_small_book_is_not_held_behind_a_big_one(tmp_path, model):
    release, made = model
    big = [f"big entry {n}" for n in range(60)]
    lore_vector_store.vectors_request(tmp_path, big, group="lore_big")
    lore_vector_store.vectors_request(tmp_path, ["small one", "small two"], group="lore_small")
    release.set()
    assert lore_vector_store.drain(30)
    assert made.index("small two") < 6  # between the big book's first entries, not after all 60
    assert sorted(made) == sorted([*big, "small one", "small two"])


def test_a_deleted_books_entries_are_not_embedded(tmp_path, model):
    release, made = model
    lore_vector_store.vectors_request(tmp_path, [f"gone {n}" for n in range(30)], group="lore_gone")
    lore_vector_store.vectors_request(tmp_path, ["kept"], group="lore_kept")
    assert lore_vector_store.vectors_forget(group="lore_gone") >= 28
    release.set()
    assert lore_vector_store.drain(30)
    assert "kept" in made and sum(text.startswith("gone") for text in made) <= 1
