"""A long chat's memory in one process, for the native heap the recall path grows: bench/
play_long.py's turns (recall on, a summarize every 100) with the embedding engines answered by
hashed random vectors (ONNX out of the picture; e5's 384 and MiniLM's 384 dimensions), RSS as
anonymous + file-backed MB at --at turns. Bisect with:

- `--chroma python`: Chroma's collections answered by a small Python stand-in (what is left
  grows in neither Chroma nor ONNX);
- `--id-batch N`: the index's reads by id in batches of N (memory/vectors/id_reads.py; 0: one
  read for all, as before 2026-12-03).

    .venv/bin/python bench/chroma_rss.py --turns 200 [--id-batch 0] [--chroma python]
        [--no-minilm] [--data ../shared/bench/locomo/conv-26.json]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import play_long  # noqa: E402 — after the path
from embed_rss import memory_mb  # noqa: E402


def hashed(texts: list[str], dim: int) -> np.ndarray:
    rows = np.zeros((len(texts), dim), np.float32)
    for position, text in enumerate(texts):
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
        row = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
        rows[position] = row / np.linalg.norm(row)
    return rows


class PythonCollection:
    """Chroma's collection calls as the memory index makes them, answered in Python."""

    def __init__(self, name: str) -> None:
        self.name, self.id, self.rows = name, uuid.uuid4(), {}

    def upsert(self, ids, embeddings, metadatas, documents=None):
        for n, stored_id in enumerate(ids):
            self.rows[stored_id] = (np.asarray(embeddings[n], np.float32),
                                    documents[n] if documents else None, dict(metadatas[n]))

    def count(self):
        return len(self.rows)

    def _selected(self, where):
        from memory.vectors.where import where_matches  # after Django's boot, as below

        flat = {}
        for part in (where or {}).get("$and", [where] if where else []):
            flat.update(part)
        return [i for i, (_, _, meta) in self.rows.items() if where_matches(meta, flat)]

    def delete(self, ids=None, where=None):
        for stored_id in ids if ids is not None else self._selected(where):
            self.rows.pop(stored_id, None)

    def get(self, ids=None, where=None, include=(), limit=None, offset=0):
        chosen = [i for i in ids if i in self.rows] if ids is not None else self._selected(where)
        chosen = chosen[offset:offset + limit] if limit is not None else chosen
        return {"ids": chosen, "documents": [self.rows[i][1] for i in chosen],
                "metadatas": [self.rows[i][2] for i in chosen]}

    def query(self, query_embeddings, n_results, include=(), where=None):
        chosen = self._selected(where)
        if not chosen:
            return {"ids": [[]], "distances": [[]], "documents": [[]], "metadatas": [[]]}
        similar = np.stack([self.rows[i][0] for i in chosen]) @ np.asarray(query_embeddings[0])
        order = np.argsort(-similar)[:n_results]
        kept = [chosen[n] for n in order]
        return {"ids": [kept], "distances": [[float(1 - similar[n]) for n in order]],
                "documents": [[self.rows[i][1] for i in kept]],
                "metadatas": [[self.rows[i][2] for i in kept]]}


def engines_replaced(*, minilm: bool, chroma: str, id_batch: int | None) -> None:
    # After Django's boot (play_long's django_boot), as the other app imports of the benches.
    from memory.vectors import id_reads, index
    from personalab.lib.embedding import embeddings

    embeddings._texts_rows = lambda texts, is_query, variant: hashed(texts, 384)
    embeddings.line_sums = lambda texts, variant=None: None
    embeddings.model_load = lambda *args, **kwargs: type("Engine", (), {"encode": None})
    embeddings._second_rows = lambda texts, is_query=True: hashed(texts, 384)
    embeddings.second_available = lambda: minilm
    if chroma == "python":
        collections: dict[str, PythonCollection] = {}
        index.MemoryIndex._client_create = lambda self: object()
        index.MemoryIndex._open = lambda self, name: collections.setdefault(
            name, PythonCollection(name))
    if id_batch is not None:
        id_reads.ID_BATCH = id_batch or 10**9


def turns_printed(at: set[int]) -> None:
    import chat.groups.round as rounds  # after Django's boot, as engines_replaced's

    real, count, began = rounds.conversation_turn, [0], time.perf_counter()

    async def turn(*args, **kwargs):
        results = await real(*args, **kwargs)
        count[0] += 1
        if count[0] in at:
            now = memory_mb()
            print(f"turn {count[0]}: anon {now['RssAnon']} MB, file {now['RssFile']} MB, "
                  f"{time.perf_counter() - began:.0f} s", flush=True)
        return results

    rounds.conversation_turn = turn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--at", default="1,40,100,160,200,300")
    parser.add_argument("--chroma", choices=("embedded", "python"), default="embedded")
    parser.add_argument("--id-batch", type=int, default=None)
    parser.add_argument("--minilm", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--data", default="../shared/bench/locomo/conv-26.json")
    args = parser.parse_args()
    boot = play_long.t.django_boot

    def booted(data_dir):
        boot(data_dir)
        engines_replaced(minilm=args.minilm, chroma=args.chroma, id_batch=args.id_batch)
        turns_printed({int(n) for n in args.at.split(",")})

    play_long.t.django_boot = booted
    print(f"chroma={args.chroma} id_batch={args.id_batch} minilm={args.minilm}", flush=True)
    sys.argv = [sys.argv[0], "--data", args.data, "--turns", str(args.turns),
                "--context", "4096"]
    play_long.main()


if __name__ == "__main__":
    main()
