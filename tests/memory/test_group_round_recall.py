"""In a round of several characters, each member answers the player's message: a member that
speaks after another recalls what the player asked about, not what the member before it said
(the second member's recall searched the first member's reply, so a fact the player asked for
reached only the first member's prompt)."""

from __future__ import annotations

import asyncio

import pytest

from chat.services.instances import instance_create
from memory import runtime
from tests.group_turns import turn_said
from tests.memory.recall_chats import WEDDING_FACT, WEDDING_SMALL_TALK
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def test_every_member_of_the_round_recalls_what_the_player_asked_about(
        store, alice, character, brenna, background, memory_on, use_stub):
    config = store.config_read()
    config["preferences"]["conversation_load_all"] = False
    store.config_write(config)
    store.module_write("history", {**store.module_read("history"), "trim_max_messages": 4})
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    group = instance_create(store, owner=alice, character_ids=[character, brenna],
                            background_id=background, reply_order="everyone")
    for said in [(WEDDING_FACT, "How lovely!")] + WEDDING_SMALL_TALK * 3:
        use_stub.script(Reply(said[1]), Reply("Indeed."))
        asyncio.run(turn_said(store, group, said[0]))
    runtime.drain()
    use_stub.script(Reply("Oh, how wonderful for her."), Reply("So do I."))
    results = asyncio.run(turn_said(store, group, "What did I tell you about my sister's wedding?"))
    assert len(results) == 2
    for result in results:
        hits = store.trace_read(group, result.trace_id)["retrievals"]["hits"]
        assert WEDDING_FACT in [hit["text"] for hit in hits], result.speaker
