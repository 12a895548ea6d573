"""Recall while an import is being embedded: lines the keyword store holds and Chroma does not yet.

An imported chat is searchable by keyword at once and embedded in the background, newest lines
first (memory/vectors/fill.py). A line without vectors would count 0 on the dense side of the fusion, so
while a fill ran, the old half of a chat lost to every embedded line that merely sounded like the
question (a REALTALK chat half filled: recall@10 of its old half 0.38, against 0.77 once filled;
bench/recall_fill.py). Here the keyword side's best lines that Chroma lacks are embedded for the
question at hand, as the fill will embed them (e5 with the line before, MiniLM alone), and enter
the dense side with the cosines they will have: the ranking during the fill is the one after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memory.recall.passages import lines_near
from memory.vectors.index import Hit, MemoryIndex, turn_embedding_text
from personalab.lib.embedding.embeddings import passages_embed, second_wanted

Key = tuple[str, str, str]  # collection, instance_id, doc_id (Hit.key)


@dataclass
class Unembedded:
    """The lines scored here, and the cosines each model will give them once they are stored."""

    hits: dict[Key, Hit] = field(default_factory=dict)
    dense: dict[Key, float] = field(default_factory=dict)
    second: dict[Key, float] = field(default_factory=dict)


def unembedded_score(index: MemoryIndex, candidates: list[Key], *, query: str,
                     query_embedding: list[float]) -> Unembedded:
    """e5's cosines (the question's `query_embedding` against each line with the line before
    it) and MiniLM's (when it is on and embeds the line) of those of the `candidates` lines
    that e5's collection does not hold yet."""
    hits = _lacking_hits(index, [key for key in candidates if key[0] == "turns"])
    if not hits:
        return Unembedded()
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
    by_instance: dict[str, list[str]] = {}
    for _, instance_id, doc_id in keys:
        by_instance.setdefault(instance_id, []).append(doc_id)
    hits: list[Hit] = []
    for instance_id, doc_ids in by_instance.items():
        lacking = index.vectors_lacking(instance_id, doc_ids)
        hits += index.hits_get("turns", instance_id, lacking) if lacking else []
    return hits


def _embedding_text(hit: Hit) -> str:
    return turn_embedding_text({**hit.metadata, "content": hit.text})


def _cosines(rows: np.ndarray, query: list[float] | np.ndarray) -> list[float]:
    vector = np.asarray(query, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1) * float(np.linalg.norm(vector))
    return [float(value) for value in (rows @ vector) / np.where(norms > 0, norms, 1.0)]
