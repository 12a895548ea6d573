"""Recall in play (issue 30 item 2): the live turn searches memory on every player line, the
way people ask, through real turns against the stub server and a real index."""

from __future__ import annotations

import asyncio

import pytest
from django.core.management import call_command

from memory.recall_turn import asked_parts, content_words
from tests.test_memory_flow import _turn

pytestmark = pytest.mark.django_db(transaction=True)

FACT_USER = "Jolene adopted a puppy named Susie last spring, right after the flood."
FACT_REPLY = "Susie the puppy sleeps on Jolene's boots every night."
META = "Do you remember when we talked about reminders and memories?"
FILLER = [("The market was loud this morning.", "I bought bread and apples there."),
          ("Rain is coming from the west.", "Then we should fix the roof soon."),
          ("My cousin sent a letter.", "What did the letter say about the harvest?")]


def _seed(store, instance_id, *, turns=24, fact_at=4, meta_at=9):
    # A recap request would take the last request's place in the stub's log.
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    with store.instance_lock(instance_id):
        for turn in range(1, turns + 1):
            user, reply = (FACT_USER, FACT_REPLY) if turn == fact_at else (
                (META, "We did, about the river.") if turn == meta_at
                else FILLER[turn % len(FILLER)])
            for role, text in (("user", user), ("assistant", reply)):
                store.session_append(instance_id, "sess_001", {
                    "role": role, "content": text, "turn": turn,
                    "timestamp": f"2025-10-16T10:{turn:02d}:00Z"})
    call_command("reindex", "--memory")


def _recalled(store, instance_id, result) -> list[str]:
    trace = store.trace_read(instance_id, result.trace_id)
    return [hit["text"] for hit in trace["retrievals"]["hits"]]


def test_a_plain_question_recalls_the_fact_without_a_trigger_word(store, instance, memory_on,
                                                                   use_stub):
    _seed(store, instance)
    result, _ = asyncio.run(_turn(store, instance, "When did Jolene adopt Susie?"))
    recalled = _recalled(store, instance, result)
    assert any("adopted a puppy named Susie" in text for text in recalled)
    system = use_stub.requests[-1]["messages"][0]["content"]
    assert "adopted a puppy named Susie" in system


def test_the_words_of_asking_never_steer_the_search(store, instance, memory_on, use_stub):
    _seed(store, instance)
    result, _ = asyncio.run(_turn(store, instance,
                                  "Do you remember? When did Jolene adopt Susie?"))
    recalled = _recalled(store, instance, result)
    assert any("adopted a puppy named Susie" in text for text in recalled)
    assert META not in recalled  # the player's own earlier question about remembering


def test_small_talk_adds_no_recalled_lines(store, instance, memory_on, use_stub):
    _seed(store, instance)
    result, _ = asyncio.run(_turn(store, instance, "Okay, how are you doing today?"))
    assert _recalled(store, instance, result) == []


def test_recalled_lines_are_never_duplicates_nor_the_question_itself(store, instance,
                                                                     memory_on, use_stub):
    _seed(store, instance)
    question = "What did the letter from my cousin say about the harvest?"
    result, _ = asyncio.run(_turn(store, instance, question))
    recalled = _recalled(store, instance, result)
    assert len(recalled) == len(set(recalled))  # the filler lines repeat in the chat
    assert question not in recalled


def test_a_question_made_only_of_asking_has_nothing_of_its_own_to_search():
    assert asked_parts("Do you remember?") == []
    assert asked_parts("你还记得吗？") == []
    assert asked_parts("Do you remember? When did Jolene adopt Susie?") == [
        "When did Jolene adopt Susie?"]
    assert content_words("How are you doing today?") == set()
    assert content_words("When did Jolene adopt Susie?") == content_words("Jolene adopted Susie")
