"""The keyword store's search connections are closed when its index is forgotten: each test's
index kept its files open for the rest of a worker's run."""

from __future__ import annotations

import os
from pathlib import Path

from memory import runtime
from memory.keyword_index.store import KeywordStore

DOCUMENT = ("turn_s_1_user", "the lighthouse keeper waved", {"session_id": "s", "turn": 1,
                                                               "role": "user"})


def open_on(path: Path) -> int:
    """How many of this process's descriptors are the file `path` (or its -wal / -shm)."""
    count = 0
    for name in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{name}").startswith(str(path))
        except OSError:  # the listing's own descriptor, closed by now
            pass
    return count


def test_close_lets_go_of_the_files_and_a_search_opens_them_again(tmp_path):
    keywords = KeywordStore(tmp_path / "keywords")
    keywords.upsert("turns", "inst_001", [DOCUMENT])
    assert len(keywords.part("inst_001", "turns")) == 1
    assert open_on(keywords._path("inst_001")) > 0
    keywords.close()
    assert open_on(keywords._path("inst_001")) == 0
    assert len(keywords.part("inst_001", "turns")) == 1


def test_forgetting_the_indexes_closes_their_keyword_files(store):
    index = runtime.index_for(store)
    index.keywords.upsert("turns", "inst_001", [DOCUMENT])
    index.keywords.part("inst_001", "turns")
    assert open_on(index.keywords._path("inst_001")) > 0
    runtime.forget_indexes()
    assert open_on(index.keywords._path("inst_001")) == 0
