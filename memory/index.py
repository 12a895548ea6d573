"""The Chroma memory index: conversation turns, plot-point summaries and detailed plot material.

Collections (seeds/personalab-data-layout.md, "Chroma向量库格式"): `summaries` and `plots` as the seed
defines them, plus `turns` (one document per finished user/assistant line) so recall works
before the first summary exists. Everything here can be rebuilt from the files
(`index_rebuild`): Chroma is never the only copy of anything.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from memory.embeddings import default_embedder

COLLECTIONS = ("turns", "summaries", "plots")
EVENT_KIND = {"summaries": "summary", "plots": "plot"}
MAX_GET_BATCH = 5000
DOCUMENTS_CACHE_SIZE = 32


@dataclass
class Hit:
    id: str
    collection: str
    text: str
    score: float
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = ""


def default_chroma_path() -> Path:
    return Path(os.environ.get("PERSONALAB_DATA_DIR", "data")) / "event_library" / "chroma_db"


def chroma_id(instance_id: str, doc_id: str) -> str:
    """The seed's ids (`summary_sess_001_0`, `turn_sess_003_12_user`) repeat in every instance,
    because session ids restart per instance; in the shared collections they are qualified by
    the instance (`inst_001:summary_sess_001_0`). The seed id stays in metadata `doc_id`."""
    return f"{instance_id}:{doc_id}"


def hit_make(collection: str, stored_id: str, text: str | None, metadata: dict[str, Any] | None,
             score: float) -> Hit:
    meta = dict(metadata or {})
    doc_id = str(meta.get("doc_id") or stored_id.split(":", 1)[-1])
    return Hit(id=doc_id, collection=collection, text=text or "", score=score, metadata=meta,
               source=hit_source(collection, doc_id, meta))


def hit_source(collection: str, doc_id: str, metadata: dict[str, Any]) -> str:
    if collection == "turns":
        turn = metadata.get("turn", "?")
        return f"{metadata.get('session_id', '')} 第{turn}轮 {metadata.get('role', '')}"
    return f"{EVENT_KIND.get(collection, collection)} {doc_id}"


def where_normalize(where: dict[str, Any] | None) -> dict[str, Any] | None:
    """Chroma wants one key per filter; several equalities become an `$and`."""
    if not where:
        return None
    if len(where) == 1 or any(key.startswith("$") for key in where):
        return where
    return {"$and": [{key: value} for key, value in where.items()]}


def turn_embedding_text(turn: dict[str, Any]) -> str:
    """What a turn is embedded and keyword-matched as: its speaker's name (when the app knows
    it) carries meaning a question will use ("What did Caroline say…")."""
    speaker = str(turn.get("speaker") or "").strip()
    content = str(turn.get("content") or "")
    return f"{speaker}: {content}" if speaker else content


def turn_metadata(line: dict[str, Any], owner: dict[str, Any]) -> dict[str, Any]:
    return {**owner, "turn": int(line["turn"]), "role": line["role"],
            "timestamp": str(line.get("timestamp") or ""),
            "speaker": str(line.get("speaker") or "")}


def turn_context_text(line: dict[str, Any], previous: dict[str, Any] | None) -> str:
    """A turn is embedded together with the line before it: a reply such as "Yes, last Sunday!"
    carries its meaning only with the question it answers."""
    own = turn_embedding_text(line)
    return f"{turn_embedding_text(previous)}\n{own}" if previous else own


def _line_key(line: dict[str, Any]) -> tuple[int, int]:
    return (int(line["turn"]), 0 if line["role"] == "user" else 1)


def turn_is_indexable(line: dict[str, Any]) -> bool:
    if line.get("role") not in ("user", "assistant"):
        return False
    if line.get("error") or line.get("empty"):
        return False
    return bool(str(line.get("content") or "").strip()) and isinstance(line.get("turn"), int)


class MemoryIndex:
    def __init__(self, *, chroma_path: Path | None = None, chroma_url: str = "",
                 embedder: Any = None) -> None:
        self.chroma_path = Path(chroma_path) if chroma_path else default_chroma_path()
        self.chroma_url = chroma_url
        self.embedder = embedder or default_embedder()
        self._client: Any = None
        self._collections: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._documents_cache: dict[tuple[str, str], tuple[list[str], list[Hit]]] = {}

    # clients and collections ------------------------------------------------
    def client(self) -> Any:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._client_create()
        return self._client

    def _client_create(self) -> Any:
        import chromadb
        from chromadb.config import Settings

        settings = Settings(anonymized_telemetry=False)
        if self.chroma_url:
            url = urlparse(self.chroma_url)
            ssl = url.scheme == "https"
            return chromadb.HttpClient(host=url.hostname or "localhost",
                                       port=url.port or (443 if ssl else 8000),
                                       ssl=ssl, settings=settings)
        self.chroma_path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(self.chroma_path), settings=settings)

    def collection(self, name: str) -> Any:
        if name not in COLLECTIONS:
            raise ValueError(f"unknown memory collection {name!r}: "
                             f"use one of {', '.join(COLLECTIONS)}")
        cached = self._collections.get(name)
        if cached is None:
            cached = self.client().get_or_create_collection(
                name, embedding_function=self.embedder, configuration={"hnsw": {"space": "cosine"}})
            self._collections[name] = cached
        return cached

    # embeddings ---------------------------------------------------------------
    def _passages_embed(self, texts: list[str]) -> list[list[float]]:
        if hasattr(self.embedder, "embed_passages"):
            return np.asarray(self.embedder.embed_passages(texts), dtype=np.float32).tolist()
        return [list(map(float, row)) for row in self.embedder(texts)]

    def query_embed(self, query: str) -> list[float]:
        if hasattr(self.embedder, "embed_queries"):
            return np.asarray(self.embedder.embed_queries([query]), dtype=np.float32)[0].tolist()
        return [float(x) for x in self.embedder.embed_query([query])[0]]

    # writes -------------------------------------------------------------------
    def add_turns(self, *, instance_id: str, character_id: str, background_id: str | None,
                  session_id: str, turns: list[dict[str, Any]]) -> None:
        """Upsert the finished user/assistant lines of one session (idempotent: one id per line)."""
        by_id = {f"turn_{session_id}_{line['turn']}_{line['role']}": line
                 for line in turns if turn_is_indexable(line)}
        if not by_id:
            return
        lines = list(by_id.values())
        owner = {"instance_id": instance_id, "character_id": character_id,
                 "background_id": background_id or "", "session_id": session_id}
        contexts = self._previous_lines(instance_id, session_id, lines)
        self._upsert("turns", instance_id, list(by_id), [str(line["content"]) for line in lines],
                     [turn_metadata(line, owner) for line in lines],
                     [turn_context_text(line, previous) for line, previous in zip(lines, contexts)])

    def _previous_lines(self, instance_id: str, session_id: str,
                        lines: list[dict[str, Any]]) -> list[dict[str, Any] | None]:
        """The line before each line: from the batch itself or, for the first line of an
        incremental add, from the index."""
        contexts: list[dict[str, Any] | None] = []
        for position, line in enumerate(lines):
            before = lines[position - 1] if position else None
            if before is not None and _line_key(before) < _line_key(line):
                contexts.append(before)
            else:
                contexts.append(self._stored_line_before(instance_id, session_id, line))
        return contexts

    def _stored_line_before(self, instance_id: str, session_id: str,
                            line: dict[str, Any]) -> dict[str, Any] | None:
        turn = int(line["turn"])
        wanted = (f"turn_{session_id}_{turn}_user" if line["role"] == "assistant"
                  else f"turn_{session_id}_{turn - 1}_assistant")
        got = self.collection("turns").get(ids=[chroma_id(instance_id, wanted)],
                                           include=["documents", "metadatas"])
        if not got["ids"]:
            return None
        meta = got["metadatas"][0] or {}
        return {"content": got["documents"][0] or "", "speaker": meta.get("speaker", "")}

    def add_events(self, *, instance_id: str, character_id: str, background_id: str | None,
                   session_id: str, events: list[dict[str, Any]]) -> list[str]:
        """Upsert paired summary/plot documents (`summary_{session_id}_{index}` <->
        `plot_{session_id}_{index}`); returns the ids written, summary then plot per event."""
        owner = {"instance_id": instance_id, "character_id": character_id,
                 "background_id": background_id or "", "session_id": session_id}
        batches: dict[str, list[tuple[str, str, dict[str, Any]]]] = {"summaries": [], "plots": []}
        written: list[str] = []
        for position, event in enumerate(events):
            index = event.get("index", position)
            summary_id, plot_id = f"summary_{session_id}_{index}", f"plot_{session_id}_{index}"
            pair = (("summaries", summary_id, "summary", {"related_plot_id": plot_id}),
                    ("plots", plot_id, "plot", {"related_summary_id": summary_id}))
            for name, doc_id, field_name, related in pair:
                text = str(event.get(field_name) or "")
                if text.strip():
                    batches[name].append((doc_id, text, {**owner, "index": index, **related}))
                    written.append(doc_id)
        for name, batch in batches.items():
            texts = [text for _, text, _ in batch]
            self._upsert(name, instance_id, [doc_id for doc_id, _, _ in batch], texts,
                         [meta for _, _, meta in batch], texts)
        return written

    def _upsert(self, name: str, instance_id: str, doc_ids: list[str], documents: list[str],
                metadatas: list[dict[str, Any]], embed_texts: list[str]) -> None:
        if not doc_ids:
            return
        collection = self.collection(name)
        ids = [chroma_id(instance_id, doc_id) for doc_id in doc_ids]
        metadatas = [{**meta, "doc_id": doc_id} for meta, doc_id in zip(metadatas, doc_ids)]
        for start in range(0, len(ids), 256):
            stop = start + 256
            collection.upsert(ids=ids[start:stop], documents=documents[start:stop],
                              metadatas=metadatas[start:stop],
                              embeddings=self._passages_embed(embed_texts[start:stop]))
        self._documents_cache.clear()

    def delete_instance(self, instance_id: str) -> None:
        for name in COLLECTIONS:
            self.collection(name).delete(where={"instance_id": instance_id})
        self._documents_cache.clear()

    def reset(self) -> None:
        client = self.client()
        existing = {getattr(c, "name", c) for c in client.list_collections()}
        for name in COLLECTIONS:
            if name in existing:
                client.delete_collection(name)
        self._collections.clear()
        self._documents_cache.clear()

    # reads --------------------------------------------------------------------
    def search(self, collection: str, query: str, *, where: dict[str, Any], n_results: int,
               query_embedding: list[float] | None = None) -> list[Hit]:
        """Dense nearest neighbours; score is cosine similarity (1 - cosine distance)."""
        if n_results <= 0:
            return []
        embedding = query_embedding if query_embedding is not None else self.query_embed(query)
        result = self.collection(collection).query(
            query_embeddings=[embedding], n_results=n_results, where=where_normalize(where),
            include=["documents", "metadatas", "distances"])
        ids = result["ids"][0] if result.get("ids") else []
        docs, metas, dists = result["documents"][0], result["metadatas"][0], result["distances"][0]
        return [hit_make(collection, stored_id, doc, meta, 1.0 - float(dist))
                for stored_id, doc, meta, dist in zip(ids, docs, metas, dists)]

    def documents(self, collection: str, *, where: dict[str, Any]) -> list[Hit]:
        """Every document matching `where` (score 0), for keyword scoring; cached until the
        matching ids change."""
        handle = self.collection(collection)
        normalized = where_normalize(where)
        key = (collection, json.dumps(normalized, sort_keys=True))
        ids = self._ids_get(handle, normalized)
        cached = self._documents_cache.get(key)
        if cached is not None and cached[0] == ids:
            return cached[1]
        hits = self._documents_get(handle, collection, normalized)
        if len(self._documents_cache) >= DOCUMENTS_CACHE_SIZE:
            self._documents_cache.pop(next(iter(self._documents_cache)))
        self._documents_cache[key] = (ids, hits)
        return hits

    def _ids_get(self, handle: Any, where: dict[str, Any] | None) -> list[str]:
        return sorted(handle.get(where=where, include=[])["ids"])

    def _documents_get(self, handle: Any, collection: str,
                       where: dict[str, Any] | None) -> list[Hit]:
        hits: list[Hit] = []
        offset = 0
        while True:
            got = handle.get(where=where, include=["documents", "metadatas"],
                             limit=MAX_GET_BATCH, offset=offset)
            for stored_id, doc, meta in zip(got["ids"], got["documents"], got["metadatas"]):
                hits.append(hit_make(collection, stored_id, doc, meta, 0.0))
            if len(got["ids"]) < MAX_GET_BATCH:
                break
            offset += MAX_GET_BATCH
        hits.sort(key=lambda h: (str(h.metadata.get("instance_id", "")), h.id))
        return hits

    def count(self, collection: str) -> int:
        return self.collection(collection).count()


def index_rebuild(index: MemoryIndex, store: Any) -> dict[str, int]:
    """Rebuild every collection from the files: session lines (turns) and the memory ledgers
    (summaries.jsonl / plots.jsonl of each instance)."""
    index.reset()
    counts = {"instances": 0, "turns": 0, "summaries": 0, "plots": 0}
    for instance_id in store.instance_ids():
        state = store.instance_state_read(instance_id)
        owner = {"instance_id": instance_id, "character_id": state.get("character_id") or "",
                 "background_id": state.get("background_id")}
        counts["instances"] += 1
        for session_id in store.session_ids(instance_id):
            lines = store.session_read(instance_id, session_id).messages
            index.add_turns(session_id=session_id, turns=lines, **owner)
            counts["turns"] += sum(1 for line in lines if turn_is_indexable(line))
        for written in _ledger_events_rebuild(index, store, owner):
            counts["summaries" if written.startswith("summary_") else "plots"] += 1
    return counts


def _ledger_events_rebuild(index: MemoryIndex, store: Any, owner: dict[str, Any]) -> list[str]:
    events: dict[tuple[str, str, str, Any], dict[str, Any]] = {}
    for name, field_name in (("summaries", "summary"), ("plots", "plot")):
        for record in store.ledger_read(owner["instance_id"], name):
            session_id = str(record.get("session_id") or "")
            if not session_id or record.get("deleted"):
                continue
            character_id = record.get("character_id") or owner["character_id"]
            background_id = record.get("background_id", owner["background_id"])
            key = (session_id, character_id, background_id or "", record.get("index", 0))
            event = events.setdefault(key, {"index": record.get("index", 0)})
            event[field_name] = (record.get(field_name) or record.get("text")
                                 or record.get("content") or "")
    written: list[str] = []
    for (session_id, character_id, background_id, _), event in sorted(
            events.items(), key=lambda item: (item[0][0], str(item[0][3]))):
        written += index.add_events(instance_id=owner["instance_id"], character_id=character_id,
                                    background_id=background_id or None, session_id=session_id,
                                    events=[event])
    return written
