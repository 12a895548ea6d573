"""The relevance floor of recall without a trigger word: which of a turn's searched lines are
worth the model's attention. A plain line ("Nice!", "How was your day?") must add nothing, a
question about an earlier event must find it although its answer may share no word with it
("When did Jolene adopt Susie?" -> "Last spring, right after the flood").

Fused scores are normalised per search (the best line always scores about 1), so they say how
a line ranks, never whether anything is relevant. What does: the words the player named
(content words, as the keyword index reads them) in the line or in the lines around it (the
question a reply answers), together with how close the line scores to the best one. The
values of FLOOR were chosen on dev conversations and checked on others (docs/memory.md,
bench/recall_floor.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.keyword_index.bm25 import text_tokenize
from memory.keyword_index.said_instead import kinds_asked
from memory.recall.focus import names_strip
from memory.recall.passages import Near
from memory.recall.queries import chat_words_plain
from memory.vectors.index import Hit

# Words that name nothing to recall: asking, pronouns, the common verbs of small talk.
STOPWORDS = frozenset("""
the and for are but not you your yours was were what when where which who whom why how
did does doing done has have had having can could would should will shall may might must
this that these those there here then than them they their theirs its it's i'm you're
about with from into onto over under again some any all each every very just also too
tell told say said know knew think thought like really okay yeah yes hey hello hi please
thanks thank good great fine well today now day night time ever never our ours out off
one two get got make made let let's want wanted going gonna feel feeling doing
""".split())
STOP_CJK = frozenset(["什么", "怎么", "为什么", "你好", "今天", "现在", "我们", "你们", "他们",
                      "她们", "这个", "那个", "时候", "知道", "觉得", "一下", "一起", "还是",
                      "好的", "好吧", "走吧", "嗯嗯", "哈哈", "谢谢", "晚安", "没事", "是的",
                      "对的", "可以", "真的"])


def content_words(text: str) -> set[str]:
    """What a text names, as the keyword index reads it (English words stemmed, so "adopt"
    meets "adopted"; Chinese character pairs), less the words of small talk."""
    return {token for token in text_tokenize(text)
            if len(token) > 1 and token not in _STOP_TOKENS}


_STOP_TOKENS = frozenset(text_tokenize(" ".join([*STOPWORDS, *STOP_CJK])))


@dataclass(frozen=True)
class Floor:
    """A line passes when it shares a named word (`own`), or when a line next to it does and
    the line scores at least `around_ratio` of the best; with nothing named, nothing passes."""

    own: bool = True
    around_ratio: float | None = None
    alone_ratio: float | None = None  # passes on its score alone (cross-signal agreement)
    # A question ("...?") that names something keeps its first `top_asked` lines whatever
    # words they share: its answer often shares none ("When did Fahim catch a cold?" ->
    # "I was sick all week"), while small talk that asks ("What's up?") names nothing.
    top_asked: int = 0


# Chosen on dev conversations and checked on others (docs/memory.md, bench/recall_floor.py):
# against a shared word alone, LoCoMo 0.725 -> 0.757 on the tuning and 0.639 -> 0.676 on the
# checking conversations, with small talk at a median of 2 lines or fewer. top_asked 5 (with
# 20 lines a turn): REALTALK 0.640 -> 0.675 tuning, LoCoMo 0.775 -> 0.805 tuning and 0.698 ->
# 0.708 checking, small talk unchanged.
# top_asked 45, once a turn fills the memory share instead of taking 20 lines: plain questions,
# check conversations (bench/recall_floor.py, 120 candidates, docs/memory.md) LoCoMo 0.76 ->
# 0.87, REALTALK 0.71 -> 0.81, MemDaily 0.98 -> 1.00; small talk that names nothing still
# recalls nothing, and a statement still needs a shared word.
FLOOR = Floor(around_ratio=0.5, alone_ratio=0.8, top_asked=60)


@dataclass(frozen=True)
class Signals:
    hit: Hit
    near: Near
    rank: int
    ratio: float  # its fused score over the best line's
    own: int  # named words the line shares
    around: int  # named words the lines around it share (and it does not)
    named: int  # named words of the question
    asks: bool = False  # the question ends in a question mark


# How a question typed without its "?" starts ("where am i from again lol", "whats my job"):
# it asks only when it also names a kind of personal fact, since small talk starts so too
# ("how was ur day").
_ASKING_START_EN = frozenset("""
what whats what's where wheres where's which who whos who's how when do did does is was
""".split())
_ASKING_ZH = ("哪", "什么", "啥", "谁", "吗", "几")
# "…again" / "…来着" at the end asks for what was said before, whatever it names ("whats that
# new lunch spot my relative runs again"); small talk does not end so.
_ASKED_AGAIN = re.compile(r"(?:(?<![a-z'])again|来着)[\s.!~…]*$", re.IGNORECASE)


def question_asks(query: str) -> bool:
    """Whether `query` asks: it ends in a question mark, or it is typed without one and asks
    again for what was said or for a kind of personal fact, with a question word."""
    text = query.rstrip()
    if text.endswith(("?", "？")):
        return True
    words = text.lower().split(maxsplit=1)
    starts = bool(words) and words[0] in _ASKING_START_EN
    return (starts or any(word in text for word in _ASKING_ZH)) and (
        bool(_ASKED_AGAIN.search(text)) or bool(kinds_asked(text)))


def asked_words(query: str, speakers: set[str]) -> set[str]:
    """The words a question names, without the speakers' names: a name is in every line its
    speaker is addressed in, whatever the line is about (as the search leaves it out)."""
    return content_words(names_strip(query, speakers) if speakers else query)


def shared_words(asked: set[str], text: str, around: list[str]) -> tuple[int, int]:
    """(named words the line shares, named words only the lines around it share)."""
    own = content_words(text) & asked
    beside = set().union(*(content_words(line) for line in around)) & asked
    return len(own), len(beside - own)


def signals_read(query: str, hits: list[Hit], near: dict[tuple[str, str, str], Near], *,
                 speakers: set[str] = frozenset()) -> list[Signals]:
    asked = asked_words(query, set(speakers))
    best = max((hit.score for hit in hits), default=0.0)
    # "yo what do i do for a living again": the question starts after the chat filler
    # (queries.chat_words_plain). Its words stay named: "where am i from again lol" names
    # nothing else, and a question naming nothing keeps nothing.
    asks = question_asks(" ".join(chat_words_plain(query).split()))
    signals = []
    for rank, hit in enumerate(hits):
        around = near.get(hit.key, Near())
        own, beside = shared_words(asked, hit.text, [line.text for line in
                                                     (around.before, around.after) if line])
        signals.append(Signals(hit=hit, near=around, rank=rank,
                               ratio=hit.score / best if best > 0 else 0.0, own=own,
                               around=beside, named=len(asked),
                               asks=asks))
    return signals


def floor_keeps(signals: Signals, floor: Floor = FLOOR) -> bool:
    if not signals.named:
        return False
    if floor.own and signals.own:
        return True
    if signals.asks and signals.rank < floor.top_asked:
        return True
    if floor.around_ratio is not None and signals.around and signals.ratio >= floor.around_ratio:
        return True
    return floor.alone_ratio is not None and signals.ratio >= floor.alone_ratio
