"""SillyTavern's {{firstIncludedMessageId}}: the message id of the oldest chat message the
previous generation's prompt held (chat/play/first_included.py)."""

from __future__ import annotations

import asyncio

import pytest

from chat.play.turn import turn_run
from chat.services.instances import instance_create
from library.character_services import character_save

pytestmark = pytest.mark.django_db(transaction=True)


async def _quiet(event):
    pass


def test_it_is_the_oldest_message_id_the_last_turns_prompt_sent(store, alice, background,
                                                                use_stub):
    store.module_write("history", {**store.module_read("history"), "trim_max_messages": 2})
    config = store.config_read()
    config["preferences"] = {**config.get("preferences", {}), "conversation_load_all": False}
    store.config_write(config)
    character_id = character_save(store, data={
        "name": "Alserqi", "greeting": "Hi.",
        "base_persona": "FIRST=[{{firstIncludedMessageId}}]"})
    chat = instance_create(store, owner=alice, character_id=character_id,
                           background_id=background)

    def turn(text: str) -> str:
        asyncio.run(turn_run(store, instance_id=chat, user_text=text, emit=_quiet))
        return use_stub.requests[-1]["messages"][0]["content"]

    assert "FIRST=[]" in turn("one")  # no prompt built before in this session
    # The first prompt sent the greeting (0) and "one" (1); the second, two of 0..3: 2 and 3.
    assert "FIRST=[0]" in turn("two")
    sent = turn("{{firstIncludedMessageId}}")
    assert "FIRST=[2]" in sent and use_stub.requests[-1]["messages"][-1]["content"] == "2"
