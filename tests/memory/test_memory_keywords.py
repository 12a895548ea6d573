"""The keyword half of recall: SQLite FTS5 files every worker reads, updated by every write,
emptied on delete/reset, with the same BM25 as a naive one."""

from __future__ import annotations

import math
import random
import sqlite3
import threading
import time
from collections import Counter

import pytest

from memory.keyword_index import bm25 as keywords
from memory.keyword_index import store as keyword_store
from memory.keyword_index.bm25 import CONTEXT_BEFORE, CONTEXT_WEIGHT, KeywordPart, text_tokenize
from memory.keyword_index.store import KeywordStore
from memory.recall.rag import keyword_search, query_user_history
from memory.vectors.index import MemoryIndex
from memory.vectors.sync import index_rebuild
from personalab.lib.filestore.store import FileStore
from tests.memory.recall_chats import turn_lines

OWNER = {"instance_id": "inst_001", "character_id": "char_alserqi", "background_id": "bg_wasteland"}


def found(index: MemoryIndex, query: str, instance_id: str = "inst_001") -> set[str]:
    keys = keyword_search(index, ("turns",), query, where={"instance_id": instance_id}, k=10,
                          also=[])
    return {doc_id for _, _, doc_id in keys}


@pytest.fixture
def index(tmp_path):
    index = MemoryIndex(chroma_path=tmp_path / "chroma_db")
    index.add_turns(session_id="sess_001", **OWNER, turns=turn_lines(
        ("今天风沙很大。", "那就待在避难所里。"),
        ("晚饭吃什么？", "罐头，和昨天一样。")))
    return index


def test_chinese_is_matched_by_bigrams_and_english_by_light_stems():
    assert text_tokenize("我们约定好了") == ["我们", "们约", "约定", "定好", "好了"]
    assert text_tokenize("Caroline paints, she painted") == ["carolin", "paint", "paint"]


def test_a_turn_added_after_the_first_search_is_found_by_keyword(index):
    assert found(index, "约定") == set()
    index.add_turns(session_id="sess_001", **OWNER, turns=turn_lines(
        ("我们约定好了，明天一起出发。", "好。"), start=3))
    assert "turn_sess_001_3_user" in found(index, "约定")


def test_a_reply_is_found_by_the_question_before_it(index):
    found(index, "水塔")  # the part is read before the new lines arrive
    index.add_turns(session_id="sess_001", **OWNER, turns=turn_lines(
        ("我把钥匙藏在水塔下面了。", "好，我记住了。"), ("然后呢？", "然后我们就走了。"), start=3))
    assert found(index, "水塔") >= {"turn_sess_001_3_user", "turn_sess_001_3_assistant",
                                   "turn_sess_001_4_user"}
    assert "turn_sess_001_4_assistant" not in found(index, "水塔")


def test_a_turn_written_again_is_matched_by_its_new_text(index):
    found(index, "罐头")
    index.add_turns(session_id="sess_001", **OWNER, turns=[
        {"role": "assistant", "content": "烤蜥蜴。", "turn": 2, "timestamp": "t"}])
    assert "turn_sess_001_2_assistant" not in found(index, "罐头")
    assert "turn_sess_001_2_assistant" in found(index, "蜥蜴")


def test_recall_finds_a_turn_written_after_the_first_recall(index):
    query_user_history("你还记得风沙吗？", "inst_001", index=index)
    index.add_turns(session_id="sess_002", **OWNER, turns=turn_lines(
        ("答应我，不要冲动送死。", "好，我答应你，我会冷静行动。")))
    result = query_user_history("你还记得我们的约定吗？我说过不要冲动送死", "inst_001", index=index,
                                force=True, k=3)
    assert "turn_sess_002_1_user" in [hit.id for hit in result.hits]


def test_delete_instance_drops_its_turns_from_keyword_search(index):
    index.add_turns(session_id="sess_001", **{**OWNER, "instance_id": "inst_002"},
                    turns=turn_lines(("今天风沙很大。", "是啊。")))
    assert found(index, "风沙") and found(index, "风沙", "inst_002")
    index.delete_instance("inst_001")
    assert found(index, "风沙") == set()
    assert found(index, "风沙", "inst_002") == {"turn_sess_001_1_user",
                                               "turn_sess_001_1_assistant"}


def test_reindex_drops_turns_that_are_no_longer_in_the_files(index, tmp_path):
    assert found(index, "罐头")
    store = FileStore(tmp_path / "data")
    store.instance_state_write("inst_001", {**OWNER, "current_session_id": "sess_001"})
    store.session_create("inst_001", "sess_001")
    for line in turn_lines(("今天风沙很大。", "那就待在避难所里。")):
        store.session_append("inst_001", "sess_001", line)
    index_rebuild(index, store)
    assert found(index, "罐头") == set()
    assert found(index, "风沙") == {"turn_sess_001_1_user", "turn_sess_001_1_assistant"}


def test_turns_written_by_another_process_are_noticed(index, tmp_path):
    assert found(index, "约定") == set()
    other = MemoryIndex(chroma_path=tmp_path / "chroma_db")
    other.add_turns(session_id="sess_009", **OWNER, turns=turn_lines(("我们约定好了。", "好。")))
    assert found(index, "约定") == {"turn_sess_009_1_user", "turn_sess_009_1_assistant"}


def test_fallback_keyword_search_keeps_to_the_current_background(index):
    index.add_turns(session_id="sess_002", **{**OWNER, "background_id": "bg_other"},
                    turns=turn_lines(("风沙停了。", "走吧。")))
    keys = keyword_search(index, ("turns",), "风沙", k=10, also=[],
                          where={"instance_id": "inst_001", "background_id": "bg_wasteland"})
    assert {doc_id for _, _, doc_id in keys} == {"turn_sess_001_1_user",
                                                 "turn_sess_001_1_assistant",
                                                 "turn_sess_001_2_user"}


def naive_bm25(lines: list[dict], query: str, k1: float = 1.2, b: float = 0.75) -> dict[str, float]:
    """BM25 over each line joined with the CONTEXT_BEFORE lines before it in its session, those
    lines weighted by CONTEXT_WEIGHT."""
    ordered = sorted(lines, key=lambda l: (l["session"], l["turn"], l["role"] != "user"))
    docs = {}
    for at, line in enumerate(ordered):
        context = [o for o in ordered[max(0, at - CONTEXT_BEFORE):at]
                   if o["session"] == line["session"]]
        counts = Counter(text_tokenize(line["text"]))
        for other in context:  # the lines before count for CONTEXT_WEIGHT each
            for token in text_tokenize(other["text"]):
                counts[token] += CONTEXT_WEIGHT
        docs[line["id"]] = counts
    average = sum(sum(d.values()) for d in docs.values()) / len(docs)
    scores = dict.fromkeys(docs, 0.0)
    for token in set(text_tokenize(query)):
        having = [d for d in docs.values() if token in d]
        if not having:
            continue
        idf = math.log(1 + (len(docs) - len(having) + 0.5) / (len(having) + 0.5))
        for doc_id, doc in docs.items():
            tf = doc[token]
            norm = k1 * (1 - b + b * sum(doc.values()) / average)
            scores[doc_id] += idf * tf * (k1 + 1) / (tf + norm)
    return scores


@pytest.mark.parametrize("snapshot_every", [2000, 3])
def test_stored_scores_equal_bm25_over_each_turn_with_its_context(tmp_path, monkeypatch,
                                                                  snapshot_every):
    """Written by one worker (in batches, out of order, some written again, some deleted),
    searched by another that starts from the file (its snapshot and the log after it)."""
    monkeypatch.setattr(keyword_store, "SNAPSHOT_EVERY", snapshot_every)
    rng = random.Random(3)
    words = ["水塔", "钥匙", "约定", "armory", "red key", "风沙", "仓库", "Victor"]
    lines = [{"session": f"s{s}", "turn": t, "role": role, "id": f"turn_s{s}_{t}_{role}",
              "text": " ".join(rng.sample(words, 2))}
             for s in range(3) for t in range(1, 8) for role in ("user", "assistant")]
    rng.shuffle(lines)
    store = KeywordStore(tmp_path / "keywords")

    def write(batch):
        store.upsert("turns", "inst_001", [
            (line["id"], line["text"], {"session_id": line["session"], "turn": line["turn"],
                                        "role": line["role"]}) for line in batch])

    for start in range(0, len(lines), 5):  # in batches, out of order
        write(lines[start:start + 5])
    for line in lines[:5]:  # written again with new text
        line["text"] = "钥匙 钥匙 水塔"
    write(lines[:5])
    gone, lines = lines[5:9], lines[:5] + lines[9:]  # deleted: the lines after see new ones
    store.delete("turns", "inst_001", [line["id"] for line in gone])
    other_worker = KeywordStore(tmp_path / "keywords")
    for query in ("钥匙在水塔", "the red key", "Victor 仓库 约定"):
        got = other_worker.scores(["inst_001"], ("turns",), query, equal={}, k=len(lines), also=[])
        expected = naive_bm25(lines, query)
        assert {key[2]: score for key, score in got.items()} == pytest.approx(
            {doc_id: score for doc_id, score in expected.items() if score > 0})


def test_a_first_write_waits_for_another_writer_still_making_the_file(tmp_path, monkeypatch):
    """Two first writes on a new instance's file: SQLite does not wait for a busy database to
    switch it to WAL, so the one that came second failed at once with "database is locked"."""
    monkeypatch.setattr(keyword_store, "SCHEMA_RETRY_SECONDS", 0.02, raising=False)
    store = KeywordStore(tmp_path / "keywords")
    store.folder.mkdir(parents=True)
    other = sqlite3.connect(store.folder / "inst_001.sqlite3", isolation_level=None,
                            check_same_thread=False)
    other.execute("CREATE TABLE making(x)")  # still in the rollback journal's mode
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO making VALUES (1)")
    written = threading.Thread(target=store.upsert, args=("turns", "inst_001", [
        ("turn_sess_001_1_user", "暗号是蓝色鹦鹉", {"session_id": "sess_001", "turn": 1,
                                                  "role": "user"})]))
    failed = []
    written.run = _failures_kept(written.run, failed)
    written.start()
    time.sleep(0.2)  # the write is waiting, not refused
    other.execute("COMMIT")
    other.close()
    written.join(timeout=30)
    assert failed == []
    assert list(store.scores(["inst_001"], ("turns",), "暗号", equal={}, k=5, also=[])) == [
        ("turns", "inst_001", "turn_sess_001_1_user")]


def _failures_kept(run, failed):
    def kept():
        try:
            run()
        except Exception as exc:  # noqa: BLE001 — the test reads it
            failed.append(exc)
    return kept


def test_every_worker_reads_the_same_keyword_file_with_no_load_step(tmp_path):
    first = KeywordStore(tmp_path / "keywords")
    second = KeywordStore(tmp_path / "keywords")
    assert second.scores(["inst_001"], ("turns",), "暗号", equal={}, k=5, also=[]) == {}
    first.upsert("turns", "inst_001", [("turn_sess_001_1_user", "暗号是蓝色鹦鹉",
                                        {"session_id": "sess_001", "turn": 1, "role": "user"})])
    assert list(second.scores(["inst_001"], ("turns",), "暗号", equal={}, k=5, also=[])) == [
        ("turns", "inst_001", "turn_sess_001_1_user")]
    assert second.scores(["inst_002"], ("turns",), "暗号", equal={}, k=5, also=[]) == {}


def test_a_worker_that_searched_before_sees_later_writes_of_another(tmp_path, monkeypatch):
    monkeypatch.setattr(keyword_store, "SNAPSHOT_EVERY", 2)
    reader, writer = KeywordStore(tmp_path / "keywords"), KeywordStore(tmp_path / "keywords")

    def line(turn, text):
        return (f"turn_sess_001_{turn}_user", text,  # no line before it: no context
                {"session_id": f"sess_{turn:03d}", "turn": turn, "role": "user"})

    writer.upsert("turns", "inst_001", [line(1, "水塔"), line(2, "风沙")])
    assert set(reader.scores(["inst_001"], ("turns",), "风沙", equal={}, k=5, also=[])) == {
        ("turns", "inst_001", "turn_sess_001_2_user")}
    # Past a snapshot the reader starts again from it; deletions folded into it hold too.
    writer.upsert("turns", "inst_001", [line(3, "风沙"), line(4, "风沙"), line(5, "仓库")])
    writer.delete("turns", "inst_001", ["turn_sess_001_2_user"])
    writer.upsert("turns", "inst_001", [line(6, "仓库"), line(7, "仓库")])
    assert {key[2] for key in reader.scores(["inst_001"], ("turns",), "风沙", equal={}, k=5,
                                            also=[])} == {"turn_sess_001_3_user",
                                                          "turn_sess_001_4_user"}


def test_a_codeword_written_by_another_worker_before_this_one_wrote_is_found(index, tmp_path):
    """The old in-process index took the collection's size after its own write as "nothing
    else changed", so another worker's write just before it was never loaded."""
    assert found(index, "鹦鹉") == set()
    other = MemoryIndex(chroma_path=tmp_path / "chroma_db")
    other.add_turns(session_id="sess_002", **OWNER, turns=turn_lines(("暗号是蓝色鹦鹉。", "记住了。")))
    index.add_turns(session_id="sess_003", **OWNER, turns=turn_lines(("今天下雨。", "嗯。")))
    assert "turn_sess_002_1_user" in found(index, "鹦鹉")


def test_a_snapshot_made_by_another_tokenizer_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setattr(keyword_store, "SNAPSHOT_EVERY", 1)
    writer = KeywordStore(tmp_path / "keywords")
    writer.upsert("turns", "inst_001", [("turn_sess_001_1_user", "Caroline went hiking",
                                        {"session_id": "sess_001", "turn": 1, "role": "user"})])
    monkeypatch.setattr(keywords, "TOKENS_VERSION", "a newer tokenizer")
    monkeypatch.setattr(keywords, "text_tokenize", lambda text: text.lower().split())
    reader = KeywordStore(tmp_path / "keywords")  # the snapshot holds "hike"; the log the text
    assert set(reader.scores(["inst_001"], ("turns",), "hiking", equal={}, k=5, also=[])) == {
        ("turns", "inst_001", "turn_sess_001_1_user")}


@pytest.mark.parametrize("snapshot_is_old", [False, True])
def test_another_worker_knows_who_spoke_and_which_lines_ask_from_the_snapshot_or_the_log(
        tmp_path, monkeypatch, snapshot_is_old):
    monkeypatch.setattr(keyword_store, "SNAPSHOT_EVERY", 1)
    writer = KeywordStore(tmp_path / "keywords")

    def line(turn, text, **names):
        return (f"turn_s_{turn}_user", text, {"session_id": "s", "turn": turn, "role": "user",
                                              **names})

    writer.upsert("turns", "inst_001", [line(1, "Do you cook?", speaker="Nicolas"),
                                        line(2, "I cook pasta.", speaker="c2", name="Nebraas")])
    writer.upsert("turns", "inst_001", [line(1, "I cook rice.", speaker="Nicolas")])  # tells now
    writer.upsert("turns", "inst_001", [line(3, "Why?", speaker="Vanessa")])
    if snapshot_is_old:  # written before the speakers and the asking shares were kept
        from_bytes = KeywordPart.from_bytes

        def old_snapshot(data):
            part = from_bytes(data)
            part.speakers = part.asks = None
            return part

        monkeypatch.setattr(KeywordPart, "from_bytes", staticmethod(old_snapshot))
    reader = KeywordStore(tmp_path / "keywords")
    assert reader.speakers(["inst_001"]) == {"Nicolas", "Nebraas", "Vanessa"}
    assert reader.speakers(["inst_002"]) == set()
    keys = [("turns", "inst_001", f"turn_s_{turn}_user") for turn in (1, 2, 3, 4)]
    assert reader.ask_shares(keys) == {keys[0]: 0.0, keys[1]: 0.0, keys[2]: 1.0}
