"""A line the player says again: in Chinese a quote is counted in words (two characters
each), so lines that only share a stock phrase with the message are not taken for the line
quoted back and put before it (memory/recall/turn.py, quoted_run)."""

from __future__ import annotations

import asyncio

import pytest
from django.core.management import call_command

from memory.recall.turn import _quote_shingles, quoted_run
from tests.memory.memory_turns import memory_turn_run, trace_recalled, window_newest_keep

pytestmark = pytest.mark.django_db(transaction=True)

SAID = "项目启航会的地点是浙江杭州。"
# Other lines ending in the same eight characters ("的地点是浙江杭州").
ALIKE = ["销售年度盛典的地点是浙江杭州。", "自行车速度挑战的地点是浙江杭州。",
         "骑行美食文化节的地点是浙江杭州。", "公司年会的地点是浙江杭州。"]
FILLER = ["今天天气不错。", "我晚上想吃面条。", "周末去爬山吧。"]


def test_a_stock_phrase_of_eight_characters_is_not_a_quote():
    shingles = _quote_shingles(f"对了，{SAID}")
    assert quoted_run(ALIKE[0], shingles) == (4.0, 8)
    assert quoted_run(SAID, shingles) == (6.5, 13)
    english = _quote_shingles("What did I tell you about this? Jolene adopted a puppy named")
    assert quoted_run("Jolene adopted a puppy named Susie.", english) == (5.0, 5)


def test_the_line_said_again_comes_before_lines_sharing_a_stock_phrase(
        store, instance, memory_on, use_stub):
    window_newest_keep(store, 4)
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    lines = ALIKE[:2] + [SAID] + ALIKE[2:] + FILLER * 4
    with store.instance_lock(instance):
        for turn, user in enumerate(lines, start=1):
            for role, text in (("user", user), ("assistant", "嗯，我记下了。")):
                store.session_append(instance, "sess_001", {
                    "role": role, "content": text, "turn": turn,
                    "timestamp": f"2025-10-16T10:{turn:02d}:00Z"})
    call_command("reindex", "--memory")
    result, _ = asyncio.run(memory_turn_run(store, instance, f"对了，{SAID}"))
    assert trace_recalled(store, instance, result)[0] == SAID


ASKED_BEFORE_WORD = "ah you want to get gold before the ranked reset?"
EARLIER_PROBE = ("What did I tell you about this? ah that's cool. I used to play a lot of "
                 "competitive video game tournaments.")


def test_a_question_quoted_back_is_recalled_though_it_holds_a_word_of_remembering(
        store, instance, memory_on, use_stub):
    """"before" also asks to remember ("we talked about it before?"): a question of the
    player's that holds it was dropped as meta-talk even when quoted back whole; and the words
    of asking ("What did I tell you about this?") are not a quote of an earlier message that
    asked the same way (bench/play_long.py, REALTALK Chat_10 at 2,048)."""
    window_newest_keep(store, 4)
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    lines = [("Ranked is fun this season.", "I play support mostly."),
             (ASKED_BEFORE_WORD, "Yes, gold gives a border on the character card."),
             (EARLIER_PROBE, "Tournaments sound intense.")] + [
        ("The rain stopped at noon.", "Good, we can walk the dog."),
        ("I cooked pasta tonight.", "That sounds tasty.")] * 3
    with store.instance_lock(instance):
        for turn, pair in enumerate(lines, start=1):
            for role, text in zip(("user", "assistant"), pair):
                store.session_append(instance, "sess_001", {
                    "role": role, "content": text, "turn": turn,
                    "timestamp": f"2025-10-16T10:{turn:02d}:00Z"})
    call_command("reindex", "--memory")
    result, _ = asyncio.run(memory_turn_run(store, instance,
                                            f"What did I tell you about this? {ASKED_BEFORE_WORD}"))
    assert trace_recalled(store, instance, result)[0] == ASKED_BEFORE_WORD
