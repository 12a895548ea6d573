"""The memory index reads documents by id from Chroma in batches of at most ID_BATCH ids: one
read of a search's every candidate made embedded Chroma's native heap grow a turn after
another (memory/vectors/id_reads.py)."""

from __future__ import annotations

import pytest

from memory.vectors.id_reads import ID_BATCH
from memory.vectors.index import MemoryIndex, chroma_id

INSTANCE = "inst_001"
LINES = 3 * ID_BATCH + 5


class Turns:
    """A stand-in for Chroma's `turns` collection: LINES stored lines, each read by id kept."""

    def __init__(self) -> None:
        self.docs = {chroma_id(INSTANCE, f"turn_s_{n}_user"): (f"line {n}", {"turn": n})
                     for n in range(LINES)}
        self.reads: list[list[str]] = []

    def get(self, *, ids, include):
        self.reads.append(list(ids))
        held = [stored_id for stored_id in ids if stored_id in self.docs]
        return {"ids": held, "documents": [self.docs[i][0] for i in held],
                "metadatas": [self.docs[i][1] for i in held]}

    def query(self, *, query_embeddings, n_results, include, where=None):
        ids = list(self.docs)[:n_results]
        return {"ids": [ids], "distances": [[0.1] * len(ids)]}


@pytest.fixture
def index(tmp_path):
    index = MemoryIndex(chroma_path=tmp_path / "chroma_db", embedder=object(), second=False)
    index._collections["turns"] = Turns()
    return index


def test_hits_get_reads_in_batches_and_returns_every_line_in_order(index):
    wanted = [f"turn_s_{n}_user" for n in reversed(range(LINES))] + ["turn_s_gone_user"]
    hits = index.hits_get("turns", INSTANCE, wanted)
    assert [hit.id for hit in hits] == wanted[:-1]
    assert [hit.text for hit in hits] == [f"line {n}" for n in reversed(range(LINES))]
    reads = index._collections["turns"].reads
    assert len(reads) == 4 and max(len(ids) for ids in reads) == ID_BATCH


def test_search_reads_its_candidates_in_batches(index):
    hits = index.search("turns", "", where={"instance_id": INSTANCE}, n_results=LINES,
                        query_embedding=[1.0, 0.0])
    assert len(hits) == LINES
    assert max(len(ids) for ids in index._collections["turns"].reads) <= ID_BATCH


def test_vectors_lacking_reads_in_batches(index):
    wanted = [f"turn_s_{n}_user" for n in range(LINES)] + ["turn_s_new_user"]
    assert index.vectors_lacking(INSTANCE, wanted) == ["turn_s_new_user"]
    assert max(len(ids) for ids in index._collections["turns"].reads) <= ID_BATCH
