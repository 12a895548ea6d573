"""`vectorized` world-info entries: how close the recent chat is to each entry's content, by the
app's own embedding model (personalab/lib/embedding/embeddings.py, multilingual e5, offline).

A turn embeds only its query (the newest messages). Entries are embedded when their book is
saved, in the background (library/lore/vector_store.py); a turn scores the entries whose vector
is ready and leaves the others to their keys, so it never waits for the model under its
instance's lock. Runs in the turn's preparing thread, never on the event loop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from library.lore.activation import decorators_split
from library.lore.keys import entry_key, setting
from library.lore.vector_store import content_hash

__all__ = ["DEFAULT_THRESHOLD", "content_hash", "vector_scorer", "vectorized_texts"]

log = logging.getLogger(__name__)

# Measured with bench/worldinfo_vectors.py (8 chats x 6 entries, English and Chinese): pairs
# that belong together scored 0.815-0.919, the others 0.724-0.809. A book can set its own
# ("vector_threshold"); e5's scores sit high, so the margin is narrow.
DEFAULT_THRESHOLD = 0.81
# SillyTavern's vector storage queries with the newest 2 messages by default.
QUERY_MESSAGES = 2
QUERY_CHARS = 2000

Ready = Callable[[list[str]], dict[str, np.ndarray]]


def vector_scorer(messages: list[str], *,
                  embed_queries: Callable[[list[str]], np.ndarray],
                  vectors_ready: Ready,
                  query_messages: int = QUERY_MESSAGES,
                  max_entries: int | None = None,
                  max_books: int | None = None,
                  notes: list[str] | None = None,
                  ) -> Callable[[list[dict[str, Any]]], dict[str, float]]:
    """A `vector_scores` for library.lore.activation.lorebook_match: cosine similarity between the
    newest `query_messages` of `messages` and each vectorized entry's content.
    `vectors_ready(texts)` gives the vectors that exist by content_hash (and asks for the
    others); an entry without one gets no score (its keys still fire it). A turn scores each
    book's first `max_entries` (as a save embeds them, vectorized_texts) of the first
    `max_books` books that have any, in link order. What was left out is said in `notes` (the
    trace's lore problems)."""
    said = notes if notes is not None else []

    def scores(entries: list[dict[str, Any]]) -> dict[str, float]:
        entries = _capped(entries, per_book=max_entries, books=max_books, said=said)
        query = "\n".join(m for m in messages[-query_messages:] if m.strip())[-QUERY_CHARS:]
        if not query.strip() or not entries:
            return {}
        texts = [str(e.get("content", "")) for e in entries]
        ready = vectors_ready(texts)
        scored = [(e, ready[h]) for e, h in zip(entries, map(content_hash, texts)) if h in ready]
        if len(scored) < len(entries):
            said.append(f"{len(entries) - len(scored)} vectorized entries are not embedded yet "
                        "(being embedded in the background): this turn they fire by their "
                        "keys only")
        if not scored:
            return {}
        question = np.asarray(embed_queries([query])[0], dtype=np.float32)
        scored = [(e, v) for e, v in scored if v.shape == question.shape]  # a torn file
        if not scored:
            return {}
        similarity = np.stack([vector for _, vector in scored]) @ question
        return {entry_key(e["lorebook_id"], e): round(float(s), 4)
                for (e, _), s in zip(scored, similarity)}

    return scores


def _capped(entries: list[dict[str, Any]], *, per_book: int | None, books: int | None,
            said: list[str]) -> list[dict[str, Any]]:
    """Each book's first `per_book` entries, of the first `books` books (3,000 entries once
    held a turn for 8 minutes; issue 29). A cap across all books together left a second
    book's vectors, made at its save, never compared."""
    by_book: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        by_book.setdefault(str(entry.get("lorebook_id")), []).append(entry)
    kept: list[dict[str, Any]] = []
    for number, (book_id, own) in enumerate(by_book.items()):
        if books is not None and number >= books:
            rest = list(by_book.values())[books:]
            log.warning("world info: %d more lorebooks with vectorized entries are not scored "
                        "(PERSONALAB_LORE_VECTOR_BOOKS_MAX)", len(rest))
            said.append(f"{sum(map(len, rest))} vectorized entries of {len(rest)} more "
                        f"lorebooks: only the first {books} lorebooks' are compared with the "
                        "chat, these fire by their keys only (PERSONALAB_LORE_VECTOR_BOOKS_MAX)")
            break
        if per_book is not None and len(own) > per_book:
            log.warning("world info: lorebook %s has %d vectorized entries, only the first %d "
                        "are scored (PERSONALAB_LORE_VECTOR_ENTRIES_MAX)",
                        book_id, len(own), per_book)
            said.append(f"lorebook {book_id}: {len(own)} vectorized entries, only the first "
                        f"{per_book} are compared with the chat "
                        "(PERSONALAB_LORE_VECTOR_ENTRIES_MAX)")
            own = own[:per_book]
        kept.extend(own)
    return kept


def vectorized_texts(book: dict[str, Any], *, limit: int) -> list[str]:
    """The texts a turn compares with the chat for `book`'s first `limit` vectorized entries,
    as library.lore.activation.lorebook_match reads them (enabled, decorators taken off)."""
    texts = []
    for entry in book.get("entries") or []:
        if len(texts) >= limit:
            break
        if (isinstance(entry, dict) and entry.get("enabled", True)
                and setting(entry, "vectorized", "vectorized", False)):
            content = decorators_split(str(entry.get("content") or ""))[1]
            if content.strip():
                texts.append(content)
    return texts
