"""A card's prompt scripts (SillyTavern's regex extension) reach the recalled lines too: a
block the card hides from the model ("<UpdateVariable>…</UpdateVariable>", a status bar) is not
sent back through the recalled section, and a line the conversation shows with the script run
is not recalled beside it (outside pass O2: an MVU card's reply came back whole in
"历史事件回忆", next to itself in the chat)."""

from __future__ import annotations

import asyncio
import json

import pytest

from chat.play.turn import turn_run
from memory import runtime
from tests.chat.hidden_state_card import REPLY, hidden_state_chat
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

def _turn(store, instance_id: str, text: str) -> None:
    async def emit(event):
        pass

    asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=emit))


def _asked(use_stub) -> list[dict]:
    """The turn's request (not a recap's after it)."""
    return next(request["messages"] for request in reversed(use_stub.requests)
                if "Do you remember" in str(request["messages"][-1].get("content")))


def _recalled(system: str) -> str:
    header = "=== Recalled events ==="
    start = system.find(header)
    if start < 0:
        return ""
    end = system.find("===", start + len(header))
    return system[start:end if end > 0 else None]


def test_a_recalled_line_is_sent_as_the_cards_prompt_scripts_leave_it(
        store, alice, memory_on, use_stub):
    store.module_write("history", {**store.module_read("history"), "trim_max_messages": 2})
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    config = store.config_read()  # the key's line out of the window: recalled, not shown
    config["preferences"]["conversation_load_all"] = False
    store.config_write(config)
    instance_id = hidden_state_chat(store, alice)
    use_stub.script(Reply(REPLY))
    _turn(store, instance_id, "Where is the brass key?")
    for said in ("The rain has stopped.", "Let us eat.", "The bread is warm."):
        use_stub.script(Reply("Yes."))
        _turn(store, instance_id, said)
    runtime.drain()
    use_stub.script(Reply("Under the mat."))
    _turn(store, instance_id, "Do you remember where the brass key is?")
    messages = _asked(use_stub)
    sent = json.dumps(messages, ensure_ascii=False)
    assert "under the blue mat" in _recalled(messages[0]["content"])
    assert "gold=30" not in sent


def test_a_line_the_chat_shows_scripted_is_not_recalled_beside_it(
        store, alice, memory_on, use_stub):
    instance_id = hidden_state_chat(store, alice)
    use_stub.script(Reply(REPLY))
    _turn(store, instance_id, "Where is the brass key?")
    runtime.drain()
    use_stub.script(Reply("Under the mat."))
    _turn(store, instance_id, "Do you remember where the brass key is?")
    messages = _asked(use_stub)
    assert [message["content"].strip() for message in messages
            if message["role"] == "assistant"] == ["The brass key is under the blue mat."]
    assert "under the blue mat" not in _recalled(messages[0]["content"])



def test_the_directors_events_are_sent_as_the_cards_prompt_scripts_leave_them(
        store, alice, background, memory_on, use_stub):
    """The fallback reminder lists this story's events (its lines among them): none brings
    back the hidden block."""
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    instance_id = hidden_state_chat(store, alice, background)
    use_stub.script(Reply(REPLY))
    _turn(store, instance_id, "Where is the brass key?")
    runtime.drain()
    for said in ("The rain has stopped.", "Let us eat.", "Do you remember the brass key?"):
        use_stub.script(Reply("Yes."))
        _turn(store, instance_id, said)
    system = _asked(use_stub)[0]["content"]
    events = system[system.index("[Events that already happened in this story]"):]
    assert "under the blue mat" in events and "gold=30" not in system
