"""Indexing derived from the files: what the session files hold and the index does not is
indexed by the next sync, whatever happened in between (Chroma down, a crash, an edit)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from unittest import mock

import pytest

from chat.history_manager import base as history_base
from chat.history_manager import edits as history
from chat.play.turn import turn_run
from memory import runtime
from memory.recall.rag import query_user_history
from memory.vectors.index import MemoryIndex
from memory.vectors.sync import instance_sync, instances_sync, state_read
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


async def _turn(store, instance_id, text):
    async def emit(event):
        pass

    return await turn_run(store, instance_id=instance_id, user_text=text, emit=emit)


def _recalled(store, instance_id, question):
    result = query_user_history(question, instance_id, index=runtime.index_for(store), force=True,
                                k=5)
    assert result.warning is None
    return [hit.text for hit in result.hits]


def _turn_texts(store, instance_id):
    index = runtime.index_for(store)
    return {doc: meta["doc_id"] for doc, meta in (
        (text, meta) for text, meta in index.documents_stored(
            "turns", where={"instance_id": instance_id}).values())}


def test_turns_written_while_chroma_was_down_are_indexed_when_it_is_back(
        store, instance, memory_on, use_stub, monkeypatch):
    runtime.index_for(store).collection_ids()  # Chroma was up once: its collections exist

    def down(self, name, method, **kwargs):
        raise ConnectionError("chroma is down")

    with monkeypatch.context() as patch:
        patch.setattr(MemoryIndex, "_call", down)
        use_stub.script(Reply("我把钥匙藏在了旧水塔下面。"), Reply("暗号是蓝色鹦鹉。"))
        asyncio.run(_turn(store, instance, "钥匙你放哪了？"))
        asyncio.run(_turn(store, instance, "接头的暗号是什么？"))
        runtime.drain()
    assert "我把钥匙藏在了旧水塔下面。" not in _turn_texts(store, instance)

    # Chroma is back; nothing is said to the app: the periodic catch-up finds the turns.
    runtime._catch_up()
    runtime.drain()
    stored = _turn_texts(store, instance)
    assert {"钥匙你放哪了？", "我把钥匙藏在了旧水塔下面。", "接头的暗号是什么？",
            "暗号是蓝色鹦鹉。"} <= set(stored)
    assert any("蓝色鹦鹉" in text for text in _recalled(store, instance, "你还记得暗号吗？"))


def test_lines_in_the_file_that_no_job_indexed_are_indexed_by_the_next_turn(
        store, instance, memory_on, use_stub):
    # A worker killed after writing its turn never ran its indexing job.
    with store.instance_lock(instance):
        for role, text in (("user", "仓库的密码是多少？"), ("assistant", "密码是七三九一。")):
            store.session_append(instance, "sess_001", {"role": role, "content": text, "turn": 1,
                                                        "timestamp": "2025-10-16T10:00:00Z"})
    use_stub.script(Reply("好。"))
    asyncio.run(_turn(store, instance, "我们出发吧。"))
    runtime.drain()
    assert {"仓库的密码是多少？", "密码是七三九一。", "我们出发吧。", "好。"} <= set(
        _turn_texts(store, instance))


def test_an_edited_line_is_recalled_by_its_new_text_and_never_by_the_old(
        store, instance, memory_on, use_stub):
    use_stub.script(Reply("暗号是蓝色鹦鹉。"), Reply("记住了。"))
    asyncio.run(_turn(store, instance, "接头的暗号是什么？"))
    asyncio.run(_turn(store, instance, "好的。"))
    runtime.drain()
    assert any("蓝色鹦鹉" in text for text in _recalled(store, instance, "你还记得暗号吗？蓝色鹦鹉"))

    read = store.session_read(instance, "sess_001")
    at = next(i for i, line in enumerate(read.lines) if line.get("content") == "暗号是蓝色鹦鹉。")
    history.message_edit(store, instance_id=instance, session_id="sess_001", index=at,
                         fingerprint=history_base.line_fingerprint(read.lines[at]),
                         text="暗号是黑色乌鸦。")
    runtime.drain()
    stored = _turn_texts(store, instance)
    assert "暗号是黑色乌鸦。" in stored and "暗号是蓝色鹦鹉。" not in stored
    recalled = _recalled(store, instance, "你还记得暗号吗？蓝色鹦鹉")
    assert not any("蓝色鹦鹉" in text for text in recalled)
    assert any("黑色乌鸦" in text for text in _recalled(store, instance, "暗号是黑色乌鸦吗？"))

    read = store.session_read(instance, "sess_001")
    at = next(i for i, line in enumerate(read.lines) if line.get("content") == "暗号是黑色乌鸦。")
    history.message_delete(store, instance_id=instance, session_id="sess_001", index=at,
                           fingerprint=history_base.line_fingerprint(read.lines[at]))
    runtime.drain()
    assert not any("乌鸦" in text for text in _turn_texts(store, instance))
    assert not any("乌鸦" in text for text in _recalled(store, instance, "你还记得乌鸦吗？"))


def test_an_edit_that_keeps_every_byte_offset_is_still_indexed(store, instance, memory_on,
                                                               use_stub):
    """An edit rewrites the file's tail in place (same file): a second edit of a line, to a
    text of the same length, leaves every later line where it was."""
    use_stub.script(Reply("暗号是蓝色鹦鹉。"), Reply("记住了。"))
    asyncio.run(_turn(store, instance, "接头的暗号是什么？"))
    asyncio.run(_turn(store, instance, "好的。"))
    for old, new in (("暗号是蓝色鹦鹉。", "暗号是黑色乌鸦。"), ("暗号是黑色乌鸦。", "暗号是白色海鸥。")):
        runtime.drain()
        read = store.session_read(instance, "sess_001")
        at = next(i for i, line in enumerate(read.lines) if line.get("content") == old)
        size = store.session_path(instance, "sess_001").stat().st_size
        history.message_edit(store, instance_id=instance, session_id="sess_001", index=at,
                             fingerprint=history_base.line_fingerprint(read.lines[at]), text=new)
    assert store.session_path(instance, "sess_001").stat().st_size == size
    runtime.drain()
    stored = _turn_texts(store, instance)
    assert "暗号是白色海鸥。" in stored and "暗号是黑色乌鸦。" not in stored


def test_appends_are_read_from_the_watermark_and_a_streaming_line_waits(store, instance,
                                                                        memory_on):
    index = runtime.index_for(store)
    with store.instance_lock(instance):
        store.session_append(instance, "sess_001", {"role": "user", "content": "第一句。",
                                                    "turn": 1})
    assert instance_sync(store, index, instance_id=instance)["turns"] == 1
    assert instance_sync(store, index, instance_id=instance)["turns"] == 0
    path = store.session_path(instance, "sess_001")
    with path.open("ab") as handle:  # a reply still streaming: no newline yet
        handle.write(b'{"role":"assistant","turn":1,"_streaming":true,"content":"\xe5\x86')
    assert instance_sync(store, index, instance_id=instance)["turns"] == 0
    mark = state_read(store, instance)["sessions"]["sess_001"]
    assert mark["offset"] < path.stat().st_size
    assert set(_turn_texts(store, instance)) == {"第一句。"}


def test_an_archived_session_leaves_the_index(store, instance, memory_on):
    from chat.services.sessions import session_archive_and_restart

    index = runtime.index_for(store)
    with store.instance_lock(instance):
        store.session_append(instance, "sess_001", {"role": "user", "content": "旧的话。",
                                                    "turn": 1})
    instance_sync(store, index, instance_id=instance)
    assert "旧的话。" in _turn_texts(store, instance)
    session_archive_and_restart(store, instance_id=instance, session_id="sess_001")
    runtime.drain()
    assert "旧的话。" not in _turn_texts(store, instance)


def test_a_rebuilt_index_is_noticed_and_a_running_worker_keeps_working(store, instance,
                                                                       memory_on, tmp_path):
    worker = runtime.index_for(store)
    with store.instance_lock(instance):
        store.session_append(instance, "sess_001", {"role": "user", "content": "水塔下面。",
                                                    "turn": 1})
    instance_sync(store, worker, instance_id=instance)
    assert worker.search("turns", "水塔", where={"instance_id": instance}, n_results=3)

    # Another process wipes the collections (a Chroma server that lost its data).
    other = MemoryIndex(chroma_path=store.chroma_dir)
    other.reset()
    # The running worker's handles point at deleted collections: reopened, not an error.
    assert worker.search("turns", "水塔", where={"instance_id": instance}, n_results=3) == []
    # The watermark belonged to the old collections: the next sync indexes the file again.
    assert instances_sync(store, worker)["turns"] == 1
    assert [hit.text for hit in worker.search("turns", "水塔", where={"instance_id": instance},
                                              n_results=3)] == ["水塔下面。"]


def _aged(folder, seconds=60):
    """The history folder as a sync finds it long after its last change."""
    old = time.time_ns() - seconds * 1_000_000_000
    os.utime(folder, ns=(old, old))


def _edit(store, instance_id, old, new):
    """An edit whose index work is left to the test's own syncs: the sync it queues ran late
    on a loaded machine and took the test's next lines first (CI)."""
    read = store.session_read(instance_id, "sess_001")
    at = next(i for i, line in enumerate(read.lines) if line.get("content") == old)
    with mock.patch.object(runtime, "schedule_sync", lambda *args, **kwargs: None):
        history.message_edit(store, instance_id=instance_id, session_id="sess_001", index=at,
                             fingerprint=history_base.line_fingerprint(read.lines[at]), text=new)


def _synced_after_an_edit(store, index, instance_id):
    """A line edited once (so a second edit to a text of the same length keeps every byte
    offset), everything indexed, the history folder settled long ago."""
    with store.instance_lock(instance_id):
        for role, text in (("user", "暗号是蓝色鹦鹉。"), ("assistant", "记住了。")):
            store.session_append(instance_id, "sess_001", {"role": role, "content": text,
                                                           "turn": 1})
    _edit(store, instance_id, "暗号是蓝色鹦鹉。", "暗号是黑色乌鸦。")
    folder = store.sessions_dir(instance_id) / "history"
    for n in range(300):  # the backups of many earlier edits
        (folder / f"sess_000.20260101T0000{n:04d}Z.jsonl").write_text("{}\n")
    _aged(folder)
    instance_sync(store, index, instance_id=instance_id)
    return store.session_path(instance_id, "sess_001").stat().st_size


def test_a_turn_after_many_edits_does_not_list_the_history_folder_and_edits_still_count(
        store, instance, memory_on, monkeypatch):
    index = runtime.index_for(store)
    _synced_after_an_edit(store, index, instance)
    listed = []
    real_glob = Path.glob
    monkeypatch.setattr(Path, "glob", lambda self, pattern: listed.append(self)
                        or real_glob(self, pattern))
    with store.instance_lock(instance):
        store.session_append(instance, "sess_001", {"role": "user", "content": "出发。",
                                                    "turn": 2})
    assert instance_sync(store, index, instance_id=instance)["turns"] == 1
    assert store.sessions_dir(instance) / "history" not in listed

    size = store.session_path(instance, "sess_001").stat().st_size
    _edit(store, instance, "暗号是黑色乌鸦。", "暗号是白色海鸥。")
    assert store.session_path(instance, "sess_001").stat().st_size == size
    instance_sync(store, index, instance_id=instance)
    stored = _turn_texts(store, instance)
    assert "暗号是白色海鸥。" in stored and "暗号是黑色乌鸦。" not in stored


def test_an_edit_cut_short_by_kill_9_is_indexed_once_the_session_is_repaired(
        store, instance, memory_on, monkeypatch):
    from chat.services.sessions import session_read_repaired
    from tests.chat.tail_crashes import TailCrash, tail_crash_at

    index = runtime.index_for(store)
    size = _synced_after_an_edit(store, index, instance)
    with monkeypatch.context() as patch:
        tail_crash_at(patch, "written")  # the new tail is in place, its backup not yet in history/
        with pytest.raises(TailCrash):
            _edit(store, instance, "暗号是黑色乌鸦。", "暗号是白色海鸥。")
    assert store.session_path(instance, "sess_001").stat().st_size == size
    instance_sync(store, index, instance_id=instance)

    session_read_repaired(store, instance, "sess_001")  # what the next page or turn does first
    instance_sync(store, index, instance_id=instance)
    stored = _turn_texts(store, instance)
    assert "暗号是白色海鸥。" in stored and "暗号是黑色乌鸦。" not in stored


def test_an_edit_followed_late_on_the_live_thread_leaves_the_new_text_a_sync_wrote(
        store, instance, memory_on, monkeypatch):
    """The live thread follows a history change; when it runs after a sync that already
    embedded the new text (the thread was busy), it must not take that text out of Chroma:
    the sync's mark is past the line, so nothing would put it back."""
    index = runtime.index_for(store)
    _synced_after_an_edit(store, index, instance)
    late = []
    monkeypatch.setattr(runtime, "live_schedule", lambda func, *args, **kwargs:
                        late.append((func, args, kwargs)))
    _edit(store, instance, "暗号是黑色乌鸦。", "暗号是白色海鸥。")
    instance_sync(store, index, instance_id=instance)
    assert "暗号是白色海鸥。" in _turn_texts(store, instance)
    assert [func.__name__ for func, _, _ in late] == ["history_keywords_follow"]
    for func, args, kwargs in late:
        func(*args, **kwargs)
    stored = _turn_texts(store, instance)
    assert "暗号是白色海鸥。" in stored and "暗号是黑色乌鸦。" not in stored
    instance_sync(store, index, instance_id=instance)
    assert "暗号是白色海鸥。" in _turn_texts(store, instance)
