"""Issue 17's experiment: MiniLM scores a line by its best sentence as well as by the whole line.

Beside each line's MiniLM vector, the speaker-prefixed line is cut at sentence ends
(sentence_pieces: one pass over the characters, no regular expression, so any line a user
wrote is cut in linear time) and each piece of a line with two or more gets its own MiniLM
vector in the same collection, under the line's id with `#n` appended. A search reads 4× the
candidates, groups them by line and scores each line by `max` over {line, its sentences} or by
the `mean` of the line's own cosine and its best sentence's. e5 is untouched. Used by
bench/recall_locomo.py and bench/embed_throughput.py --minilm-sentences. Measured and not kept
(README, Recall, "Sentences").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from memory.vectors.index import (
    SECOND,
    MemoryIndex,
    chroma_id,
    turn_doc_id,
    turn_embedding_text,
    turn_is_indexable,
)

FACTOR = 4
SENTENCE_ENDS = frozenset(".!?…。！？\n")
# Ends that close a sentence even with no space after them ("好。然后", a line break).
_CLOSING = frozenset("。！？\n")
MIN_WORDS = 4
MOST_PIECES = 6


def sentence_pieces(text: str, *, min_words: int = MIN_WORDS,
                    most: int = MOST_PIECES) -> list[str]:
    """`text`'s sentences, a piece under `min_words` words merged into its neighbour (the next
    one, the last into the one before), at most `most` pieces: the rest joined into the last."""
    merged: list[str] = []
    for piece in _sentences(text):
        if merged and len(merged[-1].split()) < min_words:
            merged[-1] = f"{merged[-1]} {piece}"
        else:
            merged.append(piece)
    if len(merged) > 1 and len(merged[-1].split()) < min_words:
        last = merged.pop()
        merged[-1] = f"{merged[-1]} {last}"
    if len(merged) > most:
        merged[most - 1:] = [" ".join(merged[most - 1:])]
    return merged


def _sentences(text: str) -> list[str]:
    """`text` cut after each run of sentence ends followed by a space or the end ("3.5" and
    "e.g.x" stay whole), or after a closing end; empty pieces dropped."""
    pieces: list[str] = []
    start = position = 0
    while position < len(text):
        if text[position] not in SENTENCE_ENDS:
            position += 1
            continue
        stop = position + 1
        while stop < len(text) and text[stop] in SENTENCE_ENDS:
            stop += 1
        if stop == len(text) or text[stop].isspace() or text[stop - 1] in _CLOSING:
            piece = text[start:stop].strip()
            if piece:
                pieces.append(piece)
            start = stop
        position = stop
    tail = text[start:].strip()
    if tail:
        pieces.append(tail)
    return pieces


class SentenceIndex(MemoryIndex):
    mode = "max"

    def second_add(self, *, owner: dict[str, Any], turns: list[dict[str, Any]]) -> None:
        super().second_add(owner=owner, turns=turns)
        instance_id, session_id = owner["instance_id"], owner["session_id"]
        meta = {**owner, "background_id": owner.get("background_id") or ""}
        ids, texts, metas = [], [], []
        for line in (line for line in turns if turn_is_indexable(line)):
            doc_id = turn_doc_id(session_id, line)
            pieces = sentence_pieces(turn_embedding_text(line))
            if len(pieces) < 2:
                continue
            for number, piece in enumerate(pieces, 1):
                ids.append(chroma_id(instance_id, f"{doc_id}#{number}"))
                texts.append(piece)
                metas.append({**meta, "doc_id": doc_id})
        for start in range(0, len(ids), 256):
            rows = self._second_embed(texts[start:start + 256], is_query=False)
            self._call(SECOND, "upsert", ids=ids[start:start + 256], embeddings=rows.tolist(),
                       metadatas=metas[start:start + 256])

    def second_search(self, query: str, *, where: dict[str, Any], n_results: int
                      ) -> dict[tuple[str, str, str], float]:
        if n_results <= 0 or not self.second_on():
            return {}
        embedding = self._second_embed([query], is_query=True)[0]
        count = self._call(SECOND, "count")
        result = self._call(SECOND, "query", query_embeddings=[embedding.tolist()],
                            n_results=min(count, n_results * FACTOR), include=["distances"])
        line_score: dict[str, float] = {}
        best_piece: dict[str, float] = {}
        for stored_id, distance in zip(result["ids"][0], result["distances"][0]):
            line_id, _, piece = stored_id.partition("#")
            target = best_piece if piece else line_score
            target[line_id] = max(target.get(line_id, -1.0), 1.0 - float(distance))
        order = sorted({**line_score, **best_piece},
                       key=lambda i: -max(line_score.get(i, -1), best_piece.get(i, -1)))
        chosen = order[:n_results]
        if self.mode == "mean":
            wanted = [i for i in chosen if i not in line_score]
            if wanted:
                got = self._call(SECOND, "get", ids=wanted, include=["embeddings"])
                for stored_id, vector in zip(got["ids"], got["embeddings"]):
                    line_score[stored_id] = float(np.dot(np.asarray(vector), embedding))
            scores = {i: (line_score[i] + best_piece[i]) / 2 if i in best_piece
                      else line_score[i] for i in chosen}
        else:
            scores = {i: max(line_score.get(i, -1.0), best_piece.get(i, -1.0)) for i in chosen}
        return {("turns", *i.split(":", 1)): score for i, score in scores.items()}
