"""A turn played while an import's fill holds the memory-jobs thread is keyword-searchable at
once, and the later sync embeds it without a duplicate (issue 30)."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from memory import runtime
from memory.live_keywords import live_drain
from memory.rag import query_user_history
from tests.memory.test_memory_flow import _turn

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_reply_is_found_while_the_fill_still_holds_the_worker(store, instance, memory_on,
                                                                use_stub):
    release = threading.Event()
    runtime.schedule(release.wait, 60)  # a long fill job on the single memory-jobs thread
    try:
        result, _ = asyncio.run(_turn(store, instance, "Where did you hide the lantern?"))
        live_drain()
        path = store.session_path(instance, result.session_id)
        reply = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
        assert reply["role"] == "assistant"
        hits = query_user_history(reply["content"], instance, index=runtime.index_for(store),
                                  force=True, k=5).hits
        assert any(hit.text == reply["content"] for hit in hits)
    finally:
        release.set()
    runtime.drain()
    hits = query_user_history(reply["content"], instance, index=runtime.index_for(store),
                              force=True, k=10).hits
    texts = [hit.text for hit in hits]
    assert len(texts) == len(set(texts))


def test_the_players_own_line_is_found_while_the_fill_still_holds_the_worker(
        store, instance, memory_on, use_stub):
    said = "My cousin Theodora breeds alpacas near Cusco."
    release = threading.Event()
    runtime.schedule(release.wait, 60)  # a long fill job on the single memory-jobs thread
    try:
        asyncio.run(_turn(store, instance, said))
        live_drain()
        hits = query_user_history("Who breeds alpacas near Cusco?", instance,
                                  index=runtime.index_for(store), force=True, k=5).hits
        assert any(hit.text == said for hit in hits)
    finally:
        release.set()
    runtime.drain()
