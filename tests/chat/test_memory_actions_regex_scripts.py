"""Summarize, update memory, the rolling recaps and an aside ask the model about the chat as
a prompt shows it: a card's prompt script that hides a block from the model ("<UpdateVariable>…", an
MVU card's) hides it from these requests too, as SillyTavern's Summarize builds its request
through the chat's prompt (outside pass O2). The chat's files keep the text as written."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest

from chat.play.turn import turn_run
from chat.services.memory_actions import memory_action
from memory.summaries import summarize
from personalab.lib.filestore.store import FileStore
from tests.chat.hidden_state_card import REPLY, hidden_state_chat
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

EVENTS = json.dumps({"events": [{"summary": "Mira told where the key is.",
                                 "plot": "The key is under the mat."}]})


def _chat(store, alice) -> str:
    """A hidden-state chat of two played turns."""
    instance_id = hidden_state_chat(store, alice)

    async def emit(event):
        pass

    for said in ("Where is the brass key?", "Thanks."):
        asyncio.run(turn_run(store, instance_id=instance_id, user_text=said, emit=emit))
    return instance_id


def _sent(request: dict) -> str:
    return json.dumps(request["messages"], ensure_ascii=False)


def test_summarize_and_update_memory_ask_without_the_block_the_card_hides(
        store, alice, use_stub):
    use_stub.script(Reply(REPLY), Reply(REPLY))
    instance_id = _chat(store, alice)
    use_stub.script(Reply("Mira trusts the guest."))
    asyncio.run(memory_action(instance_id, "update_memory"))
    assert "under the blue mat" in _sent(use_stub.requests[-1])
    assert "gold=30" not in _sent(use_stub.requests[-1])
    use_stub.script(Reply(EVENTS))
    asyncio.run(memory_action(instance_id, "summarize"))
    assert "under the blue mat" in _sent(use_stub.requests[-1])
    assert "gold=30" not in _sent(use_stub.requests[-1])
    old = store.session_read(instance_id, "sess_001")
    assert REPLY in [line["content"] for line in old.lines if line.get("role")]


def test_a_rolling_recap_asks_without_the_block_the_card_hides(store, alice, use_stub):
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": True,
                                  "recap_every_n_rounds": 2})
    use_stub.script(Reply(REPLY), Reply(REPLY), Reply("Mira told the guest where the key is."))
    _chat(store, alice)
    [recap] = [request for request in use_stub.requests
               if "recap" in request["messages"][0]["content"]]
    assert "under the blue mat" in _sent(recap)
    assert "gold=30" not in _sent(recap)


def test_an_aside_sees_the_recent_lines_without_the_block_the_card_hides(
        store, alice, alice_client, use_stub):
    use_stub.script(Reply(REPLY), Reply(REPLY))
    instance_id = _chat(store, alice)
    use_stub.script(Reply("Fine."))
    response = alice_client.post("/api/v1/chat", {"instance_id": instance_id,
                                                  "query": "All good?", "mode": "aside"},
                                 content_type="application/json")
    assert response.status_code == 200, response.content
    assert "under the blue mat" in _sent(use_stub.requests[-1])
    assert "gold=30" not in _sent(use_stub.requests[-1])


def _loop_watched(monkeypatch) -> list[bool]:
    """Each run of the chat's scripts over lines for the model, noted as on an event loop or
    not: a card's scripts may take their whole second there, and the loop serves everyone."""
    on_loop: list[bool] = []

    def watched(real):
        def lines_for_model(store, **kwargs):
            shown = real(store, **kwargs)
            if shown is None:
                return None

            def run(lines):
                try:
                    asyncio.get_running_loop()
                    on_loop.append(True)
                except RuntimeError:
                    on_loop.append(False)
                return shown(lines)
            return run
        return lines_for_model

    for module in ("chat.services.memory_actions", "chat.play.recap_roll"):
        monkeypatch.setattr(f"{module}.lines_for_model",
                            watched(__import__(module, fromlist=["x"]).lines_for_model))
    return on_loop


def test_the_scripts_run_on_the_lines_of_a_memory_action_off_the_event_loop(
        store, alice, use_stub, monkeypatch):
    """Seventh red-team pass: summarize, update memory and the rolling recap ran the card's
    scripts (up to their 1 s budget) on the server's event loop, holding every account."""
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": True,
                                  "recap_every_n_rounds": 2})
    on_loop = _loop_watched(monkeypatch)
    use_stub.script(Reply(REPLY), Reply(REPLY), Reply("Mira told the guest where the key is."))
    instance_id = _chat(store, alice)
    use_stub.script(Reply("Mira trusts the guest."))
    asyncio.run(memory_action(instance_id, "update_memory"))
    use_stub.script(Reply(EVENTS))
    asyncio.run(memory_action(instance_id, "summarize"))
    assert len(on_loop) == 3 and not any(on_loop), on_loop


def test_a_memory_action_reads_and_writes_the_session_off_the_event_loop(
        store, alice, use_stub, monkeypatch):
    """Seventh red-team pass: update memory and summarize read the whole session (and
    summarize wrote the next) in their coroutines: bob's update memory on his 40,000-message
    chat held every account's requests of the process 0.6 s, as often as he asked."""
    use_stub.script(Reply(REPLY), Reply(REPLY))
    instance_id = _chat(store, alice)
    on_loop: list[str] = []

    def watched(name):
        real = getattr(FileStore, name)

        def method(self, *args, **kwargs):
            try:
                asyncio.get_running_loop()
                on_loop.append(name)
            except RuntimeError:
                pass
            return real(self, *args, **kwargs)
        return method

    for name in ("session_read", "session_create"):
        monkeypatch.setattr(FileStore, name, watched(name))
    use_stub.script(Reply("Mira trusts the guest."))
    asyncio.run(memory_action(instance_id, "update_memory"))
    use_stub.script(Reply(EVENTS))
    asyncio.run(memory_action(instance_id, "summarize"))
    assert on_loop == []


def test_a_summarize_cancelled_while_it_writes_ends_its_writes_before_the_chat_is_unlocked(
        store, alice, use_stub, monkeypatch):
    """The writes on a thread: a request cancelled meanwhile (its client gone) must not let the
    instance lock go while the next session and the journal are still being written."""
    use_stub.script(Reply(REPLY), Reply(REPLY))
    instance_id = _chat(store, alice)
    writing, finished = threading.Event(), []
    real = summarize._summarized_write

    def slow_write(*args, **kwargs):
        writing.set()
        time.sleep(0.3)
        result = real(*args, **kwargs)
        finished.append(True)
        return result

    monkeypatch.setattr(summarize, "_summarized_write", slow_write)
    use_stub.script(Reply(EVENTS))

    async def cancelled_meanwhile():
        task = asyncio.ensure_future(memory_action(instance_id, "summarize"))
        await asyncio.to_thread(writing.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return list(finished)

    assert asyncio.run(cancelled_meanwhile()) == [True]
    assert store.instance_state_read(instance_id)["current_session_id"] != "sess_001"
