"""A question names the kind of fact ("what's my job?"), the line that told it the fact ("I work
as a radiographer"): the keyword side counts what a statement says instead as the question's
word, at a lower weight (memory/keyword_index/said_instead.py)."""

from __future__ import annotations

import numpy as np

from memory.keyword_index.bm25 import KeywordPart, bm25_scored
from memory.keyword_index.said_instead import Term, query_terms


def _statement_words(query: str) -> set[tuple[str, ...]]:
    return {run for term in query_terms(query) for run in term.instead}


def test_a_question_word_brings_the_words_a_statement_says_instead():
    assert Term(own=("job",), instead=(("work",), ("career",))) in query_terms("what's my job?")
    assert ("老家",) in _statement_words("我是哪里人来着？")
    assert ("女朋", "朋友") in _statement_words("我对象叫什么名字？")


def test_an_idiom_is_searched_by_the_statement_words_only():
    # "for a living" is not "live": "I live in Paris" holds none of it.
    term = next(term for term in query_terms("what do I do for a living?") if term.instead)
    assert term.own == () and ("work",) in term.instead


def test_what_a_thing_is_for_does_not_ask_for_every_line_about_work():
    # "干什么的" also asks what a thing is for; Chinese chat says 工作 and 上班 in most lines.
    assert ("工作",) not in _statement_words("我是干什么的来着？")
    assert ("工作",) in _statement_words("我的职业是什么？")


def test_other_words_stay_plain_terms():
    assert query_terms("which city did Mina move to?") == [
        Term(own=("citi",)), Term(own=("mina",)), Term(own=("move",))]


def _scores(lines: list[str], query: str) -> tuple[np.ndarray, np.ndarray, float]:
    part = KeywordPart("turns")
    for turn, text in enumerate(lines, start=1):
        # A session each: a line is scored with the lines before it in its session.
        part.add(f"turn_s{turn}_1_user", text, {"session_id": f"s{turn}", "turn": 1,
                                                "role": "user"})
    scores, held, full = bm25_scored([(part, np.ones(len(lines), dtype=bool))], query)
    return scores[0], held[0], full


def test_the_line_that_told_the_fact_holds_the_question_below_a_line_saying_its_word():
    scores, held, full = _scores(["I work as a night-shift radiographer.",
                                  "My brother hates his job at the bank.",
                                  "The weather is lovely today."], "what's my job?")
    assert scores[1] > scores[0] > scores[2] == 0
    assert held[0] == held[1] == full  # a statement's word covers the question's word
