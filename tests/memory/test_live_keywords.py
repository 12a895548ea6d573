"""A turn played while an import's fill holds the memory-jobs thread is keyword-searchable at
once, and the later sync embeds it without a duplicate (issue 30)."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from chat.history_manager import edits as history
from chat.history_manager import reads as history_read
from chat.play.turn import turn_run
from memory import runtime
from memory.keyword_index.live import live_drain
from memory.recall.rag import query_user_history
from tests.memory.memory_turns import memory_turn_run
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_reply_is_found_while_the_fill_still_holds_the_worker(store, instance, memory_on,
                                                                use_stub):
    release = threading.Event()
    runtime.schedule(release.wait, 60)  # a long fill job on the single memory-jobs thread
    try:
        result, _ = asyncio.run(memory_turn_run(store, instance, "Where did you hide the lantern?"))
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
        asyncio.run(memory_turn_run(store, instance, said))
        live_drain()
        hits = query_user_history("Who breeds alpacas near Cusco?", instance,
                                  index=runtime.index_for(store), force=True, k=5).hits
        assert any(hit.text == said for hit in hits)
    finally:
        release.set()
    runtime.drain()


def _row(store, instance_id, session_id, content):
    page = history_read.messages_page(store, instance_id=instance_id, session_key=session_id,
                                      query=content, page_size=1000)
    return next(row for row in page["rows"] if row["content"] == content)


def _recalled(store, instance, question):
    return [hit.text for hit in query_user_history(
        question, instance, index=runtime.index_for(store), force=True, k=10).hits]


def test_an_edited_or_deleted_line_is_followed_at_once_while_the_fill_holds_the_worker(
        store, instance, memory_on, use_stub):
    kept = "I buried the silver key under the old oak by the mill."
    dropped = "My neighbour Bartholomew collects antique barometers."
    result, _ = asyncio.run(memory_turn_run(store, instance, kept))
    asyncio.run(memory_turn_run(store, instance, dropped))
    runtime.drain()  # both turns embedded: the dense side holds their old text
    session = result.session_id
    release = threading.Event()
    runtime.schedule(release.wait, 60)  # a long fill job on the single memory-jobs thread
    try:
        row = _row(store, instance, session, kept)
        edited = "I buried the copper compass under the old oak by the mill."
        history.message_edit(store, instance_id=instance, session_id=session, index=row["index"],
                             fingerprint=row["fingerprint"], text=edited)
        row = _row(store, instance, session, dropped)
        history.message_delete(store, instance_id=instance, session_id=session,
                               index=row["index"], fingerprint=row["fingerprint"])
        live_drain()
        assert edited in _recalled(store, instance, "What did I bury under the old oak?")
        assert kept not in _recalled(store, instance, "Where is the silver key buried?")
        assert dropped not in _recalled(store, instance, "What does Bartholomew collect?")
    finally:
        release.set()
    runtime.drain()
    assert dropped not in _recalled(store, instance, "What does Bartholomew collect?")
    recalled = _recalled(store, instance, "What did I bury under the old oak?")
    assert edited in recalled and kept not in recalled


def test_a_regenerated_replys_old_text_is_not_recalled_while_the_fill_holds_the_worker(
        store, instance, memory_on, use_stub):
    old = "I hid the lantern in the hayloft above the stables."
    new = "I hid the lantern behind the chapel's broken organ."
    use_stub.script(Reply(old))
    asyncio.run(memory_turn_run(store, instance, "Where did you hide the lantern?"))
    runtime.drain()  # embedded: the dense side holds the first reply
    release = threading.Event()
    runtime.schedule(release.wait, 60)  # a long fill job on the single memory-jobs thread
    try:
        use_stub.script(Reply(new))
        asyncio.run(turn_run(store, instance_id=instance, user_text="", emit=_ignore,
                             regenerate=True))
        live_drain()
        recalled = _recalled(store, instance, "Where is the lantern hidden?")
        assert new in recalled and old not in recalled
    finally:
        release.set()
    runtime.drain()
    recalled = _recalled(store, instance, "Where is the lantern hidden?")
    assert new in recalled and old not in recalled


async def _ignore(event):
    return None
