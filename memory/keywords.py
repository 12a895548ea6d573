"""Keyword (BM25) scores for recall, in SQLite FTS5 files every worker shares.

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
import contextlib
import functools
import io
import json
import math
import os
import re
import sqlite3
import threading
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
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
# A keyword file's log of writes is folded into a new snapshot of a collection when it has grown
# by this many entries, or by a tenth of the collection if that is more.
SNAPSHOT_EVERY = 2000
# What a snapshot's tokens were made by: a snapshot of another version is not used (the log's
# texts are read again), so a change of the tokenizer never mixes old and new tokens.
TOKENS_VERSION = f"snowball-en+zh-bigrams/context-{CONTEXT_BEFORE}"

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


_SENTENCE = re.compile(r"[^.!?。！？]*(?:[.!?。！？]+|$)")


def ask_share(text: str) -> float:
    """The share of a line (in characters) in sentences that ask: 1.0 for "What game are you
    playing?", about 0.4 for "Wow! That sounds great. What did you buy?", 0 for a statement."""
    text = text.strip()
    if not text:
        return 0.0
    asked = sum(len(sentence) for sentence in _SENTENCE.findall(text)
                if sentence.rstrip().endswith(("?", "？")))
    return asked / len(text)


def speaker_name(metadata: dict[str, Any]) -> str:
    """The name a line was said under. A group line's `speaker` is a character id; its `name`
    is what a question uses."""
    return str(metadata.get("name") or metadata.get("speaker") or "").strip()


def turn_text(text: str, metadata: dict[str, Any]) -> str:
    """What a turn is embedded and matched as: its speaker's name (when the app knows it)
    carries meaning a question will use ("What did Caroline say…")."""
    speaker = speaker_name(metadata)
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

    def remove(self, doc_id: str) -> None:
        position = self.positions.get(doc_id)
        if position is not None:
            self._remove(position)

    def _remove(self, position: int) -> None:
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
        """Point the lines from `start` on (as far as they can see back) at the lines before them."""
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


# --- the store: one SQLite file per instance, every worker's copy kept in step ---------------

_SCHEMA = """
PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS log(
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    collection TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    text TEXT,            -- NULL: the document was deleted
    metadata TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS log_collection ON log(collection, seq);
CREATE INDEX IF NOT EXISTS log_doc ON log(collection, doc_id, seq);
CREATE TABLE IF NOT EXISTS snapshots(collection TEXT PRIMARY KEY, seq INTEGER NOT NULL,
                                     part BLOB NOT NULL);
"""
# The metadata a part reads (turn_text, the line order, the filters).
_KEPT = ("session_id", "turn", "role", "speaker", "name", *FILTER_KEYS)
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")

Key = tuple[str, str, str]  # collection, instance_id, doc_id


@dataclass
class _Cached:
    generation: str
    seq: int
    part: KeywordPart


def _log_fill(db: sqlite3.Connection, collection: str, part: KeywordPart) -> None:
    """What a snapshot made before the speakers and ask shares were kept lacks, read from the
    file's log, which keeps the newest entry of every document a snapshot holds."""
    speakers: set[str] = set()
    asks = bytearray(len(part.ids))
    for doc_id, text, name, speaker in db.execute(
            "SELECT doc_id, text, json_extract(metadata, '$.name'), "
            "json_extract(metadata, '$.speaker') FROM log "
            "WHERE collection = ? AND text IS NOT NULL ORDER BY seq", (collection,)):
        speakers.add(speaker_name({"name": name, "speaker": speaker}))
        position = part.positions.get(doc_id)
        if position is not None:
            asks[position] = round(255 * ask_share(text))
    if part.speakers is None:
        part.speakers = speakers - {""}
    if part.asks is None:
        part.asks = asks


class KeywordStore:
    """The keyword parts of every instance, shared by every worker through one SQLite file per
    instance (`folder/{instance_id}.sqlite3`).

    A write appends its documents to the file's log (one transaction); the log's sequence number
    is the version every writer bumps. A search reads the newest sequence number first and
    applies only the log entries this process has not seen to its parts in memory, so every
    worker searches what every worker wrote, with no load from Chroma. A part not yet in memory
    starts from the collection's snapshot in the file (its arrays, written as the log grows by
    SNAPSHOT_EVERY entries), so a new process reads arrays instead of tokenizing every document
    again. The scores are the in-memory BM25 of bm25_scores, unchanged."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._lock = threading.RLock()
        self._cache: dict[tuple[str, str], _Cached] = {}
        self._readers: dict[str, tuple[tuple[int, int], sqlite3.Connection]] = {}

    def _path(self, instance_id: str) -> Path:
        if not _SAFE_NAME.fullmatch(instance_id):
            raise ValueError(f"not an instance id: {instance_id!r}")
        return self.folder / f"{instance_id}.sqlite3"

    @contextlib.contextmanager
    def _connect(self, instance_id: str, *, create: bool) -> Iterator[sqlite3.Connection | None]:
        path = self._path(instance_id)
        if not create and not path.exists():
            yield None
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, timeout=60, isolation_level=None)
        try:
            if create:  # a search never writes (the schema script alone costs ~3 ms)
                db.executescript(_SCHEMA)
                db.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('generation', ?)",
                           (os.urandom(8).hex(),))
            yield db
        finally:
            db.close()

    def instance_ids(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.sqlite3"))

    # writes ----------------------------------------------------------------------------------
    def upsert(self, collection: str, instance_id: str, documents: list[Document]) -> None:
        self._log(collection, instance_id, [
            (doc_id, text, {key: metadata[key] for key in _KEPT if key in metadata})
            for doc_id, text, metadata in documents])

    def delete(self, collection: str, instance_id: str, doc_ids: list[str]) -> None:
        if doc_ids and self._path(instance_id).exists():
            self._log(collection, instance_id, [(doc_id, None, {}) for doc_id in doc_ids])

    def _log(self, collection: str, instance_id: str,
             entries: list[tuple[str, str | None, dict[str, Any]]]) -> None:
        if not entries:
            return
        with self._connect(instance_id, create=True) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(
                    "INSERT INTO log(collection, doc_id, text, metadata) VALUES (?,?,?,?)",
                    [(collection, doc_id, text, json.dumps(meta, ensure_ascii=False))
                     for doc_id, text, meta in entries])
                self._snapshot_maybe(db, instance_id, collection)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                with self._lock:  # it may have read the entries that were just undone
                    self._cache.pop((instance_id, collection), None)
                raise

    def _snapshot_maybe(self, db: sqlite3.Connection, instance_id: str, collection: str) -> None:
        """Fold the log into a new snapshot when it has grown enough since the last one (the
        caller holds the file's write lock)."""
        row = db.execute("SELECT seq FROM snapshots WHERE collection = ?", (collection,)).fetchone()
        since = row[0] if row else 0
        pending = db.execute("SELECT count(*) FROM log WHERE collection = ? AND seq > ?",
                             (collection, since)).fetchone()[0]
        if pending < SNAPSHOT_EVERY:
            return
        with self._lock:
            cached = self._refresh(db, instance_id, collection)
            if pending < max(SNAPSHOT_EVERY, len(cached.part) // 10):
                return
            part = cached.part
            if part.dead > max(DEAD_MAX, len(part)):  # rewritten many times: read it afresh
                part = self._replay(db, collection)
                self._cache[(instance_id, collection)] = _Cached(cached.generation, cached.seq, part)
            db.execute("INSERT OR REPLACE INTO snapshots(collection, seq, part) VALUES (?,?,?)",
                       (collection, cached.seq, part.to_bytes()))
        # Entries the snapshot holds and a later entry replaces are no longer needed.
        db.execute("DELETE FROM log WHERE collection = ? AND seq <= ? AND (text IS NULL OR seq < "
                   "(SELECT max(seq) FROM log AS newer WHERE newer.collection = log.collection "
                   "AND newer.doc_id = log.doc_id))", (collection, cached.seq))

    @staticmethod
    def _replay(db: sqlite3.Connection, collection: str) -> KeywordPart:
        part = KeywordPart(collection)
        for doc_id, text, meta in db.execute(
                "SELECT doc_id, text, metadata FROM log WHERE collection = ? ORDER BY seq",
                (collection,)):
            if text is None:
                part.remove(doc_id)
            else:
                part.add(doc_id, text, json.loads(meta))
        return part

    def delete_instance(self, instance_id: str) -> None:
        path = self._path(instance_id)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        with self._lock:
            for key in [key for key in self._cache if key[0] == instance_id]:
                del self._cache[key]
            kept = self._readers.pop(instance_id, None)
            if kept is not None:
                kept[1].close()

    def reset(self) -> None:
        for instance_id in self.instance_ids():
            self.delete_instance(instance_id)
        with self._lock:
            self._cache.clear()

    # reads -----------------------------------------------------------------------------------
    def _refresh(self, db: sqlite3.Connection | None, instance_id: str,
                 collection: str) -> _Cached:
        """This process's part of (instance, collection), brought up to the file's newest
        entry (the caller holds self._lock)."""
        key = (instance_id, collection)
        if db is None:
            self._cache.pop(key, None)
            return _Cached("", 0, KeywordPart(collection))
        row = db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        generation = row[0] if row else ""
        top = db.execute("SELECT coalesce(max(seq), 0) FROM log").fetchone()[0]
        cached = self._cache.get(key)
        if cached is not None and cached.generation == generation and cached.seq == top:
            return cached
        snapshot = db.execute("SELECT seq, part FROM snapshots WHERE collection = ?",
                              (collection,)).fetchone()
        if (cached is None or cached.generation != generation
                or (snapshot is not None and snapshot[0] > cached.seq)):
            cached = _Cached(generation, 0, KeywordPart(collection))
            if snapshot is not None:
                try:
                    cached = _Cached(generation, snapshot[0], KeywordPart.from_bytes(snapshot[1]))
                except ValueError:  # made by another tokenizer: the log's texts are read again
                    pass
        if cached.part.speakers is None or cached.part.asks is None:
            _log_fill(db, collection, cached.part)
        for doc_id, text, meta in db.execute(
                "SELECT doc_id, text, metadata FROM log WHERE collection = ? AND seq > ? "
                "AND seq <= ? ORDER BY seq", (collection, cached.seq, top)):
            if text is None:
                cached.part.remove(doc_id)
            else:
                cached.part.add(doc_id, text, json.loads(meta))
        cached.seq = top
        self._cache[key] = cached
        return cached

    def _reader(self, instance_id: str) -> sqlite3.Connection | None:
        """A connection kept open for searches (opening one costs milliseconds); opened again
        when the file was deleted or replaced (delete_instance, reset in another process)."""
        path = self._path(instance_id)
        try:
            identity = (path.stat().st_dev, path.stat().st_ino)
        except FileNotFoundError:
            identity = None
        kept = self._readers.get(instance_id)
        if kept is not None and kept[0] == identity:
            return kept[1]
        if kept is not None:
            kept[1].close()
            del self._readers[instance_id]
        if identity is None:
            return None
        db = sqlite3.connect(path, timeout=60, isolation_level=None, check_same_thread=False)
        self._readers[instance_id] = (identity, db)
        return db

    def part(self, instance_id: str, collection: str) -> KeywordPart:
        with self._lock:
            db = self._reader(instance_id)
            if db is not None:
                db.execute("BEGIN")  # one snapshot of the file while it is read
            try:
                return self._refresh(db, instance_id, collection).part
            except sqlite3.OperationalError as exc:
                if "no such table" not in str(exc):
                    raise
                return KeywordPart(collection)  # a file its writer is creating right now
            finally:
                if db is not None:
                    db.execute("COMMIT")

    def missing(self, instance_id: str, collection: str, doc_ids: list[str]) -> list[str]:
        """Those of `doc_ids` the instance's keyword file does not hold."""
        with self._lock:
            part = self.part(instance_id, collection)
            return [doc_id for doc_id in doc_ids if doc_id not in part.positions]

    def speakers(self, instance_ids: list[str]) -> set[str]:
        """The names the instances' lines were said under."""
        with self._lock:
            return set().union(*(self.part(owner, "turns").speakers
                                 for owner in dict.fromkeys(instance_ids)))

    def ask_shares(self, keys: list[Key]) -> dict[Key, float]:
        """The share of each document that asks (ask_share), for the `keys` the store holds."""
        wanted: dict[tuple[str, str], list[Key]] = {}
        for key in keys:
            wanted.setdefault((key[1], key[0]), []).append(key)
        shares: dict[Key, float] = {}
        with self._lock:
            for (instance_id, collection), chosen in wanted.items():
                part = self.part(instance_id, collection)
                for key in chosen:
                    position = part.positions.get(key[2])
                    if position is not None and part.asks is not None:
                        shares[key] = part.asks[position] / 255
        return shares

    def scores(self, instance_ids: list[str], collections: tuple[str, ...], query: str, *,
               equal: dict[str, str], k: int, also: list[Key]) -> dict[Key, float]:
        """BM25 scores (above zero) of the k best keyword matches of `query` among the
        documents of the instances' collections that have the `equal` metadata values, taken
        as one corpus, and of the documents `also` names."""
        if any(key not in FILTER_KEYS or not isinstance(value, str) for key, value in equal.items()):
            raise ValueError(f"keyword search cannot filter on {sorted(equal)}")
        with self._lock:
            parts = [(name, owner, self.part(owner, name)) for name in collections
                     for owner in dict.fromkeys(instance_ids)]
            arrays = bm25_scores([(part, part.mask(equal)) for _, _, part in parts], query)
            found: dict[Key, float] = {}
            for (name, owner, part), scores in zip(parts, arrays):
                top = np.argpartition(-scores, k)[:k] if len(scores) > k else range(len(scores))
                found.update({(name, owner, part.ids[p]): float(scores[p])
                              for p in top if scores[p] > 0})
            result = dict(sorted(found.items(), key=lambda item: (-item[1], item[0]))[:k])
            scored = {(name, owner): (part, scores)
                      for (name, owner, part), scores in zip(parts, arrays)}
            for key in also:
                part, scores = scored.get(key[:2], (None, None))
                position = part.positions.get(key[2]) if part is not None else None
                if position is not None and scores[position] > 0:
                    result[key] = float(scores[position])
            return result
