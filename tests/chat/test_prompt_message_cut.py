"""The character's last reply larger than what the conversation's room has left is cut in the
middle, not dropped whole: the model reads how it began and how it ended, and the player's answer
to it makes sense (findings long-chat F6). Older messages still fill the other half of the room."""

from __future__ import annotations

import pytest
from django.utils import translation

from chat.inspector.names import note_named
from chat.prompt.assemble import prompt_build
from chat.prompt.message_cut import MESSAGE_CUT_MARK, text_middle_cut
from chat.prompt.templates import TemplateStore
from personalab.lib.tokens import count_tokens
from tests.chat.prompt_inputs import make_config, make_inputs, make_lines

ROOM = 600
LONG_REPLY = ("（推开门）北区的仓库空了。" + "他们把每一箱罐头都搬走了，只留下墙上的记号。" * 400
              + "今晚十点，我们在北门见。")


@pytest.fixture
def templates(tmp_path):
    return TemplateStore(tmp_path / "prompt_templates").get("zh")


def lines_with(before_newest: dict) -> list[dict]:
    lines = make_lines(5)
    lines[-1]["turn"] = 7
    return [*lines[:-1], before_newest, lines[-1]]


def conversation_of(result):
    return next(s for s in result.sections if s.name == "conversation")


def test_the_characters_last_reply_larger_than_the_room_is_cut_in_the_middle(templates):
    lines = lines_with({"role": "assistant", "content": LONG_REPLY, "turn": 6})

    result = prompt_build(make_inputs(lines=lines, section_budgets={"conversation": ROOM}),
                          templates)

    reply = result.messages[-2]
    assert reply["role"] == "assistant" and MESSAGE_CUT_MARK in reply["content"]
    assert reply["content"].startswith("（推开门）北区的仓库空了。")
    assert reply["content"].endswith("今晚十点，我们在北门见。")
    assert count_tokens(reply["content"]) <= ROOM // 2
    assert result.messages[-1]["content"] == "你还记得我们之前的约定吗？"
    # The other half of the room still holds the turns before it.
    assert [m["content"] for m in result.messages[-6:-2]] == ["问题4", "回答4", "问题5", "回答5"]
    conversation = conversation_of(result)
    assert conversation.cut and "the message before the newest cut in the middle" in \
        conversation.note


def test_a_players_text_before_the_newest_is_still_left_out_whole(templates):
    lines = lines_with({"role": "user", "content": LONG_REPLY, "turn": 6})

    result = prompt_build(make_inputs(lines=lines, section_budgets={"conversation": ROOM}),
                          templates)

    assert all("北区的仓库" not in m["content"] for m in result.messages[1:])
    assert "1 message(s) larger than the whole budget left out" in \
        conversation_of(result).note


def test_a_reply_that_fits_is_sent_whole(templates):
    lines = lines_with({"role": "assistant", "content": "今晚十点，我们在北门见。", "turn": 6})

    result = prompt_build(make_inputs(lines=lines, section_budgets={"conversation": ROOM}),
                          templates)

    assert result.messages[-2]["content"] == "今晚十点，我们在北门见。"
    assert not conversation_of(result).cut


def test_a_text_cut_in_the_middle_keeps_within_its_tokens():
    assert text_middle_cut("short", 10) == "short"
    for tokens in (48, 200, 1000):
        cut = text_middle_cut(LONG_REPLY, tokens)
        assert count_tokens(cut) <= tokens and MESSAGE_CUT_MARK in cut
        assert count_tokens(cut) > tokens * 0.6  # not much shorter than it may be


def test_the_cut_note_reads_in_chinese():
    note = "the message before the newest cut in the middle to 290 of its 10222 tokens"
    with translation.override("zh-hans"):
        assert note_named(note) == "最新消息之前的那条消息从中间截短为 290 个 token（原有 10222 个）"


def test_a_cut_reply_the_trimming_leaves_out_is_not_said_to_be_cut(templates):
    lines = lines_with({"role": "assistant", "content": LONG_REPLY, "turn": 6})
    inputs = make_inputs(lines=lines, section_budgets={"conversation": ROOM},
                         config=make_config(load_all=False),
                         trimming={"max_messages": 10, "max_chars": 100})

    result = prompt_build(inputs, templates)

    assert all("北区的仓库" not in m["content"] for m in result.messages[1:])
    assert "cut in the middle" not in conversation_of(result).note
