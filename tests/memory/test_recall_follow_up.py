"""A player's line that leans on the one before ("When did she get it?", "那我上司呢？", "no, I
mean the cat") is searched with that line too (memory/recall/follow_up.py)."""

from __future__ import annotations

import asyncio

import pytest

from chat.prompt.recall_section import player_before
from memory.recall.follow_up import follow_up_carried, leans_on_before
from tests.memory.memory_turns import memory_turn_run, trace_recalled
from tests.memory.recall_chats import FACT_USER, recall_chat_seed


@pytest.mark.parametrize("text", [
    "Where did she live again?", "What were they most excited about?", "how long was his shift?",
    "And did you get accepted?", "no, I mean the cat you got later", "What about Tom?",
    "那她生日呢？", "那我上司呢？", "他单位叫啥？", "不对，我是说我表姐的", "我表姐的呢？",
])
def test_a_line_that_leans_on_the_one_before(text):
    assert leans_on_before(text)


@pytest.mark.parametrize("text", [
    "When did Caroline go to the LGBTQ support group?", "What does Melanie do with her family?",
    "Okay, how are you doing today?", "Nothing much, you?", "Did Tom like his new phone?",
    "那个喜欢编程的人电话是多少？", "我表姐在哪上班呢？", "那天我们去的那家店叫什么？",
])
def test_a_line_that_asks_on_its_own(text):
    assert not leans_on_before(text)


def test_the_line_before_is_carried_as_one_question_and_only_its_end():
    carried = follow_up_carried("那我上司呢？", "我表弟生日是几号来着？")
    assert carried == "我表弟生日是几号来着， 那我上司呢？"
    assert follow_up_carried("When did Caroline move?", "Tell me about Sweden.") == ""
    assert follow_up_carried("When did she get it?", "") == ""
    long_before = "x " * 400 + "my grandmother's necklace."
    assert follow_up_carried("Where did she live?", long_before).startswith("x x")
    assert len(follow_up_carried("Where did she live?", long_before)) < 400


def test_the_line_before_is_the_players_own_not_the_current_one():
    lines = [{"role": "user", "content": "My sister got married."},
             {"role": "assistant", "content": "Congratulations!"},
             {"role": "user", "content": "And her birthday?"}]
    assert player_before(lines, "And her birthday?") == "My sister got married."
    assert player_before(lines[:2], "And her birthday?") == "My sister got married."
    assert player_before([], "And her birthday?") == ""


@pytest.mark.django_db(transaction=True)
def test_a_follow_up_that_names_nothing_recalls_through_the_line_before(store, instance,
                                                                       memory_on, use_stub):
    recall_chat_seed(store, instance)
    asyncio.run(memory_turn_run(store, instance, "I keep thinking about Jolene's puppy."))
    result, _ = asyncio.run(memory_turn_run(store, instance, "When did she get it?"))
    assert FACT_USER in trace_recalled(store, instance, result)
