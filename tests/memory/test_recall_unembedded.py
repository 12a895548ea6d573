"""A line only the keyword side holds yet (a turn played while an import's fill holds the
memory worker) is recalled as a line of its conversation: with its instance, so the lines around
it come along, as they do for an embedded line (issue 30)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from memory import runtime
from memory.live_keywords import live_drain
from memory.passages import lines_near
from memory.rag import query_user_history
from tests.memory.test_memory_flow import _turn

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_line_not_embedded_yet_comes_with_the_reply_after_it(store, instance, memory_on,
                                                              use_stub):
    said = "My cousin Theodora breeds alpacas near Cusco."
    release = threading.Event()
    runtime.schedule(release.wait, 60)  # a long fill job on the single memory-jobs thread
    try:
        asyncio.run(_turn(store, instance, said))
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
