"""A Chroma segment damaged while the server runs (another process killed mid-write, a file
garbled under it) is found before this process first loads it: that collection is left alone
and recall goes on without it, with the reason in the log and the inspector, instead of the
server dying in Chroma's native code after the player's line was written (eighth red-team
pass; memory/vectors/index.py `_files_checked`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from chromadb.api.shared_system_client import SharedSystemClient

from memory.recall.rag import query_user_history
from memory.vectors import store_check
from memory.vectors.index import MemoryIndex, chroma_id
from memory.vectors.store_check import CollectionDamaged
from personalab.lib.embedding.chroma_check import segment_ids

ROOT = Path(__file__).resolve().parents[2]
ROWS = 1200  # past Chroma's 1,000 adds, so the segment is written to its files


def _store_built(chroma: Path) -> Path:
    """A store whose `turns` segment is on disk; the folder of that segment."""
    index = MemoryIndex(chroma_path=chroma, second=False)
    rows = np.random.default_rng(3).normal(size=(ROWS, 384)).astype(np.float32)
    for start in range(0, ROWS, 300):
        ids = [f"s1:{turn}:user" for turn in range(start, start + 300)]
        index._call("turns", "upsert", ids=[chroma_id("inst_a", i) for i in ids],
                    embeddings=rows[start:start + 300],
                    documents=[f"第{turn}轮的台词" for turn in range(start, start + 300)],
                    metadatas=[{"instance_id": "inst_a", "session_id": "s1", "turn": turn,
                                "role": "user"} for turn in range(start, start + 300)])
    segment = chroma / segment_ids(chroma)["turns"]
    assert (segment / "header.bin").is_file()  # persisted, as a server's store is
    return segment


def _graph_damaged(segment: Path) -> None:
    """Every neighbour id of level 0 past the elements: what killed a server's search."""
    data = segment / "data_level0.bin"
    size = int(np.frombuffer((segment / "header.bin").read_bytes()[28:36], dtype="<u8")[0])
    elements = np.fromfile(data, dtype="<u4").reshape(-1, size // 4)
    elements[:, 1:17] = 0x7FFFFFF0
    elements.tofile(data)


@pytest.fixture
def damaged_after_start(tmp_path):
    chroma = tmp_path / "chroma_db"
    segment = _store_built(chroma)
    _graph_damaged(segment)  # after the start's check: this process has the segment loaded
    yield chroma
    SharedSystemClient.clear_system_cache()


def test_recall_goes_on_without_a_collection_damaged_after_the_start(damaged_after_start,
                                                                    caplog):
    index = MemoryIndex(chroma_path=damaged_after_start, second=False)  # not set aside
    result = query_user_history("还记得第一轮的台词吗", "inst_a", index=index, force=True)
    assert result.warning["category"] == "recall_unavailable"
    assert "turns collection is damaged" in result.warning["detail"]
    assert "neighbour ids past its 1200 elements" in result.warning["detail"]
    assert "memory collection turns is damaged" in caplog.text
    again = query_user_history("还记得第一轮的台词吗", "inst_a", index=index, force=True)
    assert "turns collection is damaged" in again.warning["detail"]  # said once, kept off


def test_a_store_named_by_a_relative_path_is_read_too(damaged_after_start, monkeypatch):
    # A relative path raised ValueError (sqlite opens the store by a file URI): every recall
    # of such an index would have gone without vectors, for that error.
    monkeypatch.chdir(damaged_after_start.parent)
    index = MemoryIndex(chroma_path=Path(damaged_after_start.name), second=False)
    with pytest.raises(CollectionDamaged, match="turns collection is damaged"):
        index._files_checked("turns")


CHILD = """
import sys
import django
django.setup()
from memory.vectors.index import MemoryIndex
index = MemoryIndex(chroma_path=sys.argv[1], second=False)
try:
    index._call("turns", "query", query_embeddings=[[0.05] * 384], n_results=3)
    print("searched")
except Exception as exc:
    print(type(exc).__name__, exc)
"""


def test_a_process_loading_a_segment_damaged_since_its_start_lives(damaged_after_start):
    # A process that has not loaded the segment yet (a server's collection first used after
    # the damage): Chroma's load of it died in native code (SIGSEGV) before.
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "personalab.settings",
           "PYTHONPATH": str(ROOT)}
    child = subprocess.run([sys.executable, "-c", CHILD, str(damaged_after_start)], env=env,
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout.startswith("CollectionDamaged the memory store's turns collection is "
                                   "damaged (data_level0.bin:")


def _recalled(index: MemoryIndex) -> bool:
    result = query_user_history("还记得第一轮的台词吗", "inst_a", index=index, force=True)
    return result.warning is None


REBUILD = """
import sys
import django
django.setup()
from memory.vectors.index import MemoryIndex, chroma_id
index = MemoryIndex(chroma_path=sys.argv[1], second=False)  # reindex --memory, another process
index.reset()
index._call("turns", "upsert", ids=[chroma_id("inst_a", "s1:1:user")], embeddings=[[0.05] * 384],
            documents=["第一轮的台词"], metadatas=[{"instance_id": "inst_a", "session_id": "s1",
                                                   "turn": 1, "role": "user"}])
"""


def test_recall_comes_back_once_the_collection_is_rebuilt_without_a_restart(
        damaged_after_start):
    """A collection found damaged stayed off until the server's restart, though rebuilt meanwhile
    (ninth red-team pass)."""
    server = MemoryIndex(chroma_path=damaged_after_start, second=False)
    assert not _recalled(server)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "personalab.settings",
           "PYTHONPATH": str(ROOT)}
    rebuild = subprocess.run([sys.executable, "-c", REBUILD, str(damaged_after_start)], env=env,
                             cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert rebuild.returncode == 0, rebuild.stderr[-2000:]
    assert _recalled(server)


def test_an_index_that_resets_its_damaged_collection_uses_it_again(damaged_after_start):
    index = MemoryIndex(chroma_path=damaged_after_start, second=False)
    assert not _recalled(index)
    index.reset()  # the first step of index_rebuild
    assert _recalled(index)


def test_a_server_sets_a_collection_damaged_while_it_serves_aside(damaged_after_start,
                                                                  monkeypatch):
    """It stayed off until a restart or a rebuild by hand (tenth red-team pass); now it is set
    aside as the start's check does and made anew, for the sync to fill in from the files."""
    monkeypatch.setattr(store_check, "SETTLE_SECONDS", 0)
    damaged_segment = segment_ids(damaged_after_start)["turns"]
    server = MemoryIndex(chroma_path=damaged_after_start, second=False, set_aside_damaged=True)
    result = query_user_history("还记得第一轮的台词吗", "inst_a", index=server, force=True)
    assert "turns collection is damaged" in result.warning["detail"]  # this turn goes without
    setting_aside = server._read.setting_aside["turns"]
    setting_aside.join(300)
    assert not setting_aside.is_alive()
    aside = damaged_after_start.parent / store_check.ASIDE
    assert [path.name for path in aside.glob("*/turns")] == ["turns"]
    assert "neighbour ids past" in next(aside.glob("*/turns.txt")).read_text(encoding="utf-8")
    assert _recalled(server)  # made anew, empty until the sync fills it in
    assert segment_ids(damaged_after_start).get("turns") != damaged_segment


def test_a_collection_whole_when_read_again_is_not_set_aside(damaged_after_start,
                                                             monkeypatch):
    """Another process may have been writing its files the moment they were read."""
    monkeypatch.setattr(store_check, "SETTLE_SECONDS", 0)
    problems = iter([("seg", "data_level0.bin: ids past"), ("seg", "")])
    monkeypatch.setattr(store_check, "collection_problem", lambda **kwargs: next(problems))
    monkeypatch.setattr(store_check, "collection_segment", lambda **kwargs: "seg")
    read = store_check.CollectionsRead(damaged_after_start, set_aside=True)
    with pytest.raises(CollectionDamaged):
        read.checked("turns")
    read.setting_aside["turns"].join(30)
    assert not (damaged_after_start.parent / store_check.ASIDE).exists()
    monkeypatch.setattr(store_check, "collection_problem", lambda **kwargs: ("seg", ""))
    assert read.checked("turns") is False  # used after all
