"""The keyword side scores a run of a term only at the lines holding it
(memory/keyword_index/bm25.py): its scores are those of BM25 computed over every line, to the
last bit, so no ranking changes. The reference below is that whole-corpus computation."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from memory.keyword_index.bm25 import (
    ALTERNATIVE_WEIGHT,
    CONTEXT_WEIGHT,
    K1,
    B,
    KeywordPart,
    bm25_scored,
)
from memory.keyword_index.said_instead import query_terms
from memory.keyword_index.tokens import text_tokenize

WORDS = ("I work as a nurse at the hospital", "my boss moved the night shift",
         "we grew up by the lake", "she was born in Ohio", "my wife is a teacher",
         "the dog chased a cat", "我在银行上班", "老家在遵义", "加班到很晚", "今天天气很好",
         "what did you eat", "my hometown has a river", "he is a programmer", "哈哈")
QUESTIONS = ("what's my job?", "what's my line of work again?", "where did I grow up?",
             "我在哪儿上班？", "我的家乡是哪里？", "what does my partner do for a living?",
             "Do you remember what Maria said about the lake?", "你还记得我们之前的约定吗？")


def _corpus(seed: int, count: int) -> KeywordPart:
    rng = random.Random(seed)
    part = KeywordPart("turns")
    for position in range(count):
        text = " ".join(rng.sample(WORDS, rng.randint(1, 3)))
        part.add(f"t{position}", text, {"session_id": f"s{position // 40}",
                                        "turn": position // 2, "role": "user"
                                        if position % 2 == 0 else "assistant"})
    for position in range(0, count, 7):  # written again: dead positions, relinked context
        part.add(f"t{position}", rng.choice(WORDS), {"session_id": f"s{position // 40}",
                                                      "turn": position // 2, "role": "user"})
    for position in range(3, count, 11):
        part.remove(f"t{position}")
    return part


def _dense_counts(part: KeywordPart, run: tuple[str, ...]) -> np.ndarray | None:
    count = len(part.ids)
    before = [np.where(np.frombuffer(b, dtype=np.int32) < 0, count,
                       np.frombuffer(b, dtype=np.int32)) for b in part.before]
    counts = None
    for token in run:
        if token not in part.postings:
            return None
        line = np.bincount(np.frombuffer(part.postings[token], dtype=np.int32),
                           minlength=count + 1)
        line[count] = 0
        found = line[:count].astype(np.float64)
        for positions in before:
            found += CONTEXT_WEIGHT * line[positions]
        counts = found if counts is None else np.minimum(counts, found)
    return counts


def _dense_scored(parts: list[tuple[KeywordPart, np.ndarray]], query: str):
    def idf(frequency: int) -> float:
        return math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))

    def holds(by_part) -> list[np.ndarray]:
        return [np.logical_or.reduce([c > 0 for c in runs if c is not None])
                if any(c is not None for c in runs) else np.zeros(len(p.ids), dtype=bool)
                for runs, (p, _) in zip(by_part, parts)]

    lengths = []
    for part, _ in parts:
        own = np.append(np.frombuffer(part.lengths, dtype=np.int32), 0)
        context = own[:len(part.ids)].astype(np.float64)
        for b in part.before:
            positions = np.frombuffer(b, dtype=np.int32)
            context += CONTEXT_WEIGHT * own[np.where(positions < 0, len(part.ids), positions)]
        lengths.append(context)
    total = sum(int(mask.sum()) for _, mask in parts)
    average = sum(float(c[mask].sum()) for c, (_, mask) in zip(lengths, parts)) / total or 1.0
    scores = [np.zeros(len(p.ids)) for p, _ in parts]
    held = [np.zeros(len(p.ids)) for p, _ in parts]
    full = 0.0
    for term in query_terms(query, tokenize=text_tokenize):
        weighed = ([(term.own, 1.0)] if term.own else []) + [
            (run, ALTERNATIVE_WEIGHT) for run in term.instead]
        runs = [[None if (c := _dense_counts(p, run)) is None else np.where(mask, c, 0)
                 for p, mask in parts] for run, _ in weighed]
        term_idf = idf(sum(int(h.sum()) for h in holds(list(zip(*runs)))))
        word = bool(term.own) and all(token.isascii() for token in term.own)
        full += term_idf if word else 0.0
        if not sum(int(h.sum()) for h in holds(list(zip(*runs)))):
            continue
        cap = idf(sum(int(h.sum()) for h in holds([(c,) for c in runs[0]]))) \
            if term.own else math.inf
        best = [np.zeros(len(p.ids)) for p, _ in parts]
        for (_, weight), by_part in zip(weighed, runs):
            run_idf = weight * min(idf(sum(int(h.sum()) for h in holds(
                [(c,) for c in by_part]))), cap)
            for line_best, tf, part_lengths in zip(best, by_part, lengths):
                if tf is not None:
                    np.maximum(line_best, run_idf * tf * (K1 + 1) / (
                        tf + K1 * (1 - B + B * part_lengths / average)), out=line_best)
        for score, line_best in zip(scores, best):
            score += line_best
        if word:
            for h, found in zip(held, holds(list(zip(*runs)))):
                h += term_idf * found
    return scores, held, full


@pytest.mark.parametrize("query", QUESTIONS)
def test_scores_and_ranks_are_those_of_bm25_over_every_line(query):
    first, second = _corpus(1, 600), _corpus(2, 300)
    masked = first.mask({})
    masked[::5] = False
    for parts in ([(first, first.mask({}))], [(first, masked), (second, second.mask({}))]):
        scores, held, full = bm25_scored(parts, query)
        want_scores, want_held, want_full = _dense_scored(parts, query)
        assert full == want_full
        for got, want in zip(scores, want_scores):
            assert np.array_equal(got, want)
            assert np.array_equal(np.argsort(-got, kind="stable"),
                                  np.argsort(-want, kind="stable"))
        for got, want in zip(held, want_held):
            assert np.array_equal(got, want)


def test_a_part_changed_since_the_last_search_is_scored_as_it_is_now():
    part = _corpus(3, 200)
    query = "what's my job?"

    def same() -> bool:
        scores, _, _ = bm25_scored([(part, part.mask({}))], query)  # its context kept
        return np.array_equal(scores[0], _dense_scored([(part, part.mask({}))], query)[0][0])

    assert same()
    part.add("t_new", "I work as a nurse", {"session_id": "s0", "turn": 999, "role": "user"})
    assert same()
    part.remove("t10")
    assert same()
