"""The Chroma memory index: conversation turns, plot-point summaries and detailed plot material.

Collections (seeds/personalab-data-layout.md, "Chroma向量库格式"): `summaries` and `plots` as the
seed defines them, plus `turns` (one document per finished user/assistant line) so recall works
before the first summary exists, and `turns_minilm`: the same lines' all-MiniLM-L6-v2 vectors
(no documents; personalab/lib/embedding/embeddings.py `second_embed`; none for a line mostly in
Chinese), written and deleted with `turns` when the model is installed. Everything here can be
rebuilt from the files (memory/vectors/sync.py): Chroma is never the only copy of anything.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings

from memory.keyword_index.docs import keyword_documents
from memory.keyword_index.store import Key, KeywordStore
from memory.keyword_index.tokens import turn_text
from memory.vectors.id_reads import ids_get
from memory.vectors.store_check import CollectionsRead
from memory.vectors.turn_docs import turn_doc_id, turn_is_indexable, turns_indexable
from memory.vectors.where import where_checkable, where_instances, where_matches, where_normalize
from personalab.lib.embedding.embeddings import (
    default_embedder,
    passages_embed,
    second_available,
    second_embed,
    second_wanted,
)

COLLECTIONS = ("turns", "summaries", "plots")
SECOND = "turns_minilm"
EVENT_KIND = {"summaries": "summary", "plots": "plot"}
MAX_GET_BATCH = 5000
UNFILTERED_FACTOR = 4
log = logging.getLogger(__name__)
LOOK_UP: Any = object()  # add_turns: find the line before the batch in the index


@dataclass
class Hit:
    id: str
    collection: str
    text: str
    score: float
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        """What names a document across instances: the seed's ids (`turn_sess_001_1_user`)
        repeat in every instance, so a search over several conversations must not merge by id."""
        return self.collection, str(self.metadata.get("instance_id", "")), self.id


def default_chroma_path() -> Path:
    return Path(settings.PERSONALAB_DATA_DIR) / "event_library" / "chroma_db"


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
        # Shown as it is in the inspector of either language: no words, only the turn's number.
        return f"{metadata.get('session_id', '')} #{turn} {metadata.get('role', '')}"
    return f"{EVENT_KIND.get(collection, collection)} {doc_id}"


def collection_gone(exc: BaseException) -> bool:
    return type(exc).__name__ == "NotFoundError" or "does not exist" in str(exc)


def turn_embedding_text(turn: dict[str, Any]) -> str:
    """What a turn is embedded and keyword-matched as: its speaker's name (when the app knows
    it) carries meaning a question will use ("What did Caroline say…")."""
    return turn_text(str(turn.get("content") or ""), turn)


def turn_metadata(line: dict[str, Any], owner: dict[str, Any]) -> dict[str, Any]:
    return {**owner, "turn": int(line["turn"]), "role": line["role"],
            "timestamp": str(line.get("timestamp") or ""),
            "speaker": str(line.get("speaker") or ""), "name": str(line.get("name") or ""),
            **({"joined": True} if line.get("joined") else {})}


def turn_context_text(line: dict[str, Any], previous: dict[str, Any] | None) -> str:
    """A turn is embedded together with the line before it: a reply such as "Yes, last Sunday!"
    carries its meaning only with the question it answers."""
    own = turn_embedding_text(line)
    return f"{turn_embedding_text(previous)}\n{own}" if previous else own


def _line_key(line: dict[str, Any]) -> tuple[int, int]:
    return (int(line["turn"]), 0 if line["role"] == "user" else 1)


class MemoryIndex:
    def __init__(self, *, chroma_path: Path | None = None, chroma_url: str = "",
                 embedder: Any = None, keywords_path: Path | None = None,
                 second: Callable[..., np.ndarray | None] | bool | None = None,
                 set_aside_damaged: bool = False) -> None:
        """`second`: keep MiniLM's line vectors beside e5's: True, False, or the function that
        embeds them (personalab.lib.embedding.embeddings.second_embed's signature); by default with
        the default e5 embedder, when the model is installed. `set_aside_damaged`: a server's
        index sets a collection it finds damaged aside (CollectionsRead)."""
        self.chroma_path = Path(chroma_path) if chroma_path else default_chroma_path()
        self.chroma_url = chroma_url
        self.embedder = embedder or default_embedder()
        wanted = embedder is None if second is None else bool(second)
        self._second_embed = (second if callable(second) else second_embed) if wanted else None
        self._client: Any = None
        self._collections: dict[str, Any] = {}
        # Files read before first use.
        self._read = CollectionsRead(self.chroma_path, set_aside=set_aside_damaged)
        self._lock = threading.Lock()
        # Beside the Chroma folder, in the data folder every worker shares (also when Chroma
        # is a server).
        self.keywords = KeywordStore(keywords_path or self.chroma_path.parent / "keywords")

    # clients and collections ------------------------------------------------
    def client(self) -> Any:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._client_create()
        return self._client

    def _client_create(self) -> Any:
        # Imported here, not at the top: it loads chromadb, seconds of import that every process
        # would pay at start (all import this module); only one that opens the index needs it.
        from personalab.lib.embedding import chroma

        return chroma.client_create(path=self.chroma_path, url=self.chroma_url)

    def second_on(self) -> bool:
        """Whether MiniLM's line vectors are kept and searched (the model loads on first ask)."""
        if self._second_embed is None:
            return False
        return self._second_embed is not second_embed or second_available()

    def _names(self) -> tuple[str, ...]:
        return (*COLLECTIONS, SECOND) if self.second_on() else COLLECTIONS

    def _open(self, name: str) -> Any:
        client = self.client()
        from personalab.lib.embedding import chroma  # loaded by client(): see _client_create

        return chroma.collection_open(client, name, second=name == SECOND, embedder=self.embedder)

    def collection(self, name: str) -> Any:
        if name not in (*COLLECTIONS, SECOND):
            raise ValueError(f"unknown memory collection {name!r}: "
                             f"use one of {', '.join(COLLECTIONS)}")
        cached = self._collections.get(name)
        if cached is None:
            cached = self._open(name)
            self._collections[name] = cached
        return cached

    def _call(self, name: str, method: str, **kwargs: Any) -> Any:
        """`collection(name).method(**kwargs)`, with the handle opened again once when the
        collection was deleted and created anew meanwhile (`reindex --memory` in another
        process, a Chroma server that lost its data): the old handle only says "does not exist"."""
        self._files_checked(name)
        try:
            return getattr(self.collection(name), method)(**kwargs)
        except Exception as exc:
            if not collection_gone(exc):
                raise
        self._collections.pop(name, None)
        self._read.forget(name)  # the new collection's files: another process wrote them
        self._files_checked(name)
        return getattr(self.collection(name), method)(**kwargs)

    def _files_checked(self, name: str) -> None:
        """Before this process's first use of an embedded collection, which loads its segment
        from disk: its files read (memory.vectors.store_check.CollectionsRead). A damaged one
        raises CollectionDamaged (the turn goes on without recall, with the reason) instead of
        killing the server, until a rebuild makes it anew."""
        if not self.chroma_url and self._read.checked(name):
            self._collections.pop(name, None)  # the handle of the collection deleted since

    def _ids_get(self, name: str, ids: list[str], *, include: list[str]) -> dict[str, Any]:
        return ids_get(lambda **kwargs: self._call(name, "get", **kwargs), ids, include=include)

    def collection_ids(self) -> dict[str, str]:
        """Each collection's id as Chroma holds it now (a collection created anew gets a new
        one); a cached handle with another id is replaced. MiniLM's collection is among them
        when it is on: an index built before it (or without the model) then differs from the
        sync's record, and the next sync compares every session and fills it in."""
        ids = {}
        for name in self._names():
            fresh = self._open(name)
            cached = self._collections.get(name)
            if cached is None or cached.id != fresh.id:
                self._collections[name] = fresh
            ids[name] = str(fresh.id)
        return ids

    # embeddings ---------------------------------------------------------------
    def _passages_embed(self, texts: list[str], contexts: list[str | None] | None = None
                        ) -> list[list[float]]:
        return passages_embed(self.embedder, texts, contexts)

    def query_embed(self, query: str) -> list[float]:
        if hasattr(self.embedder, "embed_queries"):
            return np.asarray(self.embedder.embed_queries([query]), dtype=np.float32)[0].tolist()
        return [float(x) for x in self.embedder.embed_query([query])[0]]

    # writes -------------------------------------------------------------------
    def add_turns(self, *, instance_id: str, character_id: str, background_id: str | None,
                  session_id: str, turns: list[dict[str, Any]],
                  before: Any = LOOK_UP, keywords_only: bool = False) -> None:
        """Upsert the finished user/assistant lines of one session (idempotent: one id per line).
        `before`: the indexable line before the first of `turns` in the file (None: there is
        none), when the caller read `turns` from the file in order; by default it is looked up
        in the index. `keywords_only`: Chroma holds these lines as they are (nothing embedded)."""
        by_id = {turn_doc_id(session_id, line): line for line in turns_indexable(turns)}
        if not by_id:
            return
        lines = list(by_id.values())
        owner = {"instance_id": instance_id, "character_id": character_id,
                 "background_id": background_id or "", "session_id": session_id}
        if before is not LOOK_UP:
            contexts = [before, *lines[:-1]]
        else:
            contexts = self._previous_lines(instance_id, session_id, lines)
        if not keywords_only:
            # MiniLM's vectors first: the sync compares e5's documents with the file, so a
            # failure between the two writes leaves e5's old line there to be written again.
            self.second_add(owner=owner, turns=lines)
        self._upsert("turns", instance_id, list(by_id), [str(line["content"]) for line in lines],
                     [{**turn_metadata(line, owner),
                       "context_id": turn_doc_id(session_id, previous) if previous else ""}
                      for line, previous in zip(lines, contexts)],
                     # What is embedded: nothing when only the keyword store is written.
                     [] if keywords_only else [turn_embedding_text(line) for line in lines],
                     keywords_only=keywords_only,
                     contexts=None if keywords_only else [turn_embedding_text(p) if p else None
                                                          for p in contexts])

    def second_add(self, *, owner: dict[str, Any], turns: list[dict[str, Any]]) -> None:
        """MiniLM's vectors of the indexable `turns`, each line alone with its speaker (as the
        experiment measured it: the line before made MiniLM worse); nothing when it is off,
        none for a line mostly in Chinese (personalab.lib.embedding.embeddings.second_wanted).
        `owner`: instance_id, character_id, background_id and session_id, as add_turns has them."""
        instance_id, session_id = owner["instance_id"], owner["session_id"]
        meta = {**owner, "background_id": owner.get("background_id") or ""}
        lines = [line for line in turns
                 if turn_is_indexable(line) and second_wanted(str(line["content"]))]
        if not lines or not self.second_on():
            return
        for start in range(0, len(lines), 256):
            batch = lines[start:start + 256]
            doc_ids = [turn_doc_id(session_id, line) for line in batch]
            rows = self._second_embed([turn_embedding_text(line) for line in batch],
                                      is_query=False)
            if rows is None:
                return
            self._call(SECOND, "upsert", ids=[chroma_id(instance_id, d) for d in doc_ids],
                       embeddings=rows.tolist(),
                       metadatas=[{**meta, "doc_id": doc_id} for doc_id in doc_ids])

    def second_delete(self, instance_id: str, doc_ids: list[str]) -> None:
        """MiniLM's vectors of these lines; e5's documents are left to the caller."""
        if SECOND in self._delete_names():
            self._ids_delete(SECOND, instance_id, doc_ids)

    def second_rows(self, texts: list[str], *, is_query: bool) -> np.ndarray | None:
        """MiniLM's vectors of `texts`, as its collection stores them; None when it is off."""
        if not texts or not self.second_on():
            return None
        return self._second_embed(texts, is_query=is_query)

    def vectors_lacking(self, instance_id: str, doc_ids: list[str]) -> list[str]:
        """Those of the lines `doc_ids` e5's collection holds no vector of yet (a fill under
        way, memory/vectors/fill.py, or a write cut short): only the keyword store has them."""
        if not doc_ids:
            return []
        got = self._ids_get("turns", [chroma_id(instance_id, d) for d in doc_ids], include=[])
        held = set(got["ids"])
        return [d for d in doc_ids if chroma_id(instance_id, d) not in held]

    def second_stored(self, instance_id: str, session_id: str) -> set[str]:
        """The lines of a session MiniLM's collection holds (none when this index keeps none),
        also while the model is missing: the sync deletes those the file no longer has."""
        if SECOND not in self._delete_names():
            return set()
        held: set[str] = set()
        offset = 0
        while True:
            got = self._call(SECOND, "get", where=where_normalize(
                {"instance_id": instance_id, "session_id": session_id}),
                include=[], limit=MAX_GET_BATCH, offset=offset)
            held.update(stored_id.split(":", 1)[-1] for stored_id in got["ids"])
            if len(got["ids"]) < MAX_GET_BATCH:
                return held
            offset += MAX_GET_BATCH

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
        got = self._call("turns", "get", ids=[chroma_id(instance_id, wanted)],
                         include=["documents", "metadatas"])
        if not got["ids"]:
            return None
        meta = got["metadatas"][0] or {}
        return {"content": got["documents"][0] or "", "speaker": meta.get("speaker", ""),
                "name": meta.get("name", ""),
                "turn": meta.get("turn", turn if line["role"] == "assistant" else turn - 1),
                "role": meta.get("role", "user" if line["role"] == "assistant" else "assistant")}

    def add_events(self, *, instance_id: str, character_id: str, background_id: str | None,
                   session_id: str, events: list[dict[str, Any]],
                   speakers: str = "", created_at: str = "",
                   keywords_only: bool = False) -> list[str]:
        """Upsert paired summary/plot documents (`summary_{session_id}_{index}` <->
        `plot_{session_id}_{index}`); returns the ids written, summary then plot per event.
        `speakers`: the character ids (joined by "|") whose replies the events summarize;
        `created_at`: when they were made (both read by memory.selectors.recall_witnessed)."""
        owner = {"instance_id": instance_id, "character_id": character_id,
                 "background_id": background_id or "", "session_id": session_id,
                 **({"speakers": speakers} if speakers else {}),
                 **({"created_at": created_at} if created_at else {})}
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
                         [meta for _, _, meta in batch], texts, keywords_only=keywords_only)
        return written

    def _upsert(self, name: str, instance_id: str, doc_ids: list[str], documents: list[str],
                metadatas: list[dict[str, Any]], embed_texts: list[str], *,
                keywords_only: bool = False, contexts: list[str | None] | None = None) -> None:
        """Chroma first, then the keyword store, in batches; `keywords_only`: the documents
        are in Chroma as they are, only the keyword store may lack them."""
        if not doc_ids:
            return
        ids = [chroma_id(instance_id, doc_id) for doc_id in doc_ids]
        metadatas = [{**meta, "doc_id": doc_id} for meta, doc_id in zip(metadatas, doc_ids)]
        if keywords_only:  # one write: the keyword file's log is read and folded once
            self.keywords.upsert(name, instance_id, list(zip(doc_ids, documents, metadatas)))
            return
        for start in range(0, len(ids), 256):
            stop = start + 256
            embeddings = self._passages_embed(embed_texts[start:stop],
                                              contexts and contexts[start:stop])
            self._call(name, "upsert", ids=ids[start:stop], documents=documents[start:stop],
                       metadatas=metadatas[start:stop], embeddings=embeddings)
            self.keywords.upsert(name, instance_id, list(zip(
                    doc_ids[start:stop], documents[start:stop], metadatas[start:stop])))

    def _delete_names(self) -> tuple[str, ...]:
        """Where a line is deleted from: MiniLM's collection too whenever this index keeps one,
        even while the model is missing (a line deleted then must not come back with it)."""
        return (*COLLECTIONS, SECOND) if self._second_embed is not None else COLLECTIONS

    def delete_instance(self, instance_id: str) -> None:
        for name in self._delete_names():
            self._call(name, "delete", where={"instance_id": instance_id})
        self.keywords.delete_instance(instance_id)

    def reset(self) -> None:
        client = self.client()
        existing = {getattr(c, "name", c) for c in client.list_collections()}
        for name in (*COLLECTIONS, SECOND):
            if name in existing:
                client.delete_collection(name)
        self._collections.clear()
        self._read.forget()  # the new collections' files are read at their first use
        self.keywords.reset()

    # reads --------------------------------------------------------------------
    def search(self, collection: str, query: str, *, where: dict[str, Any], n_results: int,
               query_embedding: list[float] | None = None) -> list[Hit]:
        """Dense nearest neighbours; score is cosine similarity (1 - cosine distance)."""
        if n_results <= 0:
            return []
        embedding = query_embedding if query_embedding is not None else self.query_embed(query)
        if not (where and where_checkable(where)):
            return self._nearest(collection, embedding, n_results, where=where)
        # Only the kept documents are read: reading the documents and metadata of every
        # result was two thirds of a search at 100,000 turns.
        scored = self._nearest_scores(collection, embedding, n_results, where)
        if not scored:
            return []
        got = self._ids_get(collection, [stored_id for stored_id, _ in scored],
                            include=["documents", "metadatas"])
        stored = dict(zip(got["ids"], zip(got["documents"], got["metadatas"])))
        return [hit_make(collection, stored_id, *stored[stored_id], score)
                for stored_id, score in scored if stored_id in stored]

    def _nearest_scores(self, collection: str, embedding: list[float], n_results: int,
                        where: dict[str, Any]) -> list[tuple[str, float]]:
        """The stored ids and cosine similarities of the nearest documents `where` selects.
        Chroma's metadata filter costs about 4 µs per matching document (0.9 s for an instance
        of 100,000 turns), a plain search for a few times more results ~10 ms. So a filter
        this module can check is applied here to a plain search (the instance is in the
        stored id; other keys need the metadata): enough when the instance holds most of the
        collection, which is when the filter is slow; otherwise the filtered search runs."""
        if where and where_checkable(where):
            asked = n_results * UNFILTERED_FACTOR
            owners = where_instances(where)
            result = self._call(collection, "query", query_embeddings=[embedding], n_results=asked,
                                include=["distances"] if owners is not None
                                else ["distances", "metadatas"])
            ids = result["ids"][0] if result.get("ids") else []
            metadatas = result["metadatas"][0] if owners is None and ids else [{}] * len(ids)
            kept = [(stored_id, 1.0 - float(distance)) for stored_id, distance, metadata
                    in zip(ids, result["distances"][0], metadatas)
                    if (stored_id.split(":", 1)[0] in owners if owners is not None
                        else where_matches(metadata or {}, where))]
            if len(kept) >= n_results or len(ids) < asked:
                return kept[:n_results]
        result = self._call(collection, "query", query_embeddings=[embedding],
                            n_results=n_results, where=where_normalize(where),
                            include=["distances"])
        ids = result["ids"][0] if result.get("ids") else []
        return [(stored_id, 1.0 - float(distance))
                for stored_id, distance in zip(ids, result["distances"][0])]

    def second_search(self, query: str, *, where: dict[str, Any], n_results: int
                      ) -> dict[Key, float]:
        """MiniLM's nearest lines (cosine similarity), keyed as Hit.key; empty when it is off
        or holds none of them (an index not yet filled in: recall is e5's alone)."""
        if n_results <= 0 or not self.second_on():
            return {}
        rows = self._second_embed([query], is_query=True)
        if rows is None:
            return {}
        scored = self._nearest_scores(SECOND, rows[0].tolist(), n_results, where)
        return {("turns", *stored_id.split(":", 1)): score for stored_id, score in scored}

    def _nearest(self, collection: str, embedding: list[float], n_results: int, *,
                 where: dict[str, Any] | None) -> list[Hit]:
        result = self._call(collection, "query", query_embeddings=[embedding],
                            n_results=n_results, where=where_normalize(where),
                            include=["documents", "metadatas", "distances"])
        ids = result["ids"][0] if result.get("ids") else []
        docs, metas, dists = result["documents"][0], result["metadatas"][0], result["distances"][0]
        return [hit_make(collection, stored_id, doc, meta, 1.0 - float(dist))
                for stored_id, doc, meta, dist in zip(ids, docs, metas, dists)]

    def keyword_scores(self, collections: tuple[str, ...], query: str, *,
                       where: dict[str, Any], k: int, also: list[Key]) -> dict[Key, float]:
        """BM25 scores (above zero) of the k best keyword matches in the collections, taken as
        one corpus, and of the documents `also` names. `where` names the instance
        (`"instance_id": id`) or several (`{"$in": [ids]}`) or excludes one (`{"$ne": id}`),
        and may add equalities on character_id / background_id."""
        equal = {key: value for key, value in where.items() if key != "instance_id"}
        return self.keywords.scores(self._owners(where), collections, query, equal=equal, k=k,
                                    also=also)

    def speakers(self, where: dict[str, Any]) -> set[str]:
        """The names the lines of the instances `where` names were said under (from the
        keyword index, which is in memory)."""
        return self.keywords.speakers(self._owners(where))

    def ask_shares(self, keys: list[Key]) -> dict[Key, float]:
        """How much of each document asks rather than tells
        (memory.keyword_index.bm25.ask_share)."""
        return self.keywords.ask_shares(keys)

    def _owners(self, where: dict[str, Any]) -> list[str]:
        instance = where.get("instance_id")
        if isinstance(instance, str):
            return [instance]
        if isinstance(instance, dict) and set(instance) == {"$in"}:
            return list(instance["$in"])
        if isinstance(instance, dict) and set(instance) == {"$ne"}:
            return [owner for owner in self.keywords.instance_ids() if owner != instance["$ne"]]
        raise ValueError(f"keyword search needs an instance filter, not {instance!r}")

    def hits_get(self, collection: str, instance_id: str, doc_ids: list[str]) -> list[Hit]:
        """The stored documents `doc_ids` of an instance (score 0), in that order; ids Chroma
        no longer holds are left out."""
        got = self._ids_get(collection, [chroma_id(instance_id, d) for d in doc_ids],
                            include=["documents", "metadatas"])
        by_id = {stored_id: hit_make(collection, stored_id, doc, meta, 0.0)
                 for stored_id, doc, meta in zip(got["ids"], got["documents"], got["metadatas"])}
        # Not embedded yet (an import filling in the background): the keyword store has it.
        lacking = [d for d in doc_ids if chroma_id(instance_id, d) not in by_id]
        for doc_id, (doc, meta) in keyword_documents(self.keywords._path(instance_id),
                                                     collection, lacking).items():
            by_id[chroma_id(instance_id, doc_id)] = hit_make(
                collection, chroma_id(instance_id, doc_id), doc,
                {**meta, "doc_id": doc_id, "instance_id": instance_id}, 0.0)
        return [by_id[key] for key in (chroma_id(instance_id, d) for d in doc_ids) if key in by_id]

    def count(self, collection: str) -> int:
        return self._call(collection, "count")

    def documents_stored(self, collection: str, *, where: dict[str, Any]
                         ) -> dict[str, tuple[str, dict[str, Any]]]:
        """doc_id -> (document, metadata) of the stored documents `where` selects."""
        stored: dict[str, tuple[str, dict[str, Any]]] = {}
        offset = 0
        while True:
            got = self._call(collection, "get", where=where_normalize(where),
                             include=["documents", "metadatas"], limit=MAX_GET_BATCH, offset=offset)
            for stored_id, doc, meta in zip(got["ids"], got["documents"], got["metadatas"]):
                meta = meta or {}
                stored[str(meta.get("doc_id") or stored_id.split(":", 1)[-1])] = (doc or "", meta)
            if len(got["ids"]) < MAX_GET_BATCH:
                return stored
            offset += MAX_GET_BATCH

    def documents_delete(self, collection: str, instance_id: str, doc_ids: list[str]) -> None:
        if not doc_ids:
            return
        # MiniLM's collection before e5's, which the sync compares with the file: a failure
        # between the two leaves e5's line there to be deleted again.
        if collection == "turns":
            self.second_delete(instance_id, doc_ids)
        self._ids_delete(collection, instance_id, doc_ids)
        self.keywords.delete(collection, instance_id, doc_ids)

    def _ids_delete(self, name: str, instance_id: str, doc_ids: list[str]) -> None:
        for start in range(0, len(doc_ids), MAX_GET_BATCH):
            self._call(name, "delete", ids=[chroma_id(instance_id, doc_id)
                                            for doc_id in doc_ids[start:start + MAX_GET_BATCH]])


def ledger_events(store: Any, owner: dict[str, Any]
                  ) -> list[tuple[dict[str, Any], str, dict[str, Any]]]:
    """The events of an instance's ledgers (summaries.jsonl / plots.jsonl) as
    (their owner's character_id and background_id, session_id, {"index", "speakers",
    "created_at", "summary", "plot"}), deleted records left out."""
    events: dict[tuple[str, str, str, Any], dict[str, Any]] = {}
    for name, field_name in (("summaries", "summary"), ("plots", "plot")):
        for record in store.ledger_read(owner["instance_id"], name):
            session_id = str(record.get("session_id") or "")
            if not session_id or record.get("deleted"):
                continue
            character_id = record.get("character_id") or owner["character_id"]
            background_id = record.get("background_id", owner["background_id"])
            key = (session_id, character_id, background_id or "", record.get("index", 0))
            event = events.setdefault(key, {"index": record.get("index", 0),
                                            "speakers": str(record.get("speakers") or ""),
                                            "created_at": str(record.get("created_at") or "")})
            event[field_name] = (record.get(field_name) or record.get("text")
                                 or record.get("content") or "")
    return [({"character_id": character_id, "background_id": background_id or None},
             session_id, event)
            for (session_id, character_id, background_id, _), event in sorted(
                events.items(), key=lambda item: (item[0][0], str(item[0][3])))]
