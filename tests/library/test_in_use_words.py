"""A delete refused while chats use the item, said in the reader's language
(library/in_use_words.py): the item, each chat as its player knows it, what to do first."""

from __future__ import annotations

import pytest
from django.utils import translation

from library.in_use_words import SENTENCES, in_use_words
from library.refusal_words import refusal_words

REFUSED = ('Character Bob is used by these chats: "Evening" with Bob & Ann; the chat with Bob '
           "started 2026-11-30; inst_x9; 3 more; 2 of other accounts; delete those chats first "
           "(an archived chat still plays it).")


def test_each_chat_of_the_list_is_said_and_an_id_stays_as_written():
    with translation.override("zh-hans"):
        said = in_use_words(REFUSED)
    assert said == ("角色 Bob 仍被这些对话使用：“Evening”（与 Bob & Ann）；"
                    "与 Bob 的对话（2026-11-30 开始）；inst_x9；另外 3 个；"
                    "其他账户的 2 个。请先删除这些对话（已归档的对话仍在使用它）。")


def test_a_background_has_its_own_advice():
    refused = ("Background 废土 is used by these chats: the chat with Alserqi; switch those chats "
               "to another background first.")
    with translation.override("zh-hans"):
        assert refusal_words(refused) == ("背景 废土 仍被这些对话使用：与 Alserqi 的对话。"
                                          "请先把这些对话换到另一个背景。")


def test_in_english_the_refusal_reads_word_for_word_as_raised():
    with translation.override("en"):
        assert refusal_words(REFUSED) == REFUSED


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_each_refusal_reads_as_a_sentence_in_each_language(language):
    with translation.override(language):
        said = [str(words) % {"name": "Bob", "chats": "x"} for words in SENTENCES.values()]
    assert all(text[0].isupper() or not text[0].isascii() for text in said), said
    assert all(text.endswith(("." if language == "en" else "。")) for text in said), said


@pytest.mark.parametrize("message", [
    "Character x is used by these chats: y; do something else first.",
    "Character x is not used; delete those chats first (an archived chat still plays it).",
    "Lorebook x is used by these chats: y; delete those chats first (an archived chat still "
    "plays it).",
])
def test_another_sentence_is_not_read_as_a_refused_delete(message):
    with translation.override("zh-hans"):
        assert in_use_words(message) is None
