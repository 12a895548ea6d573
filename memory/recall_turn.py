"""Recall on every turn, the way people talk: a plain question ("When did Jolene adopt Susie?")
is searched as well as one with a trigger word; the words of asking ("do you remember",
还记得) are never the query; a turn recalls only what is not already in front of the model.

Without a trigger word, fewer lines are taken and each must share a content word with what
the player said (the relevance floor), so small talk adds little or nothing; a trigger word
forces recall and deepens it (rag.recall_mode)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from memory.index import Hit, MemoryIndex
from memory.keywords import text_tokenize
from memory.queries import (
    PUNCTUATION,
    TRIGGERS_EN,
    TRIGGERS_ZH,
    query_extract,
    question_focus,
    questions_split,
)
from memory.rag import RecallResult, query_user_history, recall_mode, trigger_found

PLAIN_K = 8  # lines a turn without a trigger word may add
TRIGGER_K = 10
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
                      "她们", "这个", "那个", "时候", "知道", "觉得", "一下", "一起", "还是"])


def content_words(text: str) -> set[str]:
    """What a text names, as the keyword index reads it (English words stemmed, so "adopt"
    meets "adopted"; Chinese character pairs), less the words of small talk."""
    return {token for token in text_tokenize(text)
            if len(token) > 1 and token not in _STOP_TOKENS}


_STOP_TOKENS = frozenset(text_tokenize(" ".join([*STOPWORDS, *STOP_CJK])))


def asked_parts(text: str) -> list[str]:
    """The questions of a message without the ones that only ask to remember ("Do you
    remember?"): those would steer the search to lines about remembering."""
    parts = questions_split(question_focus(text))
    return [part for part in parts if query_extract(part, fallback=False)]


def _meta_talk(hit: Hit) -> bool:
    """The player's own earlier question about remembering: never an answer."""
    return (str(hit.metadata.get("role") or "") == "user"
            and trigger_found(hit.text, TRIGGERS_ZH + TRIGGERS_EN)
            and any(mark in hit.text for mark in "?？"))


def _normalized(text: str) -> str:
    return " ".join(text.lower().strip(PUNCTUATION).split())


def recall_for_turn(user_text: str, instance_id: str, *, index: MemoryIndex,
                    shown_texts: Iterable[str] = (), last_exchange: str = "",
                    related_instance_ids: list[str] | None = None,
                    witnessed: Callable[[Mapping[str, Any]], bool] | None = None
                    ) -> RecallResult:
    """This turn's recalled lines, best first. `shown_texts`: the lines the prompt already
    holds and the player's current message, never recalled back. A message that only asks
    ("你还记得吗？") is about the last exchange: its words are searched instead."""
    triggered = recall_mode(user_text) is not None
    parts = asked_parts(user_text) or (asked_parts(last_exchange) if triggered else [])
    if not parts:
        return RecallResult(mode=None)
    query_text = " ".join(parts)
    result = query_user_history(query_text, instance_id, index=index, force=True,
                                k=TRIGGER_K if triggered else PLAIN_K * 2,
                                related_instance_ids=related_instance_ids,
                                witnessed=witnessed)
    if triggered:
        result = replace(result, mode=recall_mode(user_text))
    shown = {_normalized(text) for text in shown_texts if text}
    asked_again = [_normalized(part) for part in parts if len(_normalized(part)) > 8]
    asked = content_words(query_text)
    kept: list[Hit] = []
    seen: set[str] = set()
    for hit in result.hits:
        text = _normalized(hit.text)
        if not text or text in shown or text in seen or _meta_talk(hit):
            continue
        if hit.metadata.get("role") == "user" and any(part in text for part in asked_again):
            continue  # the same question asked before: an echo, not an answer
        if not triggered and not (content_words(hit.text) & asked):
            continue  # below the relevance floor: shares nothing the player named
        seen.add(text)
        kept.append(hit)
    return replace(result, hits=kept[:TRIGGER_K if triggered else PLAIN_K])
