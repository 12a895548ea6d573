"""Recall (RAG) over the memory index: everyday recall for the chat turn (flow step 2.5) and the
director's fallback search (flow "容错处理RAG检索").

Dense e5 similarity alone misses exact names and rare words, and keyword matching alone misses
paraphrases, so both scores are normalised and averaged (hybrid retrieval). On English questions a
second dense model (all-MiniLM-L6-v2, its own collection of line vectors) votes beside e5 on the
dense side. The keyword side (BM25, a turn scored with the lines before it) lives in
memory/keyword_index/bm25.py, shared through SQLite files updated as documents are written, so a
search does not read the whole memory again. A misspelt word is searched corrected as well
(memory/recall/typos.py).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timezone
from typing import Any

from memory.keyword_index.said_instead import ALTERNATIVE_WEIGHT
from memory.recall.addressed import addressed_strip
from memory.recall.bridge import bridge_chosen
from memory.recall.feedback import neighbours_share, session_prefer
from memory.recall.focus import (
    QuestionFocus,
    focus_prefer,
    focus_read,
    names_strip,
    speakers_named,
)
from memory.recall.queries import (
    ASKING_EN,
    ASKING_ZH,
    TRIGGERS_EN,
    TRIGGERS_ZH,
    condition_split,
    query_extract,
    question_focus,
    questions_split,
)
from memory.recall.typos import typo_tolerant
from memory.recall.unembedded import searched_as_if_stored, unembedded_score
from memory.recall.whose import (
    asked_of_asker,
    person_asked_zh,
    told_before,
    told_by_asker,
    told_of_another,
    told_of_other_person_zh,
    told_without_word,
)
from memory.vectors.index import Hit, MemoryIndex
from personalab.lib.embedding.embeddings import CJK_CHAR
from personalab.lib.embedding.give_way import recall_held

log = logging.getLogger(__name__)

DEEP_TRIGGERS = ["怎么", "如何", "详细过程", "详细", "具体经过", "how", "in detail", "details"]
# "how" and "怎么" are everyday words: alone they only deepen a search something else asked for;
# these ask for the detailed account by themselves.
DEEP_TRIGGERS_ALONE = ["详细过程", "具体经过", "详细经过", "in detail"]

DENSE_WEIGHT = 0.45  # measured on the three dev sets (README, Recall)
# When MiniLM scored, it enters with e5's weight and BM25 keeps its 0.55: the dense side (the
# mean of the two models' normalised cosines) weighs 0.9 / 1.45. A rule fixed before measuring
# (issue 17's experiment), not a fit.
DENSE_WEIGHT_TWO = 2 * DENSE_WEIGHT / (1 + DENSE_WEIGHT)
DENSE_CANDIDATES_MIN = 50
# A line's keyword score is lowered by this much times the share of the question's words (by
# IDF) it lacks (0: off, as before). docs/memory.md, Recall, "Coverage".
KEYWORD_COVERAGE = 0.5
# Both candidate pools are drawn for at least this many results whatever k is asked: the pools
# set the min-max normalisation, so a shallower search ranked its top k differently from a
# deeper one's first k (REALTALK recall@10: 0.573 asked with k=10, 0.581 as the first 10 of 25).
POOL_DEPTH_MIN = 25
# Lines of a session that holds at least two of the SESSION_TOP best first-pass hits
# (memory/recall/feedback.py): real chats keep to a topic for a while.
SESSION_BONUS = 0.1
SESSION_TOP = 5
# A line that only asks ("What game are you playing?") holds no fact to recall, though it
# shares the question's words: its score is lowered by this much times the share that asks.
ASKING_DISCOUNT = 0.5
# The lines around each of the NEIGHBOUR_TOP best hits get NEIGHBOUR_SHARE of its score.
NEIGHBOUR_SHARE = 0.5
NEIGHBOUR_TOP = 5
WARNING_RECALL_UNAVAILABLE = "记忆检索暂不可用，本轮回复不含历史回忆"
SHALLOW_COLLECTIONS = ("summaries", "turns")
DEEP_COLLECTIONS = ("plots", "turns")
EVENT_COLLECTIONS = ("summaries", "plots")


@dataclass
class FusedHit(Hit):
    """A searched line with what each side of the fusion said of it before the preferences
    and the neighbours' share: the relevance floor of recall in play reads them
    (memory/recall/floor.py), since the fused score is normalised per search."""

    dense: float = 0.0  # the dense side, min-max normalised (e5, or e5 and MiniLM)
    keyword: float = 0.0  # BM25 over the best keyword match
    cosine: float = 0.0  # e5's similarity to the question, as the model gave it
    second_cosine: float = 0.0  # MiniLM's (0: not returned, or no MiniLM)


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
    if not trigger_found(user_input, TRIGGERS_ZH + TRIGGERS_EN + ASKING_ZH + ASKING_EN):
        return None
    return "deep" if trigger_found(user_input, DEEP_TRIGGERS) else "shallow"


# --- fusion --------------------------------------------------------------------

Key = tuple[str, str, str]  # collection, instance_id, doc_id


def _min_max(scores: dict[Key, float], floor: float | None = None) -> dict[Key, float]:
    if not scores:
        return {}
    low = min(scores.values()) if floor is None else floor
    span = max(scores.values()) - low
    return {key: (value - low) / span if span > 0 else 1.0 for key, value in scores.items()}


def hybrid_search(index: MemoryIndex, collections: tuple[str, ...], query: str, *,
                  where: dict[str, Any], k: int, focus: QuestionFocus | None = None) -> list[Hit]:
    """Dense candidates from Chroma and BM25 over every matching document of the collections,
    each min-max normalised, then averaged (a convex combination; it keeps how far ahead a
    document is, which rank fusion throws away). Documents the dense search did not return
    count as its lowest returned similarity. `focus` adds the question's preferences for a
    time and for speakers; the speakers' names are not searched for (a name matches every line
    its speaker said, and the lines that mention it, whatever they are about)."""
    depth = max(k, POOL_DEPTH_MIN)
    speakers = index.speakers(where) if focus is not None and focus.words else set()
    named = speakers_named(focus.words, speakers) if speakers else set()
    query = names_strip(query, speakers) if speakers else query
    pool, dense, embedding = _dense_candidates(index, collections, query, where=where, k=depth)
    second = second_candidates(index, collections, query, where=where, k=depth)
    # A line MiniLM holds and the keyword store does not (a write cut short) cannot be shown:
    # it would take a place among the k best and leave one fewer.
    second = {key: second[key] for key in _stored(index, list(second), known=pool)}
    keyword = keyword_search(index, collections, query, where=where, k=depth,
                             also=list({**pool, **second}))
    fresh = unembedded_score(index, [key for key in keyword if key not in pool], query=query,
                             query_embedding=embedding)
    pool.update(fresh.hits)
    dense = searched_as_if_stored(dense, fresh.dense, asked=_dense_asked(depth))
    if "turns" in collections and not CJK_CHAR.search(query):
        second = searched_as_if_stored(second, fresh.second, asked=_dense_asked(depth))
    dense_norm = dense_fuse(dense, second)
    keyword_norm = keyword_scale(keyword)
    dense_weight = DENSE_WEIGHT_TWO if second else DENSE_WEIGHT
    fused = {key: dense_weight * dense_norm.get(key, 0.0)
             + (1 - dense_weight) * keyword_norm.get(key, 0.0)
             for key in {**pool, **second, **keyword}}
    shared = neighbours_share(fused, top=NEIGHBOUR_TOP, share=NEIGHBOUR_SHARE)
    fused.update({key: shared[key] for key in _stored(index, list(shared), known=fused)})
    fused = session_prefer(fused, top=SESSION_TOP, bonus=SESSION_BONUS)
    fused = asking_lower(fused, index.ask_shares(list(fused)))
    if focus is not None and (focus.window or named or focus.listener):
        pool.update(_hits_fetch(index, [key for key in fused if key not in pool]))
        fused = focus_prefer(fused, pool, window=focus.window, speakers=named,
                             listener=focus.listener)
    order = sorted(fused, key=lambda key: (-fused[key], key))[:k]
    pool.update(_hits_fetch(index, [key for key in order if key not in pool]))
    return [_fused_hit(pool[key], fused[key], dense=dense_norm.get(key, 0.0),
                       keyword=keyword_norm.get(key, 0.0), cosine=dense.get(key, 0.0),
                       second_cosine=second.get(key, 0.0)) for key in order if key in pool]


def keyword_scale(keyword: Mapping[Key, float]) -> dict[Key, float]:
    """BM25 scores min-max normalised (the floor 0), each lowered by KEYWORD_COVERAGE times the
    share of the question's words (by IDF) the line lacks (KeywordScores): a best line that
    holds only the question's commonest word no longer counts as a full match and outweighs
    every meaning the dense side finds."""
    normalised = _min_max(dict(keyword), floor=0.0)
    full = getattr(keyword, "full", 0.0)
    held = getattr(keyword, "held", {})
    if not KEYWORD_COVERAGE or full <= 0:
        return normalised
    return {key: value * (1 - KEYWORD_COVERAGE * (1 - min(held.get(key, full) / full, 1.0)))
            for key, value in normalised.items()}


def second_candidates(index: MemoryIndex, collections: tuple[str, ...], query: str, *,
                      where: dict[str, Any], k: int) -> dict[Key, float]:
    """MiniLM's own best lines and their cosines, as many as e5's candidates; none for a
    question with a CJK character, a search without turns, or MiniLM missing."""
    if "turns" not in collections or CJK_CHAR.search(query):
        return {}
    return index.second_search(query, where=where, n_results=_dense_asked(k))


def dense_fuse(first: dict[Key, float], second: dict[Key, float]) -> dict[Key, float]:
    """The dense side: e5's min-max normalised cosines alone, or, when MiniLM scored, the mean
    of both models' (a line one model did not return counts 0 for it) normalised again, so
    its best is 1 as with e5 alone."""
    first_norm = _min_max(first)
    if not second:
        return first_norm
    second_norm = _min_max(second)
    return _min_max({key: (first_norm.get(key, 0.0) + second_norm.get(key, 0.0)) / 2
                     for key in {**first_norm, **second_norm}})


def asking_lower(fused: dict[Key, float], shares: dict[Key, float]) -> dict[Key, float]:
    """Fused scores with the lines that ask lowered, in proportion to the share that asks. It
    comes after the neighbours took their share: the question a strong hit answers still gives
    its answer its score."""
    return {key: score * (1 - ASKING_DISCOUNT * shares.get(key, 0.0))
            for key, score in fused.items()}


def _stored(index: MemoryIndex, keys: list[Key], *, known: dict[Key, float]) -> list[Key]:
    """Those of `keys` the index holds: the `known` ones, the others looked up in the instance's
    keyword index, which is in memory (a Chroma read by id is slow at 100,000 lines)."""
    found = [key for key in keys if key in known]
    wanted: dict[tuple[str, str], list[str]] = {}
    for collection, instance_id, doc_id in (key for key in keys if key not in known):
        wanted.setdefault((collection, instance_id), []).append(doc_id)
    for (collection, instance_id), doc_ids in wanted.items():
        lacking = set(index.keywords.missing(instance_id, collection, doc_ids))
        found += [(collection, instance_id, doc_id) for doc_id in doc_ids if doc_id not in lacking]
    return found


def _dense_asked(k: int) -> int:
    """How many lines a dense search of each collection asks for, for the k best."""
    return max(DENSE_CANDIDATES_MIN, 5 * k)


def _dense_candidates(index: MemoryIndex, collections: tuple[str, ...], query: str, *,
                      where: dict[str, Any], k: int
                      ) -> tuple[dict[Key, Hit], dict[Key, float], list[float]]:
    """The dense search's best documents, their similarities, and the query's embedding."""
    candidates = _dense_asked(k)
    embedding = index.query_embed(query)
    dense: dict[Key, float] = {}
    pool: dict[Key, Hit] = {}
    for name in collections:
        for hit in index.search(name, query, where=where, n_results=candidates,
                                query_embedding=embedding):
            dense[_hit_key(hit)] = hit.score
            pool[_hit_key(hit)] = hit
    return pool, dense, embedding


def keyword_search(index: MemoryIndex, collections: tuple[str, ...], query: str, *,
                   where: dict[str, Any], k: int, also: list[Key]) -> dict[Key, float]:
    """BM25 scores (above zero) of the k best keyword matches in the collections, taken as one
    corpus, and of the documents `also` names. The k best are all the fusion needs: a
    document outside them and outside the dense candidates cannot enter the top k."""
    return index.keyword_scores(collections, query, where=where, k=k, also=also)


def _hits_fetch(index: MemoryIndex, keys: list[Key]) -> dict[Key, Hit]:
    wanted: dict[tuple[str, str], list[str]] = {}
    for collection, instance_id, doc_id in keys:
        wanted.setdefault((collection, instance_id), []).append(doc_id)
    return {(collection, instance_id, hit.id): hit
            for (collection, instance_id), doc_ids in wanted.items()
            for hit in index.hits_get(collection, instance_id, doc_ids)}


def _hit_key(hit: Hit) -> Key:
    return hit.key


def _fused_hit(hit: Hit, score: float, **channels: float) -> FusedHit:
    return FusedHit(id=hit.id, collection=hit.collection, text=hit.text, score=score,
                    metadata=hit.metadata, source=hit.source, **channels)


# --- public API ----------------------------------------------------------------


def recall_warning(exc: BaseException) -> dict[str, Any]:
    return {"type": "warning", "category": "recall_unavailable",
            "message": WARNING_RECALL_UNAVAILABLE, "detail": f"{type(exc).__name__}: {exc}"[:300]}


def query_user_history(user_input: str, instance_id: str, *, index: MemoryIndex,
                       force: bool = False, k: int = 10,
                       related_instance_ids: list[str] | None = None,
                       now: date | None = None, when: str = "",
                       witnessed: Callable[[Mapping[str, Any]], bool] | None = None,
                       members: Iterable[str] = ()) -> RecallResult:
    """Everyday recall (flow 2.5): search only when the player refers to the past (or `force`);
    shallow -> summaries + turns, deep -> plot material + turns; this instance and the
    `related_instance_ids` the caller took from the owner's files (the speaker's other
    conversations), nothing else. `now` is the day the question is asked ("last week" counts
    from it; default today, UTC); `when`, the whole message its time expression is read from
    when `user_input` is only the part of it searched. `witnessed` (a document's metadata ->
    bool) keeps only what the speaker saw (memory.selectors.recall_witnessed). `members`: the
    names of the conversation's characters, a name the question is addressed to though its
    lines are not indexed yet. A misspelt word is searched as typed and corrected. Never
    raises: an unavailable index gives no hits."""
    with recall_held():  # a fill in this process waits meanwhile (give_way.py)
        return typo_tolerant(user_input, index=index, k=k, run=lambda text: _history_query(
            text, instance_id, index=index, force=force, k=k,
            related_instance_ids=related_instance_ids, now=now, when=when, witnessed=witnessed,
            members=frozenset(members)),
            owners=[instance_id, *(related_instance_ids or [])])


def _history_query(user_input: str, instance_id: str, *, index: MemoryIndex, force: bool,
                   k: int, related_instance_ids: list[str] | None, now: date | None,
                   when: str, witnessed: Callable[[Mapping[str, Any]], bool] | None,
                   members: frozenset[str] = frozenset()) -> RecallResult:
    mode = recall_mode(user_input)
    if mode is None and not force:
        return RecallResult(mode=None)
    mode = mode or ("deep" if trigger_found(user_input, DEEP_TRIGGERS) else "shallow")
    scope = list(dict.fromkeys([instance_id, *(related_instance_ids or [])]))
    where = {"instance_id": instance_id if len(scope) == 1 else {"$in": scope}}
    user_input = addressed_strip(user_input, _speakers(index, where) | members)
    parts = questions_split(question_focus(user_input))
    query = " / ".join(query_extract(part) for part in parts)
    collections = DEEP_COLLECTIONS if mode == "deep" else SHALLOW_COLLECTIONS
    focus = focus_read(user_input, now=now or datetime.now(timezone.utc).date())
    if focus.window is None and when:
        # "Did I mention it last week? <what>": the searched part is <what>, the date is in
        # the asking left out of the search.
        focus = replace(focus, window=focus_read(
            when, now=now or datetime.now(timezone.utc).date()).window)

    def search(text: str) -> list[Hit]:
        if witnessed is None:
            return hybrid_search(index, collections, text, where=where, k=k, focus=focus)
        hits = hybrid_search(index, collections, text, where=where, k=2 * k, focus=focus)
        return [hit for hit in hits if witnessed(hit.metadata)][:k]

    try:
        rankings = [persons_lower(part, others_lower(part, hits, context=context_fetch(
                    index, hits) if asked_words(part) else {}))
                    for part in parts for hits in [part_search(part, search)]]
    except Exception as exc:  # Chroma down or broken: the chat goes on without recall (SPEC §5)
        log.warning("recall unavailable for %s: %s", instance_id, exc)
        return RecallResult(mode=mode, warning=recall_warning(exc), query=query)
    return RecallResult(hits=rankings_interleave(rankings, k), mode=mode, query=query)


def _speakers(index: MemoryIndex, where: dict[str, Any]) -> set[str]:
    """The names the searched lines were said under; none when the index cannot tell (the
    search itself then reports the index unavailable)."""
    try:
        return index.speakers(where)
    except Exception:  # noqa: BLE001
        return set()


def part_search(part: str, search: Callable[[str], list[Hit]]) -> list[Hit]:
    """One question's hits. A conditional question is searched in two hops: first the line
    that matches the condition, then what is asked together with that line's words, which
    name the thing the answer is about."""
    split = condition_split(part)
    if split is None:
        return search(query_extract(part))
    condition, asked = split
    condition_hits = search(query_extract(condition))
    bridge = bridge_chosen([hit.text for hit in condition_hits], condition, asked)
    asked_hits = search(f"{query_extract(asked)} {bridge}".strip())
    return rankings_interleave([condition_hits, asked_hits], len(condition_hits) or 1)


def asked_words(question: str) -> tuple[str, ...]:
    """The words of the kind of fact `question` asks about the asker's own life; () for a
    conditional question (its hops ask of the condition's subject) or one about anyone else."""
    return asked_of_asker(question) if condition_split(question) is None else ()


def others_lower(question: str, hits: list[Hit],
                 context: Mapping[Key, list[str]] | None = None) -> list[Hit]:
    """`hits` of a question about the asker's own fact ("我老家在哪？") with the lines that tell
    another person's ("我上司的老家是…") counted at ALTERNATIVE_WEIGHT on both sides, as if
    they only held a word a statement says instead (memory/recall/whose.py): the dense side
    finds them as close to the question as the asker's own line ("我上司上班的地方在深圳" for
    "我在哪上班？"). A line holding no word of the kind whose `context` (the lines before it the
    keyword side scored it with, context_fetch) tells another person's has its keyword side
    lowered so: "我上司的身高是171厘米" borrowed 老家 from "我上司的老家…" before it."""
    words = asked_words(question)
    if not words:
        return hits
    context = context or {}
    # What a line holding only a word a statement says instead would have on the keyword side.
    instead = ALTERNATIVE_WEIGHT * max((getattr(hit, "keyword", 0.0) for hit in hits),
                                       default=0.0)

    def lowered(hit: Hit) -> Hit:
        keyword = (1 - DENSE_WEIGHT) * getattr(hit, "keyword", 0.0)
        dense = DENSE_WEIGHT * getattr(hit, "dense", 0.0)
        by_asker = str(hit.metadata.get("role") or "") != "assistant"
        if told_of_another(hit.text, words, by_asker=by_asker):
            return _as_another(hit)
        if by_asker and told_without_word(hit.text, words):
            # "I pour drinks at a bar downtown" holds no word the keyword side could find: it
            # counts as if it held a statement's word.
            credit = max(0.0, (1 - DENSE_WEIGHT) * instead - keyword)
            keyword += credit
            return replace(hit, score=hit.score + credit
                           + (1 - ALTERNATIVE_WEIGHT) * (keyword + dense))
        if told_by_asker(hit.text, words, by_asker=by_asker):
            return replace(hit, score=hit.score + (1 - ALTERNATIVE_WEIGHT) * (keyword + dense))
        if told_before(hit.text, context.get(hit.key, []), words):
            return replace(hit, score=hit.score - (1 - ALTERNATIVE_WEIGHT) * keyword)
        return hit
    return sorted(map(lowered, hits), key=lambda hit: -hit.score)


def persons_lower(question: str, hits: list[Hit]) -> list[Hit]:
    """`hits` of a question about one of the asker's people ("我叔叔的邮箱是啥？") with the lines
    that open with another of them ("我同事的邮箱是…") counted at ALTERNATIVE_WEIGHT on both
    sides, as others_lower counts another's fact: in a chat of "我X的Y是Z" lines, the one
    with the rarer word beside Y came first."""
    person = person_asked_zh(question) if condition_split(question) is None else ""
    if not person:
        return hits
    return sorted((_as_another(hit) if told_of_other_person_zh(hit.text, person) else hit
                   for hit in hits), key=lambda hit: -hit.score)


def _as_another(hit: Hit) -> Hit:
    """`hit` counted at ALTERNATIVE_WEIGHT on both sides: another person's line."""
    keyword = (1 - DENSE_WEIGHT) * getattr(hit, "keyword", 0.0)
    dense = DENSE_WEIGHT * getattr(hit, "dense", 0.0)
    return replace(hit, score=hit.score - (1 - ALTERNATIVE_WEIGHT) * (keyword + dense))


def context_fetch(index: MemoryIndex, hits: list[Hit]) -> dict[Key, list[str]]:
    """The CONTEXT_BEFORE lines before each recalled turn, as the keyword side reads them
    with it, keyed by the turn's key. Never raises: without them a line stands on its own."""
    wanted: dict[tuple[str, str], dict[str, list[Key]]] = {}
    for hit in hits:
        instance_id = str(hit.metadata.get("instance_id", ""))
        for before in _context_ids(hit):
            wanted.setdefault(("turns", instance_id), {}).setdefault(before, []).append(hit.key)
    found: dict[Key, list[str]] = {}
    try:
        for (collection, instance_id), ids in wanted.items():
            for line in index.hits_get(collection, instance_id, list(ids)):
                for key in ids[line.id]:
                    found.setdefault(key, []).append(line.text)
    except Exception as exc:  # noqa: BLE001
        log.warning("context lines unavailable: %s", exc)
    return found


def _context_ids(hit: Hit) -> list[str]:
    """Ids of the CONTEXT_BEFORE (2) lines before a turn: a reply's question and the reply
    before it; a line's reply before it and that reply's question."""
    first = _line_before_id(hit)
    if first is None:
        return []
    session_id = hit.metadata.get("session_id")
    turn = int(first.rsplit("_", 2)[1])
    if first.endswith("_user"):
        return [first, f"turn_{session_id}_{turn - 1}_assistant"] if turn > 1 else [first]
    return [first, f"turn_{session_id}_{turn}_user"]


def rankings_interleave(rankings: list[list[Hit]], k: int) -> list[Hit]:
    """One ranking from the rankings of a question's parts: their first hits, then their
    second hits, ..., each document once. Every part keeps a fair share of the top k."""
    merged: dict[Key, Hit] = {}
    for rank in range(max((len(r) for r in rankings), default=0)):
        for ranking in rankings:
            if rank < len(ranking):
                merged.setdefault(ranking[rank].key, ranking[rank])
    return list(merged.values())[:k]


def fallback_search(query: str, *, instance_id: str, reference_instance_ids: list[str],
                    background_id: str | None, index: MemoryIndex,
                    n_current: int = 15, n_reference: int = 5) -> tuple[list[Hit], list[Hit]]:
    """The director's fallback: events of this instance (summaries, plots, turns) and reference
    events (summaries, plots) of the instances `reference_instance_ids` names, which the caller
    takes from the same owner's instance files (memory/selectors.py): a filter that only
    excluded this instance showed one account's summaries to another. Which character's
    conversations those are is the list's business, not the documents' `character_id` (that
    is a conversation's first member, not every member who witnessed it).
    Never raises: an unavailable index gives two empty lists (logged)."""
    same_world = {"background_id": background_id or ""}
    others = [other for other in dict.fromkeys(reference_instance_ids) if other != instance_id]
    try:
        current = _distinct(hybrid_search(
            index, ("summaries", "plots", "turns"), query,
            where={"instance_id": instance_id, **same_world}, k=2 * n_current), n_current)
        reference = _distinct(hybrid_search(
            index, EVENT_COLLECTIONS, query, where={"instance_id": {"$in": others}, **same_world},
            k=2 * n_reference), n_reference) if others else []
    except Exception as exc:  # same rule as everyday recall: no recall beats a failed turn
        log.warning("fallback recall unavailable for %s: %s", instance_id, exc)
        return [], []
    return current, reference


def _distinct(hits: list[Hit], n: int) -> list[Hit]:
    """The first `n` hits of different texts: a line said again and again took seven of the
    director's fifteen places."""
    kept: dict[str, Hit] = {}
    for hit in hits:
        kept.setdefault(" ".join(hit.text.split()), hit)
    return list(kept.values())[:n]


def neighbours_fetch(index: MemoryIndex, hits: list[Hit]) -> dict[Key, Hit]:
    """The line before each recalled turn (the question a reply answers, or the reply a line
    answers), keyed by the recalled turn's key (Hit.key); lines already recalled are not
    fetched again. Never raises: without neighbours the recalled lines still stand on their own."""
    recalled = {hit.key for hit in hits}
    wanted: dict[tuple[str, str], dict[str, Key]] = {}
    for hit in hits:
        before = _line_before_id(hit)
        instance_id = str(hit.metadata.get("instance_id", ""))
        if before and ("turns", instance_id, before) not in recalled:
            wanted.setdefault(("turns", instance_id), {})[before] = hit.key
    found: dict[Key, Hit] = {}
    try:
        for (collection, instance_id), ids in wanted.items():
            for neighbour in index.hits_get(collection, instance_id, list(ids)):
                found[ids[neighbour.id]] = neighbour
    except Exception as exc:  # noqa: BLE001
        log.warning("neighbouring lines unavailable: %s", exc)
    return found


def _line_before_id(hit: Hit) -> str | None:
    if hit.collection != "turns":
        return None
    session_id, role = hit.metadata.get("session_id"), hit.metadata.get("role")
    try:
        turn = int(hit.metadata.get("turn"))
    except (TypeError, ValueError):
        return None
    if role == "assistant":
        return f"turn_{session_id}_{turn}_user"
    return f"turn_{session_id}_{turn - 1}_assistant" if turn > 1 else None
