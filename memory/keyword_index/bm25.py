"""Keyword (BM25) scores for recall: the token positions of one collection's documents of one
instance (KeywordPart) and Okapi BM25 over them (bm25_scores). The parts live in SQLite files
every worker shares (memory/keyword_index/store.py); the words come from
memory/keyword_index/tokens.py.

The keyword side of recall was kept in each process's memory and loaded from Chroma (34.5 s per
process and instance at 100,000 turns) and went stale when another worker wrote. Now each
instance has one SQLite file in the data folder (event_library/keywords/{instance_id}.sqlite3)
that every write through MemoryIndex updates in one transaction and every search reads as it is:
no load step, and the same answer on every worker.

A turn is scored together with the CONTEXT_BEFORE lines before it in its session: a reply such as
"Yes, last Sunday!" means something only together with the question it answers. Each turn stores
its own tokens and those lines' tokens (kept in step when lines are written, rewritten or
deleted); the context counts at CONTEXT_WEIGHT at search time.
"""

from __future__ import annotations

import bisect
import io
import json
import math
from array import array
from dataclasses import dataclass
from typing import Any

import numpy as np

from memory.keyword_index.said_instead import ALTERNATIVE_WEIGHT, Term, query_terms
from memory.keyword_index.stated import stated_marks
from memory.keyword_index.tokens import ask_share, speaker_name, text_tokenize, turn_text

__all__ = ["CONTEXT_BEFORE", "CONTEXT_WEIGHT", "FILTER_KEYS", "KeywordPart", "KeywordScores",
           "ask_share", "bm25_scores", "speaker_name", "text_tokenize", "turn_text"]

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

# What a snapshot's tokens were made by: a snapshot of another version is not used (the log's
# texts are read again), so a change of the tokenizer never mixes old and new tokens.
TOKENS_VERSION = f"snowball-en+irregular+zh-bigrams+stated5/context-{CONTEXT_BEFORE}"


def turn_tokens(text: str, metadata: dict[str, Any]) -> tuple[list[str], int]:
    """A turn's tokens and how many of them are words: its words under its speaker's name,
    then on the player's lines the marks of the facts they tell without a word of the fact's
    kind (stated.stated_marks). A mark is no word: a line's length, which BM25 weighs
    its words by, is its words' (counted, the marks shifted the scores of the lines around)."""
    words = text_tokenize(turn_text(text, metadata))
    marks = stated_marks(text) if metadata.get("role") == "user" else []
    return words + marks, len(words)


def _line_order(metadata: dict[str, Any]) -> tuple[int, int]:
    return int(metadata.get("turn", 0) or 0), 0 if metadata.get("role") == "user" else 1


# The documents holding a run of tokens: their positions (sorted) and how often (KeywordPart.
# term_lines); every other document holds it 0 times.
Lines = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class PartContext:
    """A part's context lines as a search reads them, made once per state of the part: each
    document's context lines (position len(ids) standing for "none"), its context length in
    tokens, and per context line the documents it is context of (`before` argsorted, sorted)."""

    before: list[np.ndarray]
    lengths: np.ndarray
    after: list[tuple[np.ndarray, np.ndarray]]


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
        # Per position, the share of the document that asks (ask_share, in 255ths); None until
        # read from the log when a snapshot made before it was kept is used.
        self.asks: bytearray | None = bytearray()
        # The names lines were said under (a question naming one means "whose line", not a
        # topic); None until read from the log when a snapshot made before they were kept is used.
        self.speakers: set[str] | None = set()
        self.sessions: dict[str, list[tuple[int, int, int]]] = {}
        self.lines: dict[int, tuple[str, tuple[int, int, int]]] = {}  # turn position -> its place
        # Read from a snapshot: (session names, per line its session's code, its place), put
        # into `sessions`/`lines` one session at a time as writes reach it (a search needs none).
        self._packed: tuple[list[str], np.ndarray, np.ndarray] | None = None
        self._position_rows: np.ndarray | None = None
        self._changes = 0  # what context() made is kept while no document is added or removed
        self._context: tuple[int, PartContext] | None = None

    def __len__(self) -> int:
        return len(self.positions)

    @property
    def dead(self) -> int:
        return len(self.ids) - len(self.positions)

    def add(self, doc_id: str, text: str, metadata: dict[str, Any]) -> None:
        self._changes += 1
        old = self.positions.get(doc_id)
        if old is not None:
            self._remove(old)
        is_turn = self.collection == "turns"
        if is_turn:
            tokens, length = turn_tokens(text, metadata)
        else:
            tokens = text_tokenize(text)
            length = len(tokens)
        position = len(self.ids)
        self.ids.append(doc_id)
        self.positions[doc_id] = position
        self.alive.append(1)
        self.lengths.append(length)
        if self.asks is not None:
            self.asks.append(round(255 * ask_share(text)))
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
            speaker = speaker_name(metadata)
            if speaker and self.speakers is not None:
                self.speakers.add(speaker)
            line = (*_line_order(metadata), position)
            session_id = str(metadata.get("session_id", ""))
            lines = self._session_lines(session_id)
            self.lines[position] = (session_id, line)
            at = bisect.bisect(lines, line)
            lines.insert(at, line)
            self._relink(lines, at)

    def add_many(self, documents: list[tuple[str, str, dict[str, Any]]]) -> None:
        """add() of each of `documents` (doc_id, text, metadata) in order, the very same part
        made; new turns (an import's) are added in one go: each session's lines sorted and
        linked to the lines before them once, not one insert and relink per line."""
        doc_ids = [doc_id for doc_id, _, _ in documents]
        if (self.collection != "turns" or len(set(doc_ids)) != len(doc_ids)
                or any(doc_id in self.positions for doc_id in doc_ids)):
            for document in documents:
                self.add(*document)
            return
        start, count = len(self.ids), len(documents)
        self._changes += count
        self.ids.extend(doc_ids)
        self.positions.update(zip(doc_ids, range(start, start + count)))
        self.alive.extend(b"\x01" * count)
        if self.asks is not None:
            self.asks.extend(round(255 * ask_share(text)) for _, text, _ in documents)
        for before in self.before:
            before.extend(array("i", [-1]) * count)
        postings, lengths = self.postings, array("i")
        for position, (_, text, metadata) in enumerate(documents, start=start):
            tokens, length = turn_tokens(text, metadata)
            lengths.append(length)
            for token in tokens:
                found = postings.get(token)
                if found is None:
                    found = postings[token] = array("i")
                found.append(position)
        self.lengths.extend(lengths)
        for key in FILTER_KEYS:
            values = self.values[key]
            self.codes[key].extend(values.setdefault(str(metadata.get(key) or ""), len(values))
                                   for _, _, metadata in documents)
        if self.speakers is not None:
            self.speakers.update(filter(None, (speaker_name(m) for _, _, m in documents)))
        added: dict[str, list[tuple[int, int, int]]] = {}
        for position, (_, _, metadata) in enumerate(documents, start=start):
            session_id = str(metadata.get("session_id", ""))
            line = (*_line_order(metadata), position)
            added.setdefault(session_id, []).append(line)
            self.lines[position] = (session_id, line)
        for session_id, new in added.items():
            lines = self._session_lines(session_id)
            first = bisect.bisect(lines, min(new))
            lines[first:] = sorted([*lines[first:], *new])
            for at in range(first, len(lines)):
                position = lines[at][2]
                for back, before in enumerate(self.before, start=1):
                    before[position] = lines[at - back][2] if at - back >= 0 else -1

    def remove(self, doc_id: str) -> None:
        position = self.positions.get(doc_id)
        if position is not None:
            self._remove(position)

    def _remove(self, position: int) -> None:
        self._changes += 1
        self.alive[position] = 0
        del self.positions[self.ids[position]]
        self._unpack_position(position)
        place = self.lines.pop(position, None)
        if place is not None:
            lines = self.sessions[place[0]]
            at = bisect.bisect_left(lines, place[1])
            del lines[at]
            self._relink(lines, at)

    def _relink(self, lines: list[tuple[int, int, int]], start: int) -> None:
        """Point the lines from `start` on (as far as they can see back) at the lines before
        them."""
        for at in range(start, min(start + CONTEXT_BEFORE + 1, len(lines))):
            position = lines[at][2]
            for back, before in enumerate(self.before, start=1):
                before[position] = lines[at - back][2] if at - back >= 0 else -1

    def _session_lines(self, session_id: str) -> list[tuple[int, int, int]]:
        if self._packed is not None and session_id not in self.sessions:
            names, codes, places = self._packed
            if session_id in names:
                self._unpack_rows(np.flatnonzero(codes == names.index(session_id)))
        return self.sessions.setdefault(session_id, [])

    def session_names(self) -> set[str]:
        """The sessions this part holds lines of (turns)."""
        names = {name for name, lines in self.sessions.items() if lines}
        if self._packed is not None:
            packed, codes, _ = self._packed
            counts = np.bincount(codes, minlength=len(packed)).tolist()
            names |= {name for name, count in zip(packed, counts)
                      if count and name not in self.sessions}
        return names

    def session_doc_ids(self, session_id: str) -> list[str]:
        return [self.ids[line[2]] for line in self._session_lines(session_id)]

    def _unpack_position(self, position: int) -> None:
        if self._packed is None or position in self.lines:
            return
        names, codes, places = self._packed
        if self._position_rows is None:
            self._position_rows = np.full(len(self.ids), -1, dtype=np.int64)
            self._position_rows[places[:, 2]] = np.arange(len(places))
        if position < len(self._position_rows) and self._position_rows[position] >= 0:
            self._session_lines(names[codes[self._position_rows[position]]])

    def _unpack_rows(self, rows: np.ndarray) -> None:
        names, codes, places = self._packed
        chosen = places[rows]
        chosen = chosen[np.lexsort((chosen[:, 2], chosen[:, 1], chosen[:, 0]))]
        session_id = names[codes[rows[0]]] if len(rows) else ""
        lines = list(zip(*(chosen[:, i].tolist() for i in range(3))))
        self.sessions[session_id] = lines
        self.lines.update((line[2], (session_id, line)) for line in lines)

    def _unpack_all(self) -> None:
        if self._packed is not None:
            for session_id in self._packed[0]:
                self._session_lines(session_id)
            self._packed = self._position_rows = None

    def to_bytes(self) -> bytes:
        """The part as plain arrays and JSON (numpy's npz, no pickle): nothing in a data file
        is ever executed."""
        self._unpack_all()
        terms = list(self.postings)
        line_positions = sorted(self.lines)
        names = list(self.sessions)
        code_of = {name: code for code, name in enumerate(names)}
        header = {"collection": self.collection, "ids": self.ids, "terms": terms,
                  "values": self.values, "sessions": names, "tokens": TOKENS_VERSION,
                  "speakers": sorted(self.speakers or ())}
        arrays = {
            "header": np.frombuffer(json.dumps(header, ensure_ascii=False).encode(), np.uint8),
            "alive": np.frombuffer(bytes(self.alive), np.uint8),
            "asks": np.frombuffer(bytes(self.asks or bytearray(len(self.ids))), np.uint8),
            "lengths": np.frombuffer(self.lengths, np.int32),
            "postings_sizes": np.array([len(self.postings[t]) for t in terms], np.int64),
            "postings": (np.concatenate([np.frombuffer(self.postings[t], np.int32) for t in terms])
                         if terms else np.zeros(0, np.int32)),
            "lines": np.array([self.lines[p][1] for p in line_positions],
                              np.int64).reshape(-1, 3),
            "line_codes": np.array([code_of[self.lines[p][0]] for p in line_positions], np.int32),
            **{f"before{i}": np.frombuffer(b, np.int32) for i, b in enumerate(self.before)},
            **{f"codes_{key}": np.frombuffer(self.codes[key], np.int32) for key in FILTER_KEYS},
        }
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> "KeywordPart":
        stored = np.load(io.BytesIO(data), allow_pickle=False)
        header = json.loads(stored["header"].tobytes())
        if header.get("tokens") != TOKENS_VERSION:
            raise ValueError(f"a snapshot of tokens {header.get('tokens')!r}")
        part = cls(header["collection"])
        part.ids = header["ids"]
        part.alive = bytearray(stored["alive"].tobytes())
        part.asks = bytearray(stored["asks"].tobytes()) if "asks" in stored.files else None
        part.positions = dict(zip(part.ids, range(len(part.ids))))
        for dead in np.flatnonzero(stored["alive"] == 0).tolist():
            if part.positions.get(part.ids[dead]) == dead:
                del part.positions[part.ids[dead]]
        part.lengths = array("i", stored["lengths"].tobytes())
        part.before = [array("i", stored[f"before{i}"].tobytes()) for i in range(CONTEXT_BEFORE)]
        flat, start = stored["postings"], 0
        for term, size in zip(header["terms"], stored["postings_sizes"].tolist()):
            part.postings[term] = array("i", flat[start:start + size].tobytes())
            start += size
        part.codes = {key: array("i", stored[f"codes_{key}"].tobytes()) for key in FILTER_KEYS}
        part.values = header["values"]
        part.speakers = set(header["speakers"]) if "speakers" in header else None
        part._packed = (header["sessions"], stored["line_codes"], stored["lines"])
        return part

    def mask(self, equal: dict[str, str]) -> np.ndarray:
        """Live documents whose metadata has the `equal` values."""
        mask = np.frombuffer(self.alive, dtype=np.uint8).astype(bool)
        for key, value in equal.items():
            code = self.values[key].get(value)
            if code is None:
                return np.zeros(len(self.ids), dtype=bool)
            mask &= np.frombuffer(self.codes[key], dtype=np.int32) == code
        return mask

    def context(self) -> PartContext:
        if self._context is not None and self._context[0] == self._changes:
            return self._context[1]
        count = len(self.ids)
        before = [np.frombuffer(b, dtype=np.int32).copy() for b in self.before]
        for positions in before:
            positions[positions < 0] = count
        lengths = np.append(np.frombuffer(self.lengths, dtype=np.int32), 0)
        context_lengths = lengths[:count].astype(np.float64)
        for positions in before:
            context_lengths += CONTEXT_WEIGHT * lengths[positions]
        after = []
        for positions in before:
            order = np.argsort(positions, kind="stable")
            after.append((order, positions[order].astype(np.int64)))  # as own: no cast per search
        made = PartContext(before, context_lengths, after)
        self._context = (self._changes, made)
        return made

    def term_lines(self, token: str, context: PartContext) -> Lines | None:
        """The documents whose line or context lines hold `token`, and how often (a context
        line's at CONTEXT_WEIGHT); None when no document ever did. Only those documents are
        looked at: a common word's few thousand lines, not the part's 100,000."""
        postings = self.postings.get(token)
        if postings is None:
            return None
        own, own_counts = _distinct(np.frombuffer(postings, dtype=np.int32).astype(np.int64))
        found = [own]
        for order, sorted_before in context.after:
            low = np.searchsorted(sorted_before, own, side="left")
            high = np.searchsorted(sorted_before, own, side="right")
            found.append(order[_ranges(low, high)])
        lines, _ = _distinct(np.concatenate(found))
        counts = _counts_at(own, own_counts, lines).astype(np.float64)
        for positions in context.before:
            counts += CONTEXT_WEIGHT * _counts_at(own, own_counts, positions[lines])
        return lines, counts


def _distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(values, return_counts=True) by a sort (postings are sorted already): numpy
    2's hashing unique took 6 ms for a common word's postings at 100,000 lines."""
    if len(values) > 1 and not bool(np.all(values[1:] >= values[:-1])):
        values = np.sort(values)
    if not len(values):
        return values, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
    return values[starts], np.diff(np.append(starts, len(values)))


def _ranges(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The numbers of every range [low[i], high[i]), one after another."""
    sizes = high - low
    total = int(sizes.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    return np.arange(total) + np.repeat(low - (np.cumsum(sizes) - sizes), sizes)


def _counts_at(keys: np.ndarray, counts: np.ndarray, where: np.ndarray) -> np.ndarray:
    """counts[i] where `where` is keys[i] (keys sorted), else 0."""
    if not len(keys):
        return np.zeros(len(where), dtype=np.int64)
    at = np.minimum(np.searchsorted(keys, where), len(keys) - 1)
    return np.where(keys[at] == where, counts[at], 0)


class KeywordScores(dict):
    """Documents' BM25 scores by key, with how much of the question each holds: `held`, the
    IDFs of the question's English words found in a document (or its context lines), summed,
    against `full`, the sum over all of them (a word no line holds counted as the rarest;
    Chinese bigrams count in neither). A line can be the best match by holding only the
    question's commonest word ("going" of "where's the wedding going to be", no line saying
    "wedding")."""

    full: float = 0.0
    held: dict

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.held = {}


def bm25_scores(parts: list[tuple[KeywordPart, np.ndarray]], query: str) -> list[np.ndarray]:
    """Okapi BM25 of `query` for every document of the `parts` (one array per part, by
    position; 0 where the mask is off), the masked documents taken as one corpus."""
    return bm25_scored(parts, query)[0]


def bm25_scored(parts: list[tuple[KeywordPart, np.ndarray]], query: str
                ) -> tuple[list[np.ndarray], list[np.ndarray], float]:
    """bm25_scores, the IDFs of the query's words each document holds summed, and that sum
    for all of them (KeywordScores). A run of a term is scored only at the lines holding it
    (Lines): a question naming a kind of fact has dozens of runs ("what's my job?")."""
    prepared = [(part, mask, part.context()) for part, mask in parts]
    scores = [np.zeros(len(part.ids)) for part, _ in parts]
    held = [np.zeros(len(part.ids)) for part, _ in parts]
    total = sum(int(mask.sum()) for _, mask, _ in prepared)
    if total == 0:
        return scores, held, 0.0
    lengths = [context.lengths for *_, context in prepared]
    average = sum(float(part_lengths[mask].sum())
                  for (_, mask, _), part_lengths in zip(prepared, lengths)) / total or 1.0
    full = 0.0
    for term in query_terms(query, tokenize=text_tokenize):
        weighed = _term_runs(term)
        runs = [_masked_counts(prepared, run) for run, _ in weighed]
        frequency = _frequency(*runs)
        idf = _idf(total, frequency)
        # Words only: a Chinese bigram often spans two words ("旅行定在" gives 行定), and
        # the MemDaily questions lost by it (docs/memory.md, Recall, "Coverage").
        word = bool(term.own) and all(token.isascii() for token in term.own)
        full += idf if word else 0.0
        if frequency == 0:
            continue
        for score, line_best in zip(scores, _best_scores(
                term, weighed, runs, lengths=lengths, total=total, average=average)):
            score += line_best
        if word:
            for holds, by_run in zip(held, zip(*runs)):
                holds[_holds(by_run)] += idf
    return scores, held, full


def _run_counts(part: KeywordPart, run: tuple[str, ...], context: PartContext) -> Lines | None:
    """How often a line (with its context) holds a run of tokens: its rarest token's count."""
    counts = None
    for token in run:
        found = part.term_lines(token, context)
        if found is None:
            return None
        counts = found if counts is None else (
            counts[0], np.minimum(counts[1], _counts_at(*found, counts[0])))
    return counts


def _best_scores(term: Term, weighed: list[tuple[tuple[str, ...], float]],
                 runs: list[list[Lines | None]], *, lengths: list[np.ndarray], total: int,
                 average: float) -> list[np.ndarray]:
    """One term's BM25 per line of each part: the line's best run, each run by its own rarity
    ("paramedic" tells more than "work"), a statement's word at its weight and never above the
    question's own word. The best, not the sum: "I work night shifts" says it no more than
    "I'm a nurse"."""
    cap = _idf(total, _frequency(runs[0])) if term.own else math.inf
    best = [np.zeros(len(part_lengths)) for part_lengths in lengths]
    for (_, weight), by_part in zip(weighed, runs):
        run_idf = weight * min(_idf(total, _frequency(by_part)), cap)
        for line_best, found, part_lengths in zip(best, by_part, lengths):
            if found is not None:
                lines, tf = found
                score = run_idf * tf * (K1 + 1) / (
                    tf + K1 * (1 - B + B * part_lengths[lines] / average))
                line_best[lines] = np.maximum(line_best[lines], score)
    return best


def _masked_counts(prepared: list[tuple[KeywordPart, np.ndarray, PartContext]],
                   run: tuple[str, ...]) -> list[Lines | None]:
    """_run_counts in each part, only the lines its mask keeps that hold the run."""
    counts = []
    for part, mask, context in prepared:
        found = _run_counts(part, run, context)
        if found is not None:
            lines, tf = found
            kept = (mask[lines] != 0) & (tf > 0)
            found = lines[kept], tf[kept]
        counts.append(found)
    return counts


def _term_runs(term: Term) -> list[tuple[tuple[str, ...], float]]:
    """A term's token runs with their weights: the question's own (first, when it has one),
    what a statement says instead and the marks of lines that tell it without its words
    (memory/keyword_index/said_instead.py)."""
    own = [(term.own, 1.0)] if term.own else []
    return (own + [(run, ALTERNATIVE_WEIGHT) for run in term.instead]
            + [((mark,), 1.0) for mark in term.marks])


def _idf(total: int, frequency: int) -> float:
    return math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))


def _frequency(*runs: list[Lines | None]) -> int:
    """How many lines (of all parts) hold any of the runs; a run is its Lines per part."""
    return sum(len(_holds(by_run)) for by_run in zip(*runs))


def _holds(by_run: tuple[Lines | None, ...]) -> np.ndarray:
    """The lines of one part holding any of the runs (positions, each once)."""
    found = [found[0] for found in by_run if found is not None]
    if len(found) == 1:
        return found[0]
    return _distinct(np.concatenate(found))[0] if found else np.zeros(0, dtype=np.int64)
