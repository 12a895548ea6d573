"""Recall (RAG) over the memory index: everyday recall for the chat turn (flow step 2.5) and the
director's fallback search (flow "容错处理RAG检索").

Dense e5 similarity alone misses exact names and rare words, and keyword matching alone misses
paraphrases, so both scores are normalised and averaged (hybrid retrieval). A turn is scored
with the lines before it as context: a reply such as "Yes, last Sunday!" means something only
together with the question it answers.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any

from memory.index import Hit, MemoryIndex, turn_embedding_text

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

STOP_WORDS_EN = frozenset("""
a about above after again against all am an and any are as at be because been before being below
between both but by can cannot could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just me more
most my myself no nor not of off on once only or other ought our ours ourselves out over own same
she should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves also s t don won isn aren wasn weren hasn haven hadn doesn
didn shouldn wouldn couldn ll re ve d m o y ok oh yeah yes hey hi wow really
""".split())

DENSE_WEIGHT = 0.5
# Keyword context: the line that set a topic is often two lines back (question, answer, "When?").
CONTEXT_BEFORE = 2
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


# --- keyword scoring -----------------------------------------------------------

_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[a-z0-9]+(?:'[a-z]+)?")


def _english_stem(word: str) -> str:
    # Light suffix stripping, no stemmer package: "painting", "paints", "painted" meet at "paint".
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def text_tokenize(text: str) -> list[str]:
    """Lower-case English words (stop words out, lightly stemmed) and Chinese character bigrams
    (Chinese has no spaces; bigrams match most two-character words without a dictionary)."""
    tokens: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        if _CJK_RUN.fullmatch(token):
            tokens += [token[i : i + 2] for i in range(len(token) - 1)] or [token]
            continue
        word = token.split("'")[0]
        if word and word not in STOP_WORDS_EN:
            tokens.append(_english_stem(word))
    return tokens


class KeywordIndex:
    """Okapi BM25 (k1=1.2, b=0.75) over a fixed list of texts."""

    def __init__(self, texts: list[str]) -> None:
        self.docs = [Counter(text_tokenize(text)) for text in texts]
        self.lengths = [sum(doc.values()) for doc in self.docs]
        self.average = (sum(self.lengths) / len(self.lengths)) if self.lengths else 1.0
        frequency: Counter[str] = Counter()
        for doc in self.docs:
            frequency.update(doc.keys())
        total = len(self.docs)
        self.idf = {t: math.log(1 + (total - n + 0.5) / (n + 0.5)) for t, n in frequency.items()}
        self.postings: dict[str, list[int]] = {}
        for position, doc in enumerate(self.docs):
            for token in doc:
                self.postings.setdefault(token, []).append(position)

    def scores(self, query: str, *, k1: float = 1.2, b: float = 0.75) -> dict[int, float]:
        scores: dict[int, float] = {}
        for token in set(text_tokenize(query)):
            idf = self.idf.get(token)
            if idf is None:
                continue
            for position in self.postings[token]:
                tf = self.docs[position][token]
                norm = k1 * (1 - b + b * self.lengths[position] / (self.average or 1.0))
                scores[position] = scores.get(position, 0.0) + idf * tf * (k1 + 1) / (tf + norm)
        return scores


_keyword_cache: OrderedDict[tuple[int, ...], tuple[list[list[Hit]], KeywordIndex]] = OrderedDict()
_keyword_lock = threading.Lock()


def keyword_index_for(parts: list[list[Hit]]) -> KeywordIndex:
    """One BM25 index over the document lists of several collections, reused while
    MemoryIndex.documents hands back the same (unchanged) lists."""
    key = tuple(id(part) for part in parts)
    with _keyword_lock:
        cached = _keyword_cache.get(key)
        if cached is not None and all(a is b for a, b in zip(cached[0], parts)):
            _keyword_cache.move_to_end(key)
            return cached[1]
    built = KeywordIndex(documents_context_texts([hit for part in parts for hit in part]))
    with _keyword_lock:
        _keyword_cache[key] = (parts, built)
        while len(_keyword_cache) > 64:
            _keyword_cache.popitem(last=False)
    return built


def _turn_order(hit: Hit) -> tuple[str, str, int, int]:
    meta = hit.metadata
    return (str(meta.get("instance_id", "")), str(meta.get("session_id", "")),
            int(meta.get("turn", 0) or 0), 0 if meta.get("role") == "user" else 1)


def documents_context_texts(documents: list[Hit]) -> list[str]:
    """The text each document is keyword-matched as: a turn together with the CONTEXT_BEFORE
    lines before it in the same session, events as they are."""
    texts = [_hit_text(hit) for hit in documents]
    turns = sorted((i for i, hit in enumerate(documents) if hit.collection == "turns"),
                   key=lambda i: _turn_order(documents[i]))
    contexts = list(texts)
    for rank, position in enumerate(turns):
        session = _turn_order(documents[position])[:2]
        before = [turns[r] for r in range(max(0, rank - CONTEXT_BEFORE), rank)
                  if _turn_order(documents[turns[r]])[:2] == session]
        contexts[position] = "\n".join([texts[b] for b in before] + [texts[position]])
    return contexts


def _hit_text(hit: Hit) -> str:
    if hit.collection != "turns":
        return hit.text
    return turn_embedding_text({"speaker": hit.metadata.get("speaker"), "content": hit.text})


# --- fusion --------------------------------------------------------------------


def _min_max(scores: dict[str, float], floor: float | None = None) -> dict[str, float]:
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
    dense: dict[str, float] = {}
    pool: dict[str, Hit] = {}
    parts: list[list[Hit]] = []
    for name in collections:
        for hit in index.search(name, query, where=where, n_results=candidates,
                                query_embedding=embedding):
            dense[_hit_key(hit)] = hit.score
            pool[_hit_key(hit)] = hit
        parts.append(index.documents(name, where=where))
    documents = [hit for part in parts for hit in part]
    keyword = keyword_index_for(parts).scores(query) if documents else {}
    for position, score in keyword.items():
        hit = documents[position]
        pool.setdefault(_hit_key(hit), hit)
    keyword_by_key = {_hit_key(documents[p]): score for p, score in keyword.items()}
    dense_norm = _min_max(dense)
    keyword_norm = _min_max(keyword_by_key, floor=0.0)
    fused = {key: DENSE_WEIGHT * dense_norm.get(key, 0.0)
             + (1 - DENSE_WEIGHT) * keyword_norm.get(key, 0.0) for key in pool}
    order = sorted(fused, key=lambda key: (-fused[key], key))[:k]
    return [_with_score(pool[key], fused[key]) for key in order]


def _hit_key(hit: Hit) -> str:
    return f"{hit.collection}/{hit.metadata.get('instance_id', '')}/{hit.id}"


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


def fallback_search(query: str, *, instance_id: str, character_id: str,
                    background_id: str | None, index: MemoryIndex, n_current: int = 15,
                    n_reference: int = 5) -> tuple[list[Hit], list[Hit]]:
    """The director's fallback: events of this instance (summaries, plots, turns) and reference
    events (summaries, plots) from other instances of the same character and background.
    Never raises: an unavailable index gives two empty lists (logged)."""
    same_story = {"character_id": character_id, "background_id": background_id or ""}
    try:
        current = hybrid_search(index, ("summaries", "plots", "turns"), query,
                                where={"instance_id": instance_id, **same_story}, k=n_current)
        reference = hybrid_search(index, EVENT_COLLECTIONS, query,
                                  where={"instance_id": {"$ne": instance_id}, **same_story},
                                  k=n_reference)
    except Exception as exc:  # same rule as everyday recall: no recall beats a failed turn
        log.warning("fallback recall unavailable for %s: %s", instance_id, exc)
        return [], []
    return current, reference
