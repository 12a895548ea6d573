"""The prompt inspector of a reply that has not ended, or never will: the trace of what was sent
is written before the reply streams (a crash leaves it so) and completed when the turn ends."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async

from tests.stub_llm import Reply

STREAMING = "still being written"
INTERRUPTED = "The reply to this prompt was interrupted"


async def _turn_seen_midway(store, instance: str, seen) -> None:
    """A turn whose reply streams slowly; `seen(trace_id)` is awaited at its fifth token."""
    from chat.play.turn import turn_run

    tokens: list[dict] = []
    trace_ids: list[str] = []

    async def emit(event: dict) -> None:
        if event.get("type") != "token":
            return
        tokens.append(event)
        if len(tokens) == 5:
            trace_ids.append(store.session_read(instance, "sess_001").partial["trace_id"])
            await seen(trace_ids[0])

    result = await turn_run(store, instance_id=instance, user_text="Where is the key?",
                            emit=emit)
    assert trace_ids == [result.trace_id]


@pytest.mark.django_db(transaction=True)
async def test_a_streaming_replys_inspector_shows_what_was_sent_then_the_reply(
        alice_client, instance, store, use_stub):
    use_stub.script(Reply("The key is under the stone. " * 4, chunk_size=2, delay=0.02))
    pages: list[str] = []

    async def seen(trace_id: str) -> None:
        response = await sync_to_async(alice_client.get)(f"/traces/{trace_id}/")
        assert response.status_code == 200
        pages.append(trace_id)
        pages.append(response.content.decode())

    await _turn_seen_midway(store, instance, seen)
    trace_id, midway = pages
    assert STREAMING in midway and "Where is the key?" in midway and INTERRUPTED not in midway
    after = (await sync_to_async(alice_client.get)(f"/traces/{trace_id}/")).content.decode()
    assert STREAMING not in after and INTERRUPTED not in after
    assert "The key is under the stone. The key" in after and "llm_ms" in after


@pytest.mark.django_db(transaction=True)
async def test_a_reply_a_crash_cut_shows_its_prompt_and_what_was_kept(alice_client, instance,
                                                                      store, use_stub):
    """The files as a kill -9 at the fifth token leaves them (copied then, put back after)."""
    use_stub.script(Reply("Under the stone, by the well. " * 4, chunk_size=2, delay=0.02))
    session = store.session_path(instance, "sess_001")
    crashed: dict = {}

    async def seen(trace_id: str) -> None:
        await asyncio.sleep(0.05)  # the trace of what was sent is written beside the stream
        trace = store.trace_path(instance, trace_id)
        crashed.update(trace_id=trace_id, session=session.read_bytes(),
                       trace=trace.read_bytes(), trace_path=trace)

    await _turn_seen_midway(store, instance, seen)
    session.write_bytes(crashed["session"])
    crashed["trace_path"].write_bytes(crashed["trace"])
    page = (await sync_to_async(alice_client.get)(f"/traces/{crashed['trace_id']}/")).content
    page = page.decode()
    assert INTERRUPTED in page and "Where is the key?" in page
    kept = store.session_read(instance, "sess_001").lines[-1]
    assert kept["interrupted"] is True and kept["content"].startswith("Under")
    assert f"<pre>{kept['content']}</pre>" in page
    assert "Under the stone, by the well. " * 4 not in page
