"""The keyword index's files: one SQLite file per instance (a log of writes and snapshots of
each collection's KeywordPart) that every worker reads, so every worker searches what every
worker wrote (memory/keyword_index/bm25.py scores them)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memory.keyword_index.bm25 import (
    DEAD_MAX,
    FILTER_KEYS,
    KeywordPart,
    KeywordScores,
    bm25_scored,
)
from memory.keyword_index.docs import keyword_documents
from memory.keyword_index.tokens import ask_share, speaker_name

# A keyword file's log of writes is folded into a new snapshot of a collection when it has grown
# by this many entries, or by a tenth of the collection if that is more.
SNAPSHOT_EVERY = 2000

Document = tuple[str, str, dict[str, Any]]  # doc_id, text, metadata (as stored in Chroma)

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
# The metadata a part reads (turn_text, the line order, the filters), and what recall reads of
# a document Chroma does not hold yet (a round's next reply comes before the sync, a summary
# before the sync embeds it again): `joined` (a round's replies, each after its speaker's name),
# `timestamp` (the line's date, and the seed its macros were filled with) and a summary's or
# plot's `speakers` and `created_at` (whose replies it tells and when it was made:
# memory.selectors.recall_witnessed). Without `joined` a round's third member recalled the two
# replies its conversation showed, as its own words; without `speakers` a member that joined
# later did not recall a summary of its own lines. A row written before a key was kept lacks
# it: recall reads each key with a default.
_KEPT = ("session_id", "turn", "role", "speaker", "name", "joined", "timestamp", "speakers",
         "created_at", *FILTER_KEYS)
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")

Key = tuple[str, str, str]  # collection, instance_id, doc_id


# A journal-mode change does not wait for a busy database as other statements do (SQLite gives
# it no busy handler): two first writes racing on a new instance's file, one switching it to WAL
# while the other held it, failed at once with "database is locked" (a whole-suite run).
SCHEMA_TRIES = 50
SCHEMA_RETRY_SECONDS = 0.1


def _schema_make(db: sqlite3.Connection) -> None:
    for attempt in range(SCHEMA_TRIES):
        try:
            db.executescript(_SCHEMA)
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == SCHEMA_TRIES - 1:
                raise
            time.sleep(SCHEMA_RETRY_SECONDS)


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


LogRow = tuple[str, str, str | None, str]  # collection, doc_id, text (None: deleted), metadata


def _changed_only(db: sqlite3.Connection, collection: str, rows: list[LogRow]) -> list[LogRow]:
    """The `rows` (collection, doc_id, text, metadata) that change what the file holds: a
    document written again with the same text and metadata is left out, and so is the delete
    of one it does not hold. After an import the sync and the fill write every line again
    (keywords first, then with its vectors); each write left a dead position behind, and twice
    the lines dead made the writer read the whole log again (`_replay`), holding the lock every
    search waits on (a first reply at load ~20 waited there for most of 134 s). The log keeps
    the newest entry of every document (see _snapshot_maybe), so it is what is compared."""
    newest: dict[str, tuple[str | None, str]] = {}
    doc_ids = list(dict.fromkeys(row[1] for row in rows))
    for start in range(0, len(doc_ids), 500):
        chunk = doc_ids[start:start + 500]
        for doc_id, text, meta in db.execute(
                "SELECT doc_id, text, metadata FROM log WHERE collection = ? AND doc_id IN "
                f"({','.join('?' * len(chunk))}) ORDER BY seq", (collection, *chunk)):
            newest[doc_id] = (text, meta)
    changed = []
    for row in rows:
        held = newest.get(row[1])
        if row[2] is None and (held is None or held[0] is None):
            continue
        if held is not None and held == (row[2], row[3]):
            continue
        newest[row[1]] = (row[2], row[3])  # the same document twice in one write
        changed.append(row)
    return changed


def _entries_apply(part: KeywordPart, entries: Iterable[tuple[str, str | None, str]]) -> None:
    """The log's `entries` (doc_id, text or None for a delete, metadata as JSON) applied to
    `part` in order: the runs of documents it does not hold yet (an import's lines, a snapshot's
    log) added together (KeywordPart.add_many), the rest one at a time."""
    run: list[tuple[str, str, dict[str, Any]]] = []
    in_run: set[str] = set()
    for doc_id, text, meta in entries:
        if text is not None and doc_id not in in_run and doc_id not in part.positions:
            run.append((doc_id, text, json.loads(meta)))
            in_run.add(doc_id)
            continue
        part.add_many(run)
        run, in_run = [], set()
        if text is None:
            part.remove(doc_id)
        else:
            part.add(doc_id, text, json.loads(meta))
    part.add_many(run)


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
                _schema_make(db)
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
        rows = [(collection, doc_id, text, json.dumps(meta, ensure_ascii=False))
                for doc_id, text, meta in entries]
        with self._connect(instance_id, create=True) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                rows = _changed_only(db, collection, rows)
                if rows:
                    db.executemany("INSERT INTO log(collection, doc_id, text, metadata) "
                                   "VALUES (?,?,?,?)", rows)
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
                self._cache[(instance_id, collection)] = _Cached(cached.generation, cached.seq,
                                                                 part)
            db.execute("INSERT OR REPLACE INTO snapshots(collection, seq, part) VALUES (?,?,?)",
                       (collection, cached.seq, part.to_bytes()))
        # Entries the snapshot holds and a later entry replaces are no longer needed.
        db.execute("DELETE FROM log WHERE collection = ? AND seq <= ? AND (text IS NULL OR seq < "
                   "(SELECT max(seq) FROM log AS newer WHERE newer.collection = log.collection "
                   "AND newer.doc_id = log.doc_id))", (collection, cached.seq))

    @staticmethod
    def _replay(db: sqlite3.Connection, collection: str) -> KeywordPart:
        part = KeywordPart(collection)
        _entries_apply(part, db.execute(
            "SELECT doc_id, text, metadata FROM log WHERE collection = ? ORDER BY seq",
            (collection,)))
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

    def close(self) -> None:
        """Close the connections kept for searches; the next search opens its own again
        (they are only used under the lock)."""
        with self._lock:
            readers, self._readers = list(self._readers.values()), {}
        for _, db in readers:
            db.close()

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
        _entries_apply(cached.part, db.execute(
            "SELECT doc_id, text, metadata FROM log WHERE collection = ? AND seq > ? "
            "AND seq <= ? ORDER BY seq", (collection, cached.seq, top)))
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

    def held(self, instance_id: str, collection: str) -> tuple[str, set[str]]:
        """The instance's keyword file's generation (a new one when the file was deleted and
        made again: a reset) and the sessions it holds lines of."""
        with self._lock:
            names = self.part(instance_id, collection).session_names()
            cached = self._cache.get((instance_id, collection))
            return (cached.generation if cached else ""), names

    def session_held(self, instance_id: str, collection: str, session_id: str) -> set[str]:
        """The ids of a session's lines the instance's keyword file holds."""
        with self._lock:
            return set(self.part(instance_id, collection).session_doc_ids(session_id))

    def documents(self, instance_id: str, collection: str, doc_ids: list[str]
                  ) -> dict[str, tuple[str, dict[str, Any]]]:
        """doc_id -> (text, metadata) of those of `doc_ids` the instance's file holds."""
        return keyword_documents(self._path(instance_id), collection, doc_ids)

    def speakers(self, instance_ids: list[str]) -> set[str]:
        """The names the instances' lines were said under."""
        with self._lock:
            return set().union(*(self.part(owner, "turns").speakers
                                 for owner in dict.fromkeys(instance_ids)))

    def term_counts(self, instance_ids: list[str], collections: tuple[str, ...],
                    terms: Iterable[str]) -> dict[str, int]:
        """How many lines of the instances' collections hold each of `terms` (tokens as
        text_tokenize makes them; 0 for a term none holds): the words recall knows, for
        memory/recall/typos.py."""
        with self._lock:
            postings = [self.part(owner, name).postings for name in collections
                        for owner in dict.fromkeys(instance_ids)]
            return {term: sum(len(held.get(term, ())) for held in postings) for term in terms}

    def terms_like(self, instance_ids: list[str], collections: tuple[str, ...], *, first: str,
                   lengths: range, limit: int) -> list[str]:
        """At most `limit` of the terms of the instances' collections that start with `first`
        and whose length is in `lengths` (a misspelt word's neighbours to compare it with)."""
        with self._lock:  # the terms copied (C speed), walked outside: other searches go on
            terms = [list(self.part(owner, name).postings) for name in collections
                     for owner in dict.fromkeys(instance_ids)]
        found: dict[str, None] = {}
        for part_terms in terms:
            for term in part_terms:
                if len(term) in lengths and term.startswith(first):
                    found[term] = None
                    if len(found) >= limit:
                        return list(found)
        return list(found)

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
               equal: dict[str, str], k: int, also: list[Key]) -> KeywordScores:
        """BM25 scores (above zero) of the k best keyword matches of `query` among the
        documents of the instances' collections that have the `equal` metadata values, taken
        as one corpus, and of the documents `also` names; with the score of a full match."""
        if any(key not in FILTER_KEYS or not isinstance(value, str)
               for key, value in equal.items()):
            raise ValueError(f"keyword search cannot filter on {sorted(equal)}")
        with self._lock:
            parts = [(name, owner, self.part(owner, name)) for name in collections
                     for owner in dict.fromkeys(instance_ids)]
            arrays, held, full = bm25_scored([(part, part.mask(equal)) for _, _, part in parts],
                                             query)
            found: dict[Key, float] = {}
            for (name, owner, part), scores in zip(parts, arrays):
                top = np.argpartition(-scores, k)[:k] if len(scores) > k else range(len(scores))
                found.update({(name, owner, part.ids[p]): float(scores[p])
                              for p in top if scores[p] > 0})
            result = KeywordScores(sorted(found.items(), key=lambda item: (-item[1], item[0]))[:k])
            scored = {(name, owner): (part, scores, holds)
                      for (name, owner, part), scores, holds in zip(parts, arrays, held)}
            for key in also:
                part, scores, _ = scored.get(key[:2], (None, None, None))
                position = part.positions.get(key[2]) if part is not None else None
                if position is not None and scores[position] > 0:
                    result[key] = float(scores[position])
            result.full = full
            result.held = {key: float(scored[key[:2]][2][scored[key[:2]][0].positions[key[2]]])
                           for key in result}
            return result
