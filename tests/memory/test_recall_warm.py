"""A turn right after a server's start does not wait for what recall uses to be built: at most
RECALL_WARM_WAIT_SECONDS, then it goes on without recall, with the recall_unavailable warning
(memory/runtime.py `index_for_turn`, `recall_warm`). Played on a running server, the first
turn after a kill -9 and a restart waited 14-26 s in silence at load 12."""

from __future__ import annotations

import time

import pytest

from chat.prompt.recall_section import recall_prepare
from memory import runtime


@pytest.fixture
def warm_pending():
    runtime.recall_warm_pending()
    yield
    runtime._recall_warm.set()


def test_a_turn_waits_briefly_for_the_warm_up_then_goes_without_recall(store, settings,
                                                                        warm_pending,
                                                                        monkeypatch):
    settings.PERSONALAB_CHROMA_URL = ""
    store.module_write("memory", {"recall_enabled": True})
    monkeypatch.setattr(runtime, "RECALL_WARM_WAIT_SECONDS", 0.2)
    opened = []
    monkeypatch.setattr(runtime, "index_or_warning", lambda s: opened.append(s) or (None, None))
    started = time.monotonic()
    section = recall_prepare(store, instance_id="inst_001",
                             user_text="Do you remember the lighthouse key?",
                             lines=[], witnessed=lambda metadata: True, related_instance_ids=[],
                             newest_shown=0, memory_tokens=512)
    took = time.monotonic() - started
    assert 0.15 <= took < 2
    assert opened == []  # the store is not opened (nor waited for) by the turn
    warning = section.report["warning"]
    assert warning["category"] == "recall_unavailable" and "still loading" in warning["message"]
    assert section.report["hits"] == []


def test_the_warm_up_lets_turns_search_even_when_it_fails(store, warm_pending, monkeypatch):
    def broken(_store):
        raise RuntimeError("chromadb would not open")

    monkeypatch.setattr(runtime, "index_or_warning", broken)
    runtime.recall_warm(store)
    assert runtime._recall_warm.is_set()
    monkeypatch.setattr(runtime, "index_or_warning", lambda s: ("index", None))
    started = time.monotonic()
    assert runtime.index_for_turn(store, wait=5) == ("index", None)
    assert time.monotonic() - started < 1


def test_a_process_with_no_warm_up_never_waits(store, monkeypatch):
    """Tests, management commands and a server with PERSONALAB_EMBED_PRELOAD=0: as before."""
    monkeypatch.setattr(runtime, "index_or_warning", lambda s: ("index", None))
    assert runtime._recall_warm.is_set()
    assert runtime.index_for_turn(store, wait=5) == ("index", None)
