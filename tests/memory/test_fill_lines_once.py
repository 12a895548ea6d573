"""A long import's background fill runs each line through e5 once (PERSONALAB_EMBED_LINES_ONCE_FROM,
1,000 lines by default), so 10,000 imported messages fill in under 5 minutes; an ordinary import
keeps each line embedded together with the line before it, the vectors recall was tuned on."""

from __future__ import annotations

import pytest

from memory import runtime
from memory.vectors import fill
from memory.vectors.sync import instance_sync
from personalab.lib.embedding import embeddings
from tests.memory.imported_chats import chat_lines_import

pytestmark = pytest.mark.django_db(transaction=True)

LINES = 12


@pytest.fixture(autouse=True)
def fill_chunks_of_4(monkeypatch):
    """Chunks of 4: the fill's size decides, not the size of one call."""
    monkeypatch.setattr("memory.vectors.sync.newest_first_chunks",
                        lambda runs: fill.newest_first_chunks(runs, size=4))


def _fill(client, auth, store, instance):
    chat_lines_import(client, auth, instance, LINES)
    instance_sync(store, runtime.index_for(store), instance_id=instance)


def _pairs(texts: list[str]) -> list[str]:
    return [text for text in texts if "\n" in text]


def test_a_long_fill_embeds_each_line_once(client, auth, store, instance,
                                           memory_on, no_background, encoded,
                                           monkeypatch):
    monkeypatch.setattr(embeddings, "LINES_ONCE_FROM", LINES)
    _fill(client, auth, store, instance)
    assert any("Maribel keeps three goats" in text for text in encoded)
    # Each line once, plus the line before each later chunk of 4 (its context).
    assert _pairs(encoded) == [] and len(set(encoded)) >= LINES
    assert len(encoded) <= len(set(encoded)) + LINES // 4 - 1


def test_an_ordinary_import_embeds_each_line_with_the_line_before(
        client, auth, store, instance, memory_on, no_background, encoded):
    _fill(client, auth, store, instance)
    assert len(_pairs(encoded)) >= LINES - 1


def test_a_long_fill_embeds_pairs_when_the_setting_is_off(client, auth, store,
                                                          instance, memory_on, no_background,
                                                          encoded, monkeypatch):
    monkeypatch.setattr(embeddings, "LINES_ONCE_FROM", 0)
    _fill(client, auth, store, instance)
    assert len(_pairs(encoded)) >= LINES - 1
