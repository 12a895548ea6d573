"""Recall while an import is being embedded: lines the keyword store holds and Chroma does not yet.

An imported chat is searchable by keyword at once and embedded in the background, newest lines
first (memory/vectors/fill.py). A line without vectors would count 0 on the dense side of the fusion, so
while a fill ran, the old half of a chat lost to every embedded line that merely sounded like the
question (a REALTALK chat half filled: recall@10 of its old half 0.38, against 0.77 once filled;
bench/recall_fill.py). Here the keyword side's best lines that Chroma lacks are embedded for the
question at hand, as the fill will embed them (e5 with the line before, MiniLM alone), and enter
the dense side with the cosines they will have: the ranking during the fill is the one after it.

A turn does not wait for the fill: at most UNEMBEDDED_MAX of those lines (the keyword side's
best) are embedded for it, on the query side's engine (turn_scope), never behind the fill's
calls; the others count with their keyword score alone, as before they are embedded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memory.recall.passages import lines_near
from memory.vectors.index import Hit, MemoryIndex, turn_embedding_text
from personalab.lib.embedding.embeddings import passages_embed, second_wanted, turn_scope

Key = tuple[str, str, str]  # collection, instance_id, doc_id (Hit.key)

# Lines embedded for one search while their chat fills. A turn searches 120 candidates
# (memory/recall/turn.py): right after a big import nearly all lack vectors, and embedding them
# all (with the line before each, and MiniLM) took 2.6 s of a turn on idle cores and most of a
# 134 s first reply at load ~20. 32 covers the whole pool of a k=10 search (POOL_DEPTH_MIN 25),
# so bench/recall_fill.py's figures stand.
UNEMBEDDED_MAX = 32


@dataclass
class Unembedded:
    """The lines scored here, and the cosines each model will give them once they are stored."""

    hits: dict[Key, Hit] = field(default_factory=dict)
    dense: dict[Key, float] = field(default_factory=dict)
    second: dict[Key, float] = field(default_factory=dict)


def unembedded_score(index: MemoryIndex, candidates: list[Key], *, query: str,
                     query_embedding: list[float]) -> Unembedded:
    """e5's cosines (the question's `query_embedding` against each line with the line before
    it) and MiniLM's (when it is on and embeds the line) of the first UNEMBEDDED_MAX of the
    `candidates` lines (best first) that e5's collection does not hold yet."""
    hits = _lacking_hits(index, [key for key in candidates if key[0] == "turns"])
    if not hits:
        return Unembedded()
    with turn_scope():
        return _scored(index, hits, query=query, query_embedding=query_embedding)


def _scored(index: MemoryIndex, hits: list[Hit], *, query: str,
            query_embedding: list[float]) -> Unembedded:
    near = lines_near(index, hits)
    texts = [_embedding_text(hit) for hit in hits]
    befores = [near[hit.key].before if hit.key in near else None for hit in hits]
    rows = np.asarray(passages_embed(index.embedder, texts,
                                     [_embedding_text(b) if b else None for b in befores]))
    found = Unembedded(hits={hit.key: hit for hit in hits},
                       dense=dict(zip((hit.key for hit in hits), _cosines(rows, query_embedding))))
    wanted = [(hit, text) for hit, text in zip(hits, texts) if second_wanted(hit.text)]
    second_rows = index.second_rows([text for _, text in wanted], is_query=False)
    second_query = index.second_rows([query], is_query=True) if second_rows is not None else None
    if second_rows is not None and second_query is not None:
        found.second = dict(zip((hit.key for hit, _ in wanted),
                                _cosines(second_rows, second_query[0])))
    return found


def searched_as_if_stored(scores: dict[Key, float], fresh: dict[Key, float], *,
                          asked: int) -> dict[Key, float]:
    """`scores` (a dense search's results, which asked for `asked` lines of each collection)
    with the `fresh` lines it would have returned had they been stored: those at or above its
    lowest line of the collection, or all when it returned fewer than it asked for."""
    turns = [score for key, score in scores.items() if key[0] == "turns"]
    low = min(turns) if len(turns) >= asked else -1.0
    return {**scores, **{key: score for key, score in fresh.items()
                         if key not in scores and score >= low}}


def _lacking_hits(index: MemoryIndex, keys: list[Key]) -> list[Hit]:
    """The first UNEMBEDDED_MAX of `keys` (in their order) e5's collection lacks, as hits."""
    by_instance: dict[str, list[str]] = {}
    for _, instance_id, doc_id in keys:
        by_instance.setdefault(instance_id, []).append(doc_id)
    lacking: set[Key] = set()
    for instance_id, doc_ids in by_instance.items():
        lacking.update(("turns", instance_id, doc_id)
                       for doc_id in index.vectors_lacking(instance_id, doc_ids))
    chosen = [key for key in keys if key in lacking][:UNEMBEDDED_MAX]
    wanted: dict[str, list[str]] = {}
    for _, instance_id, doc_id in chosen:
        wanted.setdefault(instance_id, []).append(doc_id)
    hits = {("turns", instance_id, hit.id): hit for instance_id, doc_ids in wanted.items()
            for hit in index.hits_get("turns", instance_id, doc_ids)}
    return [hits[key] for key in chosen if key in hits]


def _embedding_text(hit: Hit) -> str:
    return turn_embedding_text({**hit.metadata, "content": hit.text})


def _cosines(rows: np.ndarray, query: list[float] | np.ndarray) -> list[float]:
    vector = np.asarray(query, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1) * float(np.linalg.norm(vector))
    return [float(value) for value in (rows @ vector) / np.where(norms > 0, norms, 1.0)]
