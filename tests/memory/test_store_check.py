"""A damaged embedded Chroma store found before a server uses it, set aside and deleted, so the
chat goes on (memory/vectors/store_check.py, personalab/lib/embedding/chroma_check.py)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import struct
import subprocess
from pathlib import Path

import chromadb
import numpy as np
from chromadb.api.shared_system_client import SharedSystemClient
from chromadb.config import Settings

from memory import runtime
from memory.vectors import store_check
from personalab.lib.embedding.chroma_check import HNSW_SEGMENT, segment_ids, segment_problem

ELEMENT = 1676  # bytes per element of a 384-dimension segment, as hnswlib stores it


def _segment(folder: Path, *, max_elements: int, count: int, stored: int,
             lengths: int | None = None, version: int = 1) -> Path:
    """Segment files as hnswlib persists them: a 100-byte header, then `stored` elements."""
    folder.mkdir(parents=True)
    header = struct.pack("<i6Qii3QdQ", version, 0, max_elements, count, ELEMENT, 1668, 132, 0, 0,
                         16, 32, 16, 0.36, 100)
    (folder / "header.bin").write_bytes(header)
    (folder / "data_level0.bin").write_bytes(b"\0" * (ELEMENT * stored))
    (folder / "length.bin").write_bytes(b"\0" * (4 * (stored if lengths is None else lengths)))
    # No element above level 0: each one's upper-level byte size is 0.
    (folder / "link_lists.bin").write_bytes(b"\0" * (4 * count))
    return folder


def test_segment_sizes_against_their_header(tmp_path):
    assert segment_problem(_segment(tmp_path / "fine", max_elements=4096, count=3000,
                                    stored=3000)) == ""
    assert segment_problem(_segment(tmp_path / "new", max_elements=100, count=0,
                                    stored=100)) == ""
    assert segment_problem(tmp_path / "not_persisted_yet") == ""
    # What the kill -9s left: the header (and its pickle) of an earlier flush, newer data.
    assert segment_problem(_segment(tmp_path / "older_header", max_elements=4096, count=3251,
                                    stored=19569)) == (
        "data_level0.bin holds 19569 elements, header.bin 3251")
    assert "length.bin holds 10 elements" in segment_problem(
        _segment(tmp_path / "lengths", max_elements=4096, count=3000, stored=3000, lengths=10))
    assert "inconsistent" in segment_problem(
        _segment(tmp_path / "count", max_elements=100, count=200, stored=200))
    assert segment_problem(_segment(tmp_path / "other_format", max_elements=4096, count=3251,
                                    stored=19569, version=2)) == ""


def _links_set(segment: Path, element: int, ids: list[int]) -> None:
    data = segment / "data_level0.bin"
    elements = np.fromfile(data, dtype="<u4").reshape(-1, ELEMENT // 4)
    elements[element, 0] = len(ids)
    elements[element, 1:1 + len(ids)] = ids
    elements.tofile(data)


def test_neighbour_ids_past_the_elements(tmp_path):
    # Sizes intact, but the graph points past the header's elements: a search read past the
    # index and killed the process that ran it.
    level0 = _segment(tmp_path / "level0", max_elements=4096, count=300, stored=300)
    _links_set(level0, 5, [1, 2, 299])
    assert segment_problem(level0) == ""
    _links_set(level0, 7, [1, 300, 0x7FFFFFF0])
    assert segment_problem(level0) == "data_level0.bin: 2 neighbour ids past its 300 elements"
    _links_set(level0, 7, [1] * 33)
    assert segment_problem(level0) == "data_level0.bin: a list of 33 neighbours, at most 32 fit"

    upper = _segment(tmp_path / "upper", max_elements=4096, count=300, stored=300)
    level = struct.pack("<17I", 2, 4, 400, *[0] * 14)  # element 0 on level 1, one id past
    (upper / "link_lists.bin").write_bytes(struct.pack("<I", len(level)) + level
                                           + b"\0" * (4 * 299))
    assert segment_problem(upper) == "link_lists.bin: 1 neighbour ids past its 300 elements"
    (upper / "link_lists.bin").write_bytes(b"\0" * (4 * 200))
    assert segment_problem(upper) == "link_lists.bin ends before its 300 elements"

    entry = _segment(tmp_path / "entry", max_elements=4096, count=300, stored=300)
    header = bytearray((entry / "header.bin").read_bytes())
    struct.pack_into("<i", header, 56, 300)  # the entry point, after the top level
    (entry / "header.bin").write_bytes(bytes(header))
    assert "entry point 300" in segment_problem(entry)


def test_marks_of_processes_gone_and_alive(tmp_path):
    chroma = tmp_path / "chroma_db"
    store_check.process_mark(chroma_path=chroma)
    marks = tmp_path / store_check.MARKS
    assert (marks / str(os.getpid())).read_text() == store_check.process_started(os.getpid())
    dead = subprocess.Popen(["true"])
    dead.wait()
    (marks / str(dead.pid)).write_text("")
    parent = marks / str(os.getppid())
    parent.write_text(store_check.process_started(os.getppid()))
    gone, live = store_check.marks_read(chroma_path=chroma)
    assert (gone, live) == ([marks / str(dead.pid)], [parent])
    # The same pid, another process (a container's server is pid 1 at every start).
    parent.write_text("1")
    assert set(store_check.marks_read(chroma_path=chroma)[0]) == {marks / str(dead.pid), parent}
    (marks / str(os.getpid())).write_text("1")
    assert marks / str(os.getpid()) in store_check.marks_read(chroma_path=chroma)[0]


def test_turns_wait_for_the_check_without_recall(store, settings):
    settings.PERSONALAB_CHROMA_URL = ""
    runtime._store_checked.clear()
    try:
        index, warning = runtime.index_or_warning(store)
        assert index is None and warning["category"] == "recall_unavailable"
        assert "being checked" in warning["message"]
    finally:
        runtime._store_checked.set()


def _store_build(path: Path) -> None:
    client = chromadb.PersistentClient(path=str(path),
                                       settings=Settings(anonymized_telemetry=False))
    rows = np.random.default_rng(7).normal(size=(400, 384)).astype(np.float32)
    for name in ("turns", "turns_minilm"):
        collection = client.get_or_create_collection(name, configuration={
            "hnsw": {"space": "cosine", "sync_threshold": 100, "batch_size": 50}})
        for start in range(0, 400, 100):  # the segment is persisted every 100 adds
            collection.add(ids=[f"t{i}" for i in range(start, start + 100)],
                           embeddings=rows[start:start + 100])
            if start == 100 and name == "turns_minilm":
                segment = path / segment_ids(path)[name]
                shutil.copy(segment / "header.bin", path.parent / "older_header.bin")
    SharedSystemClient.clear_system_cache()


def test_a_damaged_store_is_set_aside_and_searched_again(tmp_path):
    chroma = tmp_path / "event_library" / "chroma_db"
    _store_build(chroma)
    segments = segment_ids(chroma)
    # turns_minilm: the header of an earlier flush (seen after kill -9s): its sizes tell.
    shutil.copy(tmp_path / "event_library" / "older_header.bin",
                chroma / segments["turns_minilm"] / "header.bin")
    # turns: neighbour ids past the end, sizes intact: only a search tells, and it kills
    # the process that runs it (a segfault in chromadb_rust_bindings).
    data = chroma / segments["turns"] / "data_level0.bin"
    elements = np.fromfile(data, dtype="<u4").reshape(-1, ELEMENT // 4)
    elements[:, 1:33] = 0x7FFFFFF0
    elements.tofile(data)
    marks = tmp_path / "event_library" / store_check.MARKS
    marks.mkdir()
    (marks / "999999999").touch()  # a server that crashed

    damaged = store_check.store_check(chroma_path=chroma)

    assert damaged["turns_minilm"] == "data_level0.bin holds 400 elements, header.bin 200"
    # turns' graph points past its elements: the check sees it, no child has to die of it.
    assert damaged["turns"].endswith("neighbour ids past its 400 elements")
    aside = next((tmp_path / "event_library" / store_check.ASIDE).iterdir())
    assert sorted(p.name for p in aside.iterdir()) == [
        "turns", "turns.txt", "turns_minilm", "turns_minilm.txt"]
    assert list(marks.iterdir()) == []
    client = chromadb.PersistentClient(path=str(chroma),
                                       settings=Settings(anonymized_telemetry=False))
    try:
        assert {c.name for c in client.list_collections()} == set()
        turns = client.get_or_create_collection("turns")
        turns.add(ids=["a"], embeddings=[[0.1] * 384])
        assert turns.query(query_embeddings=[[0.1] * 384], n_results=1)["ids"] == [["a"]]
    finally:
        SharedSystemClient.clear_system_cache()


def _store_fake(chroma: Path, segments: dict[str, dict]) -> None:
    """chroma.sqlite3 with only what the size check reads, and each segment's files."""
    chroma.mkdir(parents=True)
    connection = sqlite3.connect(chroma / "chroma.sqlite3")
    connection.executescript("CREATE TABLE collections (id TEXT, name TEXT);"
                             "CREATE TABLE segments (id TEXT, type TEXT, scope TEXT,"
                             " collection TEXT);")
    for name, sizes in segments.items():
        connection.execute("INSERT INTO collections VALUES (?, ?)", (f"c-{name}", name))
        connection.execute("INSERT INTO segments VALUES (?, ?, 'VECTOR', ?)",
                           (f"s-{name}", HNSW_SEGMENT, f"c-{name}"))
        _segment(chroma / f"s-{name}", **sizes)
    connection.commit()
    connection.close()


def test_a_store_whose_collections_cannot_be_deleted_is_moved_aside_whole(tmp_path, monkeypatch):
    chroma = tmp_path / "chroma_db"
    _store_fake(chroma, {"turns": {"max_elements": 4096, "count": 3251, "stored": 19569},
                         "plots": {"max_elements": 100, "count": 0, "stored": 100}})

    def undeletable(path, names):
        raise RuntimeError("collections not deleted")

    monkeypatch.setattr(store_check, "collections_delete", undeletable)
    assert list(store_check.store_check(chroma_path=chroma)) == ["turns"]
    assert not chroma.exists()
    assert [p.name.split("-")[0] for p in tmp_path.iterdir() if p.is_dir()] == [
        "chroma_db.unreadable"]


def test_a_graph_past_its_elements_is_set_aside_after_a_clean_stop(tmp_path, monkeypatch):
    # No mark left: the store was closed cleanly, so no child searches it. Its damage was found
    # only by the server's first search, which killed the server (and the turn under way).
    chroma = tmp_path / "chroma_db"
    _store_fake(chroma, {"turns": {"max_elements": 4096, "count": 300, "stored": 300},
                         "plots": {"max_elements": 4096, "count": 300, "stored": 300}})
    _links_set(chroma / "s-turns", 9, [3, 0x7FFFFFF0])
    deleted = []
    monkeypatch.setattr(store_check, "collections_delete",
                        lambda path, names: deleted.extend(names))
    assert store_check.store_check(chroma_path=chroma) == {
        "turns": "data_level0.bin: 1 neighbour ids past its 300 elements"}
    assert deleted == ["turns"]
    assert not (chroma / "s-turns").exists() and (chroma / "s-plots").exists()


def test_nothing_is_judged_while_another_live_process_has_the_store_open(tmp_path):
    chroma = tmp_path / "chroma_db"
    _store_fake(chroma, {"turns": {"max_elements": 4096, "count": 3251, "stored": 19569}})
    marks = tmp_path / store_check.MARKS
    marks.mkdir()
    (marks / str(os.getppid())).touch()  # mid-write, maybe
    assert store_check.store_check(chroma_path=chroma) == {}
    assert (chroma / "s-turns" / "header.bin").exists()
