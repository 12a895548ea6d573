"""Recall (RAG) over the memory index: everyday recall for the chat turn (flow step 2.5) and the
director's fallback search (flow "容错处理RAG检索").

Dense e5 similarity alone misses exact names and rare words, and keyword matching alone misses
paraphrases, so both scores are normalised and averaged (hybrid retrieval). The keyword side
(BM25, a turn scored with the lines before it) lives in memory/keywords.py, kept in memory and
updated as documents are written, so a search does not read the whole memory again.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memory.index import Hit, MemoryIndex

log = logging.getLogger(__name__)

TRIGGERS_ZH = ["还记得", "记得吗", "记不记得", "记得不", "之前", "以前", "当时", "那次", "那时候",
               "上次", "上回", "曾经", "回忆", "想起", "忘了"]
TRIGGERS_EN = ["remember", "last time", "before", "earlier", "recall", "back then", "that time",
               "previously", "you said", "you told", "i told you", "we talked", "forgot", "forget"]
DEEP_TRIGGERS = ["怎么", "如何", "详细过程", "详细", "具体经过", "how", "in detail", "details"]
# "how" and "怎么" are everyday words: alone they only deepen a search something else asked for;
# these ask for the detailed account by themselves.
DEEP_TRIGGERS_ALONE = ["详细过程", "具体经过", "详细经过", "in detail"]

ZH_FILLERS_LEADING = ["你", "我们", "咱们", "我", "他们", "她们", "他", "她", "的", "跟", "和", "吗", "呢"]
ZH_FILLERS_TRAILING = ["吗", "呢", "吧", "啊", "呀", "了", "的", "么"]
EN_QUESTION_FILLERS = ["do you", "did you", "can you", "could you", "what about", "tell me about",
                       "tell me", "please", "hey", "hi"]
PUNCTUATION = "?？!！。，,.、；;：:~…\"'“”‘’()（）[]【】 \t\n"

DENSE_WEIGHT = 0.5
DENSE_CANDIDATES_MIN = 50
WARNING_RECALL_UNAVAILABLE = "记忆检索暂不可用，本轮回复不含历史回忆"
SHALLOW_COLLECTIONS = ("summaries", "turns")
DEEP_COLLECTIONS = ("plots", "turns")
EVENT_COLLECTIONS = ("summaries", "plots")


@dataclass
class RecallResult:
    hits: list[Hit] = field(default_factory=list)
    mode: str | None = None
    warning: dict[str, Any] | None = None
    query: str = ""


# --- triggers and query extraction -------------------------------------------


def _english_word_at(text: str, word: str, start: int) -> bool:
    """True when `word` sits at `start` as a word: no letter before it, and after it only the
    end of a word or a plain inflection ("remembered" yes, "however" no). Chinese characters
    around it count as word edges, which a regex `\\b` would not do."""
    before = text[start - 1] if start > 0 else " "
    if before.isascii() and before.isalnum():
        return False
    rest = text[start + len(word):]
    tail = re.match(r"[a-z0-9]*", rest).group(0)
    return tail in ("", "s", "ed", "ing", "ered", "ering", "ers", "d")


def trigger_found(text: str, triggers: list[str]) -> bool:
    lowered = text.lower()
    for trigger in triggers:
        if not trigger.isascii():
            if trigger in text:
                return True
            continue
        start = lowered.find(trigger)
        while start >= 0:
            if _english_word_at(lowered, trigger, start):
                return True
            start = lowered.find(trigger, start + 1)
    return False


def recall_mode(user_input: str) -> str | None:
    """None (no search), "shallow" (summaries) or "deep" (plot material)."""
    if trigger_found(user_input, DEEP_TRIGGERS_ALONE):
        return "deep"
    if not trigger_found(user_input, TRIGGERS_ZH + TRIGGERS_EN):
        return None
    return "deep" if trigger_found(user_input, DEEP_TRIGGERS) else "shallow"


def query_extract(user_input: str) -> str:
    """The part of the message that names what to recall: trigger words, question fillers and
    particles removed ("你还记得我们之前的约定吗？" -> "约定"). Falls back to the whole message."""
    text = user_input
    for phrase in sorted(TRIGGERS_ZH + ["记得"], key=len, reverse=True):
        text = text.replace(phrase, " ")
    for phrase in sorted(TRIGGERS_EN + EN_QUESTION_FILLERS, key=len, reverse=True):
        text = re.sub(rf"(?<![a-z]){re.escape(phrase)}(?![a-z])", " ", text, flags=re.IGNORECASE)
    pieces = [_zh_fillers_strip(piece) for piece in re.split(r"\s+", text)]
    cleaned = " ".join(piece for piece in pieces if piece).strip(PUNCTUATION)
    return cleaned if cleaned else user_input.strip()


def _zh_fillers_strip(piece: str) -> str:
    leading = sorted(ZH_FILLERS_LEADING, key=len, reverse=True)
    trailing = sorted(ZH_FILLERS_TRAILING, key=len, reverse=True)
    piece = piece.strip(PUNCTUATION)
    while piece and piece not in leading and piece not in trailing:
        head = next((f for f in leading if piece.startswith(f)), None)
        tail = next((f for f in trailing if piece.endswith(f)), None)
        if head is None and tail is None:
            return piece
        if head is not None:
            piece = piece[len(head):].strip(PUNCTUATION)
        elif tail is not None:
            piece = piece[: -len(tail)].strip(PUNCTUATION)
    return "" if piece in leading or piece in trailing else piece


# --- fusion --------------------------------------------------------------------

Key = tuple[str, str, str]  # collection, instance_id, doc_id


def _min_max(scores: dict[Key, float], floor: float | None = None) -> dict[Key, float]:
    if not scores:
        return {}
    low = min(scores.values()) if floor is None else floor
    span = max(scores.values()) - low
    return {key: (value - low) / span if span > 0 else 1.0 for key, value in scores.items()}


def hybrid_search(index: MemoryIndex, collections: tuple[str, ...], query: str, *,
                  where: dict[str, Any], k: int) -> list[Hit]:
    """Dense candidates from Chroma and BM25 over every matching document of the collections,
    each min-max normalised, then averaged (a convex combination; it keeps how far ahead a
    document is, which rank fusion throws away). Documents the dense search did not return
    count as its lowest returned similarity."""
    candidates = max(DENSE_CANDIDATES_MIN, 5 * k)
    embedding = index.query_embed(query)
    dense: dict[Key, float] = {}
    pool: dict[Key, Hit] = {}
    for name in collections:
        for hit in index.search(name, query, where=where, n_results=candidates,
                                query_embedding=embedding):
            dense[_hit_key(hit)] = hit.score
            pool[_hit_key(hit)] = hit
    keyword = keyword_search(index, collections, query, where=where, k=k, also=list(pool))
    dense_norm = _min_max(dense)
    keyword_norm = _min_max(keyword, floor=0.0)
    fused = {key: DENSE_WEIGHT * dense_norm.get(key, 0.0)
             + (1 - DENSE_WEIGHT) * keyword_norm.get(key, 0.0) for key in {**pool, **keyword}}
    order = sorted(fused, key=lambda key: (-fused[key], key))[:k]
    pool.update(_hits_fetch(index, [key for key in order if key not in pool]))
    return [_with_score(pool[key], fused[key]) for key in order if key in pool]


def keyword_search(index: MemoryIndex, collections: tuple[str, ...], query: str, *,
                   where: dict[str, Any], k: int, also: list[Key]) -> dict[Key, float]:
    """BM25 scores (above zero) of the k best keyword matches in the collections, taken as one
    corpus, and of the documents `also` names. The k best are all the fusion needs: a
    document outside them and outside the dense candidates cannot enter the top k."""
    parts = [(name, owner, part, equal) for name in collections
             for owner, part, equal in index.keyword_parts(name, where=where)]
    arrays = index.keywords.scores([(part, equal) for _, _, part, equal in parts], query)
    found: dict[Key, float] = {}
    for (name, owner, part, _), scores in zip(parts, arrays):
        top = np.argpartition(-scores, k)[:k] if len(scores) > k else range(len(scores))
        found.update({(name, owner, part.ids[p]): float(scores[p]) for p in top if scores[p] > 0})
    result = dict(sorted(found.items(), key=lambda item: (-item[1], item[0]))[:k])
    scored = {(name, owner): (part, scores) for (name, owner, part, _), scores in zip(parts, arrays)}
    for key in also:
        part, scores = scored.get(key[:2], (None, None))
        position = part.positions.get(key[2]) if part is not None else None
        # A document written again after scoring has a position the scores do not reach.
        if position is not None and position < len(scores) and scores[position] > 0:
            result[key] = float(scores[position])
    return result


def _hits_fetch(index: MemoryIndex, keys: list[Key]) -> dict[Key, Hit]:
    wanted: dict[tuple[str, str], list[str]] = {}
    for collection, instance_id, doc_id in keys:
        wanted.setdefault((collection, instance_id), []).append(doc_id)
    return {(collection, instance_id, hit.id): hit
            for (collection, instance_id), doc_ids in wanted.items()
            for hit in index.hits_get(collection, instance_id, doc_ids)}


def _hit_key(hit: Hit) -> Key:
    return hit.collection, str(hit.metadata.get("instance_id", "")), hit.id


def _with_score(hit: Hit, score: float) -> Hit:
    return Hit(id=hit.id, collection=hit.collection, text=hit.text, score=score,
               metadata=hit.metadata, source=hit.source)


# --- public API ----------------------------------------------------------------


def recall_warning(exc: BaseException) -> dict[str, Any]:
    return {"type": "warning", "category": "recall_unavailable",
            "message": WARNING_RECALL_UNAVAILABLE, "detail": f"{type(exc).__name__}: {exc}"[:300]}


def query_user_history(user_input: str, instance_id: str, *, index: MemoryIndex,
                       force: bool = False, k: int = 10) -> RecallResult:
    """Everyday recall (flow 2.5): search only when the player refers to the past (or `force`);
    shallow -> summaries + turns, deep -> plot material + turns; this instance only.
    Never raises: an unavailable index gives no hits and a warning."""
    mode = recall_mode(user_input)
    if mode is None and not force:
        return RecallResult(mode=None)
    mode = mode or ("deep" if trigger_found(user_input, DEEP_TRIGGERS) else "shallow")
    query = query_extract(user_input)
    collections = DEEP_COLLECTIONS if mode == "deep" else SHALLOW_COLLECTIONS
    try:
        hits = hybrid_search(index, collections, query, where={"instance_id": instance_id}, k=k)
    except Exception as exc:  # Chroma down or broken: the chat goes on without recall (SPEC §5)
        log.warning("recall unavailable for %s: %s", instance_id, exc)
        return RecallResult(mode=mode, warning=recall_warning(exc), query=query)
    return RecallResult(hits=hits, mode=mode, query=query)


def fallback_search(query: str, *, instance_id: str, reference_instance_ids: list[str],
                    character_id: str, background_id: str | None, index: MemoryIndex,
                    n_current: int = 15, n_reference: int = 5) -> tuple[list[Hit], list[Hit]]:
    """The director's fallback: events of this instance (summaries, plots, turns) and reference
    events (summaries, plots) of the instances `reference_instance_ids` names, which the caller
    takes from the same owner's instance files (memory/selectors.py): a filter that only
    excluded this instance showed one account's summaries to another.
    Never raises: an unavailable index gives two empty lists (logged)."""
    same_story = {"character_id": character_id, "background_id": background_id or ""}
    others = [other for other in dict.fromkeys(reference_instance_ids) if other != instance_id]
    try:
        current = hybrid_search(index, ("summaries", "plots", "turns"), query,
                                where={"instance_id": instance_id, **same_story}, k=n_current)
        reference = hybrid_search(index, EVENT_COLLECTIONS, query,
                                  where={"instance_id": {"$in": others}, **same_story},
                                  k=n_reference) if others else []
    except Exception as exc:  # same rule as everyday recall: no recall beats a failed turn
        log.warning("fallback recall unavailable for %s: %s", instance_id, exc)
        return [], []
    return current, reference
