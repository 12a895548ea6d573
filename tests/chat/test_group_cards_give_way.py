"""In a group's join mode with a small window, what gives way first when the prompt cannot
fit: the recalled lines shrink before any other member's joined card is left out (chat/play/context.py
context_prepare, then group_cards.prompt_fitted). SillyTavern has no recall and never drops a
member's card; a member's card is part of who is in the scene, the recall only a help."""

from __future__ import annotations

import asyncio

import pytest
from django.core.management import call_command

from chat.groups.round import conversation_turn
from chat.services.instances import instance_create
from chat.services.session_import import session_import
from tests.chat.long_chats import WORDS, st_chat
from tests.chat.mira_cards import NOTE_CARD
from tests.text_turns import card_import, english

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("model_lengths_forgotten")]

QUESTION = "Do you remember the lantern over the wet cobbles?"


async def _ignore(event):
    pass


def _group(store, alice, rook_words: int) -> tuple[str, str]:
    english(store)
    mira = card_import(store, NOTE_CARD)
    rook = card_import(store, NOTE_CARD, name="Rook", description="Rook runs the docks. "
                       + "ROOK-CARD " + WORDS * rook_words, personality="",
                       mes_example="")
    instance_id = instance_create(store, owner=alice, character_ids=[mira, rook],
                                  reply_order="everyone")
    session_import(store, instance_id=instance_id, data=st_chat(120))
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    call_command("reindex", "--memory")
    state = store.instance_state_read(instance_id)
    store.instance_state_write(instance_id, {**state, "generation_mode": "append",
                                             "generation": {"context_tokens": 2048}})
    return instance_id, mira


def _trace(store, instance_id, mira):
    results = asyncio.run(conversation_turn(store, instance_id=instance_id,
                                            user_text=QUESTION, emit=_ignore, speaker=mira))
    return store.trace_read(instance_id, results[0].trace_id)


def test_recall_shrinks_before_another_members_joined_card_gives_way(store, alice, use_stub,
                                                                      memory_on):
    """A 2,048-token window and Rook's ~1,100-token card: the joined prompt with the whole
    recall is over the limit. Recall shrinks (here to nothing) and Rook's card stays (with the
    cards given way first, Rook was left out and recall kept 405 tokens)."""
    instance_id, mira = _group(store, alice, rook_words=80)
    state = store.instance_state_read(instance_id)
    store.instance_state_write(instance_id, {**state, "generation_mode": "swap"})
    alone = _tokens(_trace(store, instance_id, mira))
    store.instance_state_write(instance_id, {**state, "generation_mode": "append"})

    trace = _trace(store, instance_id, mira)

    assert trace["card_join"]["left_out"] == []
    assert "ROOK-CARD" in str(use_stub.requests[-1]["messages"])
    assert alone["recalled"] > 0 and _tokens(trace).get("recalled", 0) < alone["recalled"]


def _tokens(trace) -> dict[str, int]:
    return {section["name"]: section["tokens"] for section in trace["sections"]}
