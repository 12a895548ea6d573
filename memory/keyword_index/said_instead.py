"""What a statement of a fact says instead of the question's word: "what's my job?" asks for
"I work as a radiographer", "我是哪里人？" for "我老家在遵义". A question about the asker's own
life names the kind of fact (job, hometown, partner); the line that told it names the fact. The
keyword side counts a question's word and these words as one term (a line scores its best word
of the term, each by its own rarity, the statement's words weighed ALTERNATIVE_WEIGHT and never
above the question's own word: a line holding that word still comes first;
memory/keyword_index/bm25.py), so the line that told the fact holds a word of the question.

The table (memory/keyword_index/said_table.py) holds kinds of personal facts people ask about
in other words, each English and Chinese; not one conversation's words. English keys match whole
words of the lower-cased question, Chinese keys anywhere in it; the words are then tokenised as
the index is (memory/keyword_index/tokens.py), so "working" meets "work".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from memory.keyword_index.chat_short import SAID_SHORT
from memory.keyword_index.said_table import AGE_KEYS_ZH, DOING_KEYS_ZH, NOT_KINDS, SAID_INSTEAD
from memory.keyword_index.stated import (
    MARK_ASKED_WITH,
    PEOPLE_ZH,
    PERSONS_ZH,
    STATED,
    STATED_MARK,
)
from memory.keyword_index.tokens import text_tokenize

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2}")

# A statement's word counts for this share of the question's own word.
ALTERNATIVE_WEIGHT = 0.5

_AFTER_PRONOUN_ZH = (*DOING_KEYS_ZH, *AGE_KEYS_ZH)
_PRONOUNS_ZH = "我你他她您"
# What 多大 asks an age after: a person ("手表多大？" asks a size) or a time ("我今年多大了？").
_AGE_ASKED_AFTER_ZH = (*PERSONS_ZH, "今年", "现在", "如今")


@dataclass(frozen=True)
class Term:
    """One term of a keyword search: the question's own tokens (all of them in a line, counted
    as the fewest of them; none when the question's words are stop words, "where am I from")
    and the token runs a statement holds instead."""

    own: tuple[str, ...]
    instead: tuple[tuple[str, ...], ...] = field(default=())
    # The mark of the player's lines that tell a fact of the kind without its words
    # (stated_marks): weighed as the question's own word, which such a line tells as surely.
    marks: tuple[str, ...] = field(default=())


def _english_keys() -> re.Pattern[str]:
    keys = sorted({key for keys, _ in SAID_INSTEAD for key in keys if key.isascii()},
                  key=len, reverse=True)
    return re.compile(r"(?<![a-z])(?:" + "|".join(map(re.escape, keys)) + r")(?![a-z])")


_ENGLISH_KEYS = _english_keys()


def _keys_found(lowered: str) -> list[str]:
    found = set(_ENGLISH_KEYS.findall(lowered))
    found |= {key for keys, _ in SAID_INSTEAD for key in keys
              if not key.isascii() and key in lowered
              and (key not in _AFTER_PRONOUN_ZH or _asked_of_a_person(lowered, key))}
    # The longest first: a row is one term, named by its longest key the question holds.
    return sorted(found, key=lambda key: (-len(key), key))


def _asked_of_a_person(lowered: str, key: str) -> bool:
    at = lowered.find(key)
    while at >= 0:
        if key in AGE_KEYS_ZH and lowered.startswith("的", at + len(key)):
            pass  # "多大的雨": how big a thing is
        # The searched query has a space where fillers were taken out ("表姐 多大").
        elif not (before := lowered[:at].rstrip()) or before[-1] in _PRONOUNS_ZH or (
                before.endswith(_AGE_ASKED_AFTER_ZH if key in AGE_KEYS_ZH else PERSONS_ZH)):
            return True
        at = lowered.find(key, at + 1)
    return False


def _inside(lowered: str, keys: list[str]) -> set[str]:
    """The Chinese keys that start inside another kind's key that came first: "老家在哪" holds
    "家在哪" (where one lives) across the end of "老家"; no kind is asked by it."""
    starts = {key: lowered.find(key) for key in keys if not key.isascii()}
    return {key for key, at in starts.items()
            if any(_row(other) != _row(key) and start < at < start + len(other)
                   for other, start in starts.items())}


def _row(key: str) -> int:
    return next(i for i, (keys, _) in enumerate(SAID_INSTEAD) if key in keys)


# The English words of the table: a question's word among them is meant as typed ("pups",
# "doggos" are no slips of "pumps", "doggs"; memory/recall/typos.py leaves them).
WORDS_EN = frozenset(word for keys, words in SAID_INSTEAD for word in (*keys, *words)
                     if word.isascii() and " " not in word)


def kinds_asked(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """Per kind of fact `text` names (a row of SAID_INSTEAD, each once, NOT_KINDS left out):
    the key it names it by (its longest) and every word of the row, keys and statement words."""
    found: dict[int, tuple[str, tuple[str, ...]]] = {}
    lowered = text.lower()
    keys = _keys_found(lowered)
    inside = _inside(lowered, keys)
    for key in keys:
        row = _row(key)
        if SAID_INSTEAD[row][0][0] in NOT_KINDS or key in inside:
            continue
        found.setdefault(row, (key, tuple(dict.fromkeys((*SAID_INSTEAD[row][0],
                                                         *SAID_INSTEAD[row][1])))))
    return list(found.values())


def query_terms(query: str, *, tokenize: Callable[[str], list[str]] = text_tokenize
                ) -> list[Term]:
    """The terms of `query` for BM25: a plain word alone; a key of SAID_INSTEAD (the longest
    first, each row once) with the words statements say instead. `tokenize`: the index's."""
    tokens = list(dict.fromkeys(tokenize(query)))
    lowered = query.lower()
    terms: list[Term] = []
    rows_used: set[int] = set()
    grouped: set[str] = set()
    keys = _keys_found(lowered)
    inside = _inside(lowered, keys)
    for key in keys:
        row = _row(key)
        if row in rows_used:
            continue
        rows_used.add(row)
        # An English key of several words is an idiom: "for a living" is not "live", a line
        # holding its words one by one does not say it. Its words are searched as the
        # statement's words only (a Chinese key's bigrams in a row are the key itself).
        words = tuple(dict.fromkeys(tokenize(key)))
        own = () if " " in key else tuple(token for token in words if token not in grouped)
        grouped.update(words)
        # A statement's word is left out only when a line holding it holds the question's
        # own tokens too. A Chinese key's bigrams are all needed for its own run, so a part of
        # it that a statement says alone stays: "我出生在成都" holds 出生 of 在哪儿出生, "我在医院
        # 工作" 工作 of 做什么工作 (both had 0 on the keyword side).
        instead = () if key in inside else tuple(dict.fromkeys(
            run for word in SAID_INSTEAD[row][1]
            if (run := tuple(tokenize(word))) and not (own and set(own) <= set(run))))
        kind = SAID_INSTEAD[row][0][0]
        marked = kind in STATED and key not in inside and (
            kind not in MARK_ASKED_WITH or any(word in lowered for word in MARK_ASKED_WITH[kind]))
        marks = (STATED_MARK + kind,) if marked else ()
        terms.append(Term(own=own, instead=instead, marks=marks))
    straddling = _straddling(lowered, keys)
    terms += [Term(own=(token,), instead=SAID_SHORT.get(token, ())) for token in tokens
              if token not in grouped and token not in straddling]
    return terms


def _straddling(lowered: str, keys: list[str]) -> set[str]:
    """The bigrams of `lowered` found only across the end of a Chinese key it holds: a key is
    a word, and after it the question asks ("老家是哪": 家是 drew "我上司他们家是北京的"). The
    bigram across its start stays: it ties the key to whose it is ("上司生日": 司生, also where
    the person is a key of its own)."""
    chinese = [key for key in keys if not key.isascii() and len(key) >= 2]
    ends = {at + len(key) - 1 for key in chinese for at in _places(lowered, key)
            if key not in PEOPLE_ZH}
    pairs: dict[str, set[bool]] = {}
    for start in range(len(lowered) - 1):
        pair = lowered[start:start + 2]
        if _HAN.fullmatch(pair):
            pairs.setdefault(pair, set()).add(start in ends)
    return {pair for pair, on_end in pairs.items() if on_end == {True}}


def _places(text: str, part: str) -> list[int]:
    places, at = [], text.find(part)
    while at >= 0:
        places.append(at)
        at = text.find(part, at + 1)
    return places
