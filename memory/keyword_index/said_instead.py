"""What a statement of a fact says instead of the question's word: "what's my job?" asks for
"I work as a radiographer", "我是哪里人？" for "我老家在遵义". A question about the asker's own
life names the kind of fact (job, hometown, partner); the line that told it names the fact. The
keyword side counts a question's word and these words as one term (BM25 over the sum of their
counts, the others weighed ALTERNATIVE_WEIGHT: a line holding the question's own word still
comes first), so the line that told the fact holds a word of the question.

The table holds kinds of personal facts people ask about in other words, each English and
Chinese; not one conversation's words. English keys match whole words of the lower-cased
question, Chinese keys anywhere in it; the words are then tokenised as the index is
(memory/keyword_index/tokens.py), so "working" meets "work".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from memory.keyword_index.tokens import text_tokenize

# A statement's word counts for this share of the question's own word.
ALTERNATIVE_WEIGHT = 0.5

# (what questions say, what the statements that answer them say instead)
SAID_INSTEAD: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("job", "jobs", "occupation", "profession", "career", "for a living", "line of work"),
     ("work", "job", "career")),
    (("hometown", "home town", "originally from", "where am i from", "where i'm from"),
     ("grew up", "born", "raised", "hometown")),
    (("partner", "spouse", "significant other"),
     ("wife", "husband", "girlfriend", "boyfriend", "fiancé", "fiancée", "partner")),
    (("sibling", "siblings"), ("sister", "brother", "sibling")),
    (("vehicle",), ("car", "truck", "motorbike", "van")),
    (("vacation", "holiday"), ("trip", "travel", "vacation", "holiday")),
    (("medication", "medicine"), ("medication", "medicine", "pills", "drug")),
    (("film",), ("movie",)),
    (("movie",), ("film",)),
    (("哪里人", "哪儿人", "家乡", "老家", "故乡", "籍贯"),
     ("老家", "家乡", "故乡", "来自", "出生")),
    (("对象", "另一半"), ("女朋友", "男朋友", "老公", "老婆", "妻子", "丈夫", "对象")),
    # Not "干什么的" / "做什么的": they also ask what a thing is for, and Chinese chat says 工作
    # and 上班 so often that such a question drew every line of them (a probe set of the
    # lead's: "我是干什么的来着？" fell from rank 2 to 10).
    (("职业", "做什么工作", "干什么工作"), ("工作", "职业", "上班")),
    (("去哪儿玩", "去哪里玩", "出去玩", "度假", "旅游", "旅行"), ("旅行", "旅游", "度假")),
    (("片子", "电影"), ("电影", "片子")),
)


@dataclass(frozen=True)
class Term:
    """One term of a keyword search: the question's own tokens (all of them in a line, counted
    as the fewest of them; none when the question's words are stop words, "where am I from")
    and the token runs a statement holds instead."""

    own: tuple[str, ...]
    instead: tuple[tuple[str, ...], ...] = field(default=())


def _english_keys() -> re.Pattern[str]:
    keys = sorted({key for keys, _ in SAID_INSTEAD for key in keys if key.isascii()},
                  key=len, reverse=True)
    return re.compile(r"(?<![a-z])(?:" + "|".join(map(re.escape, keys)) + r")(?![a-z])")


_ENGLISH_KEYS = _english_keys()


def _keys_found(lowered: str) -> list[str]:
    found = set(_ENGLISH_KEYS.findall(lowered))
    found |= {key for keys, _ in SAID_INSTEAD for key in keys
              if not key.isascii() and key in lowered}
    # The longest first: a row is one term, named by its longest key the question holds.
    return sorted(found, key=lambda key: (-len(key), key))


def query_terms(query: str, *, tokenize: Callable[[str], list[str]] = text_tokenize
                ) -> list[Term]:
    """The terms of `query` for BM25: a plain word alone; a key of SAID_INSTEAD (the longest
    first, each row once) with the words statements say instead. `tokenize`: the index's."""
    tokens = list(dict.fromkeys(tokenize(query)))
    lowered = query.lower()
    terms: list[Term] = []
    rows_used: set[int] = set()
    grouped: set[str] = set()
    for key in _keys_found(lowered):
        row = next(i for i, (keys, _) in enumerate(SAID_INSTEAD) if key in keys)
        if row in rows_used:
            continue
        rows_used.add(row)
        # An English key of several words is an idiom: "for a living" is not "live", a line
        # holding its words one by one does not say it. Its words are searched as the
        # statement's words only (a Chinese key's bigrams in a row are the key itself).
        words = tuple(dict.fromkeys(tokenize(key)))
        own = () if " " in key else tuple(token for token in words if token not in grouped)
        grouped.update(words)
        instead = tuple(dict.fromkeys(
            run for word in SAID_INSTEAD[row][1]
            if (run := tuple(tokenize(word))) and run != own and not set(run) <= set(own)))
        terms.append(Term(own=own, instead=instead))
    terms += [Term(own=(token,)) for token in tokens if token not in grouped]
    return terms
