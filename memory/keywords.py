"""Keyword (BM25) scores for recall, kept in memory and updated as documents are written.

Rebuilding BM25 from Chroma on every recall costs time in proportion to the whole memory (over a
minute at 100,000 turns), so each instance's documents of a collection are tokenized once, when a
search first needs them (`KeywordStore.part`), and every write through MemoryIndex updates them
(`KeywordStore.upsert`, `forget`). Writes from another process are noticed by the collection's
count changing; those parts are then read again.

A turn is scored together with the CONTEXT_BEFORE lines before it in its session: a reply such as
"Yes, last Sunday!" means something only together with the question it answers. Each line is
tokenized once; a turn's context counts are summed from its lines' counts at search time.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
import threading
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import snowballstemmer

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

# The line that set a topic is often two lines back (question, answer, "When?").
CONTEXT_BEFORE = 2
# The lines before count for less than the line itself: in a chat of short statements ("I like
# coding." / "My boss likes gardening.") full weight ranks a line by its neighbour's words.
CONTEXT_WEIGHT = 0.25
# Metadata a search may filter on besides the instance (the director's fallback does).
FILTER_KEYS = ("character_id", "background_id")
K1, B = 1.2, 0.75
# Positions left behind by documents written again, tolerated up to the number of live ones.
DEAD_MAX = 10_000

_TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[a-z0-9]+(?:'[a-z]+)?")

Document = tuple[str, str, dict[str, Any]]  # doc_id, text, metadata (as stored in Chroma)


# --- tokens ----------------------------------------------------------------------


@functools.lru_cache(maxsize=200_000)
def _english_stem(word: str) -> str:
    # Snowball (Porter 2): "running", "runs", "run" meet at "run"; "hiking", "hiked", "hike" at
    # "hike" (a suffix list alone left "runn" and short verbs unstemmed). One stemmer per thread:
    # a stemmer keeps its state while it works.
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        stemmer = _stemmers.english = snowballstemmer.stemmer("english")
    return stemmer.stemWord(word)


_stemmers = threading.local()


def text_tokenize(text: str) -> list[str]:
    """Lower-case English words (stop words out, lightly stemmed) and Chinese character bigrams
    (Chinese has no spaces; bigrams match most two-character words without a dictionary)."""
    tokens: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        if not token.isascii():  # a run of Chinese characters
            tokens += map(str.__add__, token[:-1], token[1:]) if len(token) > 1 else [token]
            continue
        word = token.split("'")[0]
        if word and word not in STOP_WORDS_EN:
            tokens.append(_english_stem(word))
    return tokens


def turn_text(text: str, metadata: dict[str, Any]) -> str:
    """What a turn is embedded and matched as: its speaker's name (when the app knows it)
    carries meaning a question will use ("What did Caroline say…"). A group line's `speaker`
    is a character id; its `name` is what a question uses."""
    speaker = str(metadata.get("name") or metadata.get("speaker") or "").strip()
    return f"{speaker}: {text}" if speaker else text


# --- one collection's documents of one instance ----------------------------------------


def _line_order(metadata: dict[str, Any]) -> tuple[int, int]:
    return int(metadata.get("turn", 0) or 0), 0 if metadata.get("role") == "user" else 1


class KeywordPart:
    """Token positions of one collection's documents of one instance. A document written again
    gets a new position; the old one is marked dead."""

    def __init__(self, collection: str) -> None:
        self.collection = collection
        self.ids: list[str] = []
        self.positions: dict[str, int] = {}
        self.alive = bytearray()
        self.lengths = array("i")
        self.before = [array("i") for _ in range(CONTEXT_BEFORE)]
        self.postings: dict[str, array] = {}
        self.codes = {key: array("i") for key in FILTER_KEYS}
        self.values: dict[str, dict[str, int]] = {key: {} for key in FILTER_KEYS}
        self.sessions: dict[str, list[tuple[int, int, int]]] = {}
        self.lines: dict[int, tuple[str, tuple[int, int, int]]] = {}  # turn position -> its place

    def __len__(self) -> int:
        return len(self.positions)

    @property
    def dead(self) -> int:
        return len(self.ids) - len(self.positions)

    def add(self, doc_id: str, text: str, metadata: dict[str, Any]) -> None:
        old = self.positions.get(doc_id)
        if old is not None:
            self._remove(old)
        is_turn = self.collection == "turns"
        tokens = text_tokenize(turn_text(text, metadata) if is_turn else text)
        position = len(self.ids)
        self.ids.append(doc_id)
        self.positions[doc_id] = position
        self.alive.append(1)
        self.lengths.append(len(tokens))
        for before in self.before:
            before.append(-1)
        for token in tokens:
            postings = self.postings.get(token)
            if postings is None:
                postings = self.postings[token] = array("i")
            postings.append(position)
        for key in FILTER_KEYS:
            values = self.values[key]
            self.codes[key].append(values.setdefault(str(metadata.get(key) or ""), len(values)))
        if is_turn:
            line = (*_line_order(metadata), position)
            session_id = str(metadata.get("session_id", ""))
            self.lines[position] = (session_id, line)
            lines = self.sessions.setdefault(session_id, [])
            at = bisect.bisect(lines, line)
            lines.insert(at, line)
            self._relink(lines, at)

    def remove(self, doc_id: str) -> None:
        position = self.positions.get(doc_id)
        if position is not None:
            self._remove(position)

    def _remove(self, position: int) -> None:
        self.alive[position] = 0
        del self.positions[self.ids[position]]
        place = self.lines.pop(position, None)
        if place is not None:
            lines = self.sessions[place[0]]
            at = bisect.bisect_left(lines, place[1])
            del lines[at]
            self._relink(lines, at)

    def _relink(self, lines: list[tuple[int, int, int]], start: int) -> None:
        """Point the lines from `start` on (as far as they can see back) at the lines before them."""
        for at in range(start, min(start + CONTEXT_BEFORE + 1, len(lines))):
            position = lines[at][2]
            for back, before in enumerate(self.before, start=1):
                before[position] = lines[at - back][2] if at - back >= 0 else -1

    def mask(self, equal: dict[str, str]) -> np.ndarray:
        """Live documents whose metadata has the `equal` values."""
        mask = np.frombuffer(self.alive, dtype=np.uint8).astype(bool)
        for key, value in equal.items():
            code = self.values[key].get(value)
            if code is None:
                return np.zeros(len(self.ids), dtype=bool)
            mask &= np.frombuffer(self.codes[key], dtype=np.int32) == code
        return mask

    def context(self) -> tuple[list[np.ndarray], np.ndarray]:
        """Each document's context lines (position len(self.ids) stands for "none") and its
        context length in tokens."""
        count = len(self.ids)
        before = [np.frombuffer(b, dtype=np.int32).copy() for b in self.before]
        for positions in before:
            positions[positions < 0] = count
        lengths = np.append(np.frombuffer(self.lengths, dtype=np.int32), 0)
        context_lengths = lengths[:count].astype(np.float64)
        for positions in before:
            context_lengths += CONTEXT_WEIGHT * lengths[positions]
        return before, context_lengths

    def term_counts(self, token: str, before: list[np.ndarray]) -> np.ndarray | None:
        postings = self.postings.get(token)
        if postings is None:
            return None
        count = len(self.ids)
        line_counts = np.bincount(np.frombuffer(postings, dtype=np.int32), minlength=count + 1)
        line_counts[count] = 0
        counts = line_counts[:count].astype(np.float64)
        for positions in before:
            counts += CONTEXT_WEIGHT * line_counts[positions]
        return counts


def bm25_scores(parts: list[tuple[KeywordPart, np.ndarray]], query: str) -> list[np.ndarray]:
    """Okapi BM25 of `query` for every document of the `parts` (one array per part, by
    position; 0 where the mask is off), the masked documents taken as one corpus."""
    prepared = [(part, mask, *part.context()) for part, mask in parts]
    scores = [np.zeros(len(part.ids)) for part, _ in parts]
    total = sum(int(mask.sum()) for _, mask, _, _ in prepared)
    if total == 0:
        return scores
    average = sum(float(lengths[mask].sum()) for _, mask, _, lengths in prepared) / total or 1.0
    for token in set(text_tokenize(query)):
        counts = []
        for part, mask, before, _ in prepared:
            found = part.term_counts(token, before)
            counts.append(np.where(mask, found, 0) if found is not None else None)
        frequency = sum(int(np.count_nonzero(c)) for c in counts if c is not None)
        if frequency == 0:
            continue
        idf = math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))
        for score, tf, (_, _, _, lengths) in zip(scores, counts, prepared):
            if tf is not None:
                score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * lengths / average))
    return scores


# --- the store -----------------------------------------------------------------------------

Loader = Callable[[str, str | None], Iterable[tuple[str | None, Document]]]


class KeywordStore:
    """The keyword parts of one MemoryIndex, keyed by (collection, instance_id).

    `loader(collection, instance_id)` reads documents back from Chroma as (instance_id, document)
    pairs; instance_id None means every instance. A collection read whole ("complete") gets a
    new part for each new instance written; otherwise a part appears when a search asks for it.
    """

    def __init__(self, loader: Loader) -> None:
        self._loader = loader
        self._lock = threading.Lock()
        self._parts: dict[tuple[str, str], KeywordPart] = {}
        self._complete: set[str] = set()
        self._loading: dict[tuple[str, str | None], _Loading] = {}
        self._counts: dict[str, int] = {}
        self._writing: dict[str, int] = {}

    # writes ------------------------------------------------------------------------------
    def write_begin(self, collection: str) -> None:
        with self._lock:
            self._writing[collection] = self._writing.get(collection, 0) + 1

    def upsert(self, collection: str, instance_id: str, documents: list[Document]) -> None:
        """Documents this process has just written to Chroma."""
        with self._lock:
            for loading in self._loading.values():
                if loading.covers(collection, instance_id):
                    loading.pending.append((instance_id, documents))
            part = self._parts.get((collection, instance_id))
            if part is None and collection in self._complete:
                part = self._parts[(collection, instance_id)] = KeywordPart(collection)
            if part is None:
                return
            for doc_id, text, metadata in documents:
                part.add(doc_id, text, metadata)
            if part.dead > max(DEAD_MAX, len(part)):  # rewritten many times: read it afresh
                if collection in self._complete:
                    self._drop(collection)
                else:
                    del self._parts[(collection, instance_id)]

    def remove(self, collection: str, instance_id: str, doc_ids: list[str]) -> None:
        """Documents this process has just deleted from Chroma."""
        with self._lock:
            for loading in self._loading.values():
                if loading.covers(collection, instance_id):
                    loading.cancelled = True  # it may have read them before the delete
            part = self._parts.get((collection, instance_id))
            for doc_id in doc_ids if part is not None else ():
                part.remove(doc_id)

    def write_end(self, collection: str, count: int | None) -> None:
        """`count`: the collection's size after this process's write (None: unknown, so the
        next search reads the parts again)."""
        with self._lock:
            self._writing[collection] -= 1
            if count is None:
                self._drop(collection)
            else:
                self._counts[collection] = count

    def forget(self, instance_id: str | None = None) -> None:
        """After Chroma lost an instance's documents (None: every document)."""
        with self._lock:
            for key in [key for key in self._parts if instance_id in (None, key[1])]:
                del self._parts[key]
            for loading in self._loading.values():
                if instance_id is None or loading.instance_id in (None, instance_id):
                    loading.cancelled = True
            if instance_id is None:
                self._complete.clear()
                self._counts.clear()

    def _drop(self, collection: str) -> None:
        for key in [key for key in self._parts if key[0] == collection]:
            del self._parts[key]
        self._complete.discard(collection)
        self._counts.pop(collection, None)
        for loading in self._loading.values():
            if loading.collection == collection:
                loading.cancelled = True

    # reads -------------------------------------------------------------------------------
    def scores(self, parts: list[tuple[KeywordPart, dict[str, str]]], query: str
               ) -> list[np.ndarray]:
        """bm25_scores over the parts' documents that have the given metadata values, under
        the lock: a write appending to a part meanwhile would find its arrays in use."""
        with self._lock:
            return bm25_scores([(part, part.mask(equal)) for part, equal in parts], query)

    def check(self, collection: str, count: int) -> None:
        """Forget a collection's parts when its size is not what this process left it at:
        another process wrote to it (or rebuilt it)."""
        with self._lock:
            if self._writing.get(collection):
                return
            if self._counts.get(collection) != count:
                self._drop(collection)
                self._counts[collection] = count

    def part(self, collection: str, instance_id: str) -> KeywordPart:
        while True:
            with self._lock:
                part = self._parts.get((collection, instance_id))
                if part is not None:
                    return part
                if collection in self._complete:
                    return KeywordPart(collection)
            self._load(collection, instance_id)

    def parts_except(self, collection: str, instance_id: str) -> list[tuple[str, KeywordPart]]:
        """Every other instance's part (the collection is read whole once)."""
        while True:
            with self._lock:
                if collection in self._complete:
                    return [(key[1], part) for key, part in self._parts.items()
                            if key[0] == collection and key[1] != instance_id]
            self._load(collection, None)

    def _load(self, collection: str, instance_id: str | None) -> None:
        key = (collection, instance_id)
        with self._lock:
            loading = self._loading.get(key)
            mine = loading is None
            if mine:
                loading = self._loading[key] = _Loading(collection, instance_id)
        if not mine:
            loading.done.wait()
            return
        try:
            built: dict[str, KeywordPart] = {}
            if instance_id is not None:
                built[instance_id] = KeywordPart(collection)
            for owner, (doc_id, text, metadata) in self._loader(collection, instance_id):
                owner = instance_id or owner or ""
                built.setdefault(owner, KeywordPart(collection)).add(doc_id, text, metadata)
            with self._lock:
                if not loading.cancelled:
                    self._install(collection, instance_id, built, loading.pending)
        finally:
            with self._lock:
                del self._loading[key]
            loading.done.set()

    def _install(self, collection: str, instance_id: str | None, built: dict[str, KeywordPart],
                 pending: list[tuple[str, list[Document]]]) -> None:
        for owner, documents in pending:
            part = built.setdefault(owner, KeywordPart(collection))
            for doc_id, text, metadata in documents:
                part.add(doc_id, text, metadata)
        for owner, part in built.items():
            self._parts[(collection, owner)] = part
        if instance_id is None:
            self._complete.add(collection)


@dataclass
class _Loading:
    collection: str
    instance_id: str | None
    pending: list[tuple[str, list[Document]]] = field(default_factory=list)
    cancelled: bool = False
    done: threading.Event = field(default_factory=threading.Event)

    def covers(self, collection: str, instance_id: str) -> bool:
        return collection == self.collection and self.instance_id in (None, instance_id)
