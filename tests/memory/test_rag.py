from __future__ import annotations

import pytest

from memory.recall.rag import fallback_search, query_extract, query_user_history, recall_mode
from memory.vectors.index import MemoryIndex
from tests.memory.recall_chats import turn_lines

ALSERQI = {"character_id": "char_alserqi", "background_id": "bg_wasteland"}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    index = MemoryIndex(chroma_path=tmp_path_factory.mktemp("chroma") / "chroma_db")
    index.add_turns(instance_id="inst_001", session_id="sess_001", **ALSERQI, turns=turn_lines(
        ("今天风沙很大。", "那就待在避难所里。"),
        ("你要答应我，不要冲动送死。", "好，我答应你，我会冷静行动。"),
        ("晚饭吃什么？", "罐头，和昨天一样。"),
        ("I found a red key near the old water tower.", "Keep it safe, it opens the armory."),
    ))
    index.add_events(instance_id="inst_001", session_id="sess_001", **ALSERQI, events=[
        {"index": 0, "summary": "玩家让Alserqi承诺不冲动送死",
         "plot": "第2轮，玩家要求Alserqi承诺不会冲动行事，Alserqi犹豫后答应冷静行动。"}])
    index.add_turns(instance_id="inst_002", session_id="sess_001", **ALSERQI, turns=turn_lines(
        ("我们约定好了，明天一起出发。", "好，约定。"),))
    index.add_events(instance_id="inst_002", session_id="sess_001", **ALSERQI, events=[
        {"index": 0, "summary": "对峙时Victor试图解释背叛原因",
         "plot": "Alserqi与Victor在仓库对峙，Victor说出了背叛的原因。"}])
    index.add_events(instance_id="inst_003", session_id="sess_001",
                     character_id="char_alserqi", background_id="bg_other", events=[
                         {"index": 0, "summary": "与仇人对峙", "plot": "另一个背景里的对峙"}])
    index.add_events(instance_id="inst_004", session_id="sess_001",
                     character_id="char_other", background_id="bg_wasteland", events=[
                         {"index": 0, "summary": "与仇人对峙", "plot": "另一个角色的对峙"}])
    return index


class BrokenIndex(MemoryIndex):
    def client(self):
        raise ConnectionError("chroma is down")


@pytest.mark.parametrize("text, mode", [
    ("你还记得我们之前的约定吗？", "shallow"),
    ("那次在仓库发生了什么", "shallow"),
    ("详细过程是怎样的", "deep"),
    ("你还记得当时你是怎么逃出来的吗？", "deep"),
    ("Do you REMEMBER the red key?", "shallow"),
    ("What did we do last time?", "shallow"),
    ("Remembered how we escaped?", "deep"),
    ("Tell me in detail what happened", "deep"),
    ("我们走吧", None),
    ("你怎么了？", None),
    ("Show me the map, however you can", None),
    ("how are you", None),
])
def test_recall_mode_follows_the_trigger_words(text, mode):
    assert recall_mode(text) == mode


def test_query_extraction_keeps_what_to_recall():
    assert query_extract("你还记得我们之前的约定吗？") == "约定"
    assert query_extract("Do you remember the red key?") == "the red key"
    assert query_extract("你还记得吗？") == "你还记得吗？"


@pytest.mark.parametrize("text, searched", [
    # The time is the window's (memory/recall/focus.py); as words it found lines that say "weeks".
    ("what did my covid test say a couple of weeks ago", "what did my covid test say"),
    ("the cake I ate 3 days ago", "the cake I ate"),
    ("what did you cook the day before yesterday?", "what cook"),
    ("我三天前跟你说的那部电影", "那部电影"),
    ("大前天买的那双鞋", "买的那双鞋"),
])
def test_the_time_a_question_names_is_not_searched_as_words(text, searched):
    assert query_extract(text) == searched


def test_no_trigger_means_no_search_even_when_chroma_is_down(tmp_path):
    result = query_user_history("我们走吧", "inst_001", index=BrokenIndex(chroma_path=tmp_path))
    assert result.hits == [] and result.mode is None and result.warning is None


def test_shallow_recall_finds_the_promise_of_this_instance_only(index):
    result = query_user_history("你还记得我们之前的约定吗？", "inst_001", index=index)
    assert result.mode == "shallow" and result.query == "约定" and result.warning is None
    assert {hit.metadata["instance_id"] for hit in result.hits} == {"inst_001"}
    top_ids = [hit.id for hit in result.hits[:3]]
    assert "turn_sess_001_2_assistant" in top_ids or "turn_sess_001_2_user" in top_ids
    assert {hit.collection for hit in result.hits} == {"summaries", "turns"}


def test_keyword_match_finds_a_rare_english_word(index):
    result = query_user_history("Do you remember the armory?", "inst_001", index=index, k=3)
    assert result.hits[0].id in {"turn_sess_001_4_assistant", "turn_sess_001_4_user"}


def test_deep_recall_returns_plot_material_not_summaries(index):
    result = query_user_history("之前那次承诺的详细过程是怎样的？", "inst_001", index=index)
    assert result.mode == "deep"
    assert {hit.collection for hit in result.hits} == {"plots", "turns"}
    assert result.hits[0].source.startswith(("plot plot_sess_001_0", "sess_001 #2 "))


def test_force_searches_without_a_trigger(index):
    result = query_user_history("red key", "inst_001", index=index, force=True, k=2)
    assert result.mode == "shallow" and len(result.hits) == 2


def test_unknown_instance_recalls_nothing(index):
    result = query_user_history("你还记得吗？", "inst_999", index=index)
    assert result.hits == [] and result.warning is None


def test_broken_chroma_gives_a_warning_not_an_exception(tmp_path):
    result = query_user_history("你还记得我们之前的约定吗？", "inst_001",
                                index=BrokenIndex(chroma_path=tmp_path))
    assert result.hits == []
    assert result.warning["type"] == "warning"
    assert result.warning["category"] == "recall_unavailable"
    assert result.warning["message"]


def test_unreachable_chroma_server_gives_a_warning(tmp_path):
    index = MemoryIndex(chroma_url="http://127.0.0.1:9")
    result = query_user_history("你还记得我们之前的约定吗？", "inst_001", index=index)
    assert result.hits == [] and result.warning["category"] == "recall_unavailable"


def test_fallback_references_come_from_the_listed_conversations_of_the_same_world(index):
    current, reference = fallback_search("故事大纲第3点：与仇人对峙", instance_id="inst_001",
                                         reference_instance_ids=["inst_002", "inst_003"],
                                         index=index, background_id="bg_wasteland")
    assert current and {hit.metadata["instance_id"] for hit in current} == {"inst_001"}
    assert {hit.collection for hit in current} >= {"summaries", "turns"}
    assert reference
    assert {hit.metadata["instance_id"] for hit in reference} == {"inst_002"}
    assert len(current) <= 15 and len(reference) <= 5


def test_fallback_cites_no_instance_it_was_not_given(index):
    current, reference = fallback_search("故事大纲第3点：与仇人对峙", instance_id="inst_001",
                                         reference_instance_ids=[], index=index,
                                         background_id="bg_wasteland")
    assert current and reference == []
    _, reference = fallback_search("与仇人对峙", instance_id="inst_001",
                                   reference_instance_ids=["inst_003"], index=index,
                                   background_id="bg_wasteland")
    assert reference == []


def test_fallback_with_broken_chroma_returns_nothing(tmp_path):
    assert fallback_search("对峙", instance_id="inst_001", index=BrokenIndex(chroma_path=tmp_path),
                           reference_instance_ids=["inst_002"],
                           background_id="bg_wasteland") == ([], [])
