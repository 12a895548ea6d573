"""`vectorized` world-info entries: how close the recent chat is to each entry's content, by the
app's own embedding model (personalab/lib/embedding/embeddings.py, multilingual e5, offline).

An entry is embedded once per content: vectors are cached in this process by a hash of the
text (bounded LRU), so a turn embeds only its query (the newest messages) and the entries
that changed since. Runs in the turn's preparing thread, never on the event loop.
"""

from __future__ import annotations

import logging

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from library.worldinfo_keys import entry_key

log = logging.getLogger(__name__)

# Measured with bench/worldinfo_vectors.py (8 chats x 6 entries, English and Chinese): pairs
# that belong together scored 0.815-0.919, the others 0.724-0.809. A book can set its own
# ("vector_threshold"); e5's scores sit high, so the margin is narrow.
DEFAULT_THRESHOLD = 0.81
# SillyTavern's vector storage queries with the newest 2 messages by default.
QUERY_MESSAGES = 2
QUERY_CHARS = 2000
CACHE_SIZE = 4096

_cache: OrderedDict[str, np.ndarray] = OrderedDict()
_cache_lock = threading.Lock()


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _passages(texts: list[str], embed_passages: Callable[[list[str]], np.ndarray]) -> np.ndarray:
    keys = [content_hash(text) for text in texts]
    with _cache_lock:
        missing = list(dict.fromkeys(k for k in keys if k not in _cache))
    if missing:
        text_of = dict(zip(keys, texts))
        vectors = embed_passages([text_of[k] for k in missing])
        with _cache_lock:
            for key, vector in zip(missing, vectors):
                _cache[key] = np.asarray(vector, dtype=np.float32)
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    with _cache_lock:
        found = {k: _cache[k] for k in keys if k in _cache}
    if len(found) < len(set(keys)):  # evicted meanwhile by another turn: embed again
        rest = [t for k, t in zip(keys, texts) if k not in found]
        found.update(zip([content_hash(t) for t in rest], embed_passages(rest)))
    return np.stack([found[k] for k in keys])


def cache_size() -> int:
    with _cache_lock:
        return len(_cache)


def vector_scorer(messages: list[str], *,
                  embed_queries: Callable[[list[str]], np.ndarray],
                  embed_passages: Callable[[list[str]], np.ndarray],
                  query_messages: int = QUERY_MESSAGES,
                  max_entries: int | None = None,
                  ) -> Callable[[list[dict[str, Any]]], dict[str, float]]:
    """A `vector_scores` for library.worldinfo.lorebook_match: cosine similarity between the
    newest `query_messages` of `messages` and each vectorized entry's content, embedded by
    the memory's models (the caller passes them in). They run only when a book has a
    vectorized entry. Past `max_entries` a turn scores no more of them (the first ones in book
    order), so a book of thousands cannot hold the instance lock for minutes."""

    def scores(entries: list[dict[str, Any]]) -> dict[str, float]:
        if max_entries is not None and len(entries) > max_entries:
            log.warning("world info: %d vectorized entries, only the first %d are scored "
                        "(PERSONALAB_LORE_VECTOR_ENTRIES_MAX)", len(entries), max_entries)
            entries = entries[:max_entries]
        query = "\n".join(m for m in messages[-query_messages:] if m.strip())[-QUERY_CHARS:]
        if not query.strip() or not entries:
            return {}
        question = np.asarray(embed_queries([query])[0], dtype=np.float32)
        vectors = _passages([str(e.get("content", "")) for e in entries], embed_passages)
        similarity = vectors @ question
        return {entry_key(e["lorebook_id"], e): round(float(s), 4)
                for e, s in zip(entries, similarity)}

    return scores
