from __future__ import annotations

import copy
import json

import pytest

from director.logic import (
    INSTRUCTION,
    DirectorWords,
    director_prepare_context,
    director_process_response,
    outline_with_status,
)
from director.services import (
    SettingsInvalid,
    director_apply_reply,
    director_settings_read,
    director_settings_write,
    director_status,
    instance_switch_background,
)
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import InvalidId
from personalab.lib.store_errors import MissingFile

OUTLINE = ["发现背叛者的线索", "潜入敌人据点", "与仇人对峙", "做出关键选择", "应对选择的后果"]
BACKGROUND = {
    "background_id": "bg_wasteland",
    "name": "废土复仇记",
    "world_setting": "2087年，核战后50年...",
    "story_outline": [{"index": i, "content": c} for i, c in enumerate(OUTLINE, start=1)],
}
ON = {"enabled": True, "rag_fallback_threshold": 3}
SEED_REPLY_42 = ("我当然记得。（沉默片刻）我答应过你，不会冲动送死。但Victor必须付出代价，"
                 "这是我活下去的唯一理由。我会等，等到最安全的时机。[PROGRESS:3:in_progress]")


def seed_state(count: int = 2, index: int = 3, status: str = "in_progress") -> dict:
    return {
        "instance_id": "inst_001", "character_id": "char_alserqi", "background_id": "bg_wasteland",
        "current_session_id": "sess_003", "created_at": "2025-10-10T10:00:00Z",
        "plot_state": {"current_plot_index": index, "current_status": status,
                       "no_update_count": count},
    }


class RecordingSearch:
    def __init__(self, current: list[str], reference: list[str]):
        self.queries: list[str] = []
        self.result = (current, reference)

    def __call__(self, query: str) -> tuple[list[str], list[str]]:
        self.queries.append(query)
        return self.result


def no_search(query: str) -> tuple[list[str], list[str]]:
    raise AssertionError(f"search must not run below the threshold (asked {query!r})")


def prepare(state: dict, *, search=no_search, settings=ON, threshold=3, background=BACKGROUND):
    return director_prepare_context(settings=settings, threshold=threshold, instance_state=state,
                                    background=background, search=search)


def process(plot_state: dict, content: str, settings=ON, outline_length=5, **flags):
    return director_process_response(settings=settings, plot_state=plot_state,
                                     reply={"content": content, **flags},
                                     outline_length=outline_length)


@pytest.fixture
def store(tmp_path) -> FileStore:
    store = FileStore(tmp_path)
    store.background_write("bg_wasteland", BACKGROUND)
    store.background_write("bg_short", {"name": "短篇", "world_setting": "",
                                        "story_outline": [{"content": "相遇"}, {"content": "告别"}]})
    store.instance_state_write("inst_001", seed_state())
    return store


# --- pure logic --------------------------------------------------------------


def test_outline_status_follows_the_current_point():
    rows = outline_with_status(BACKGROUND["story_outline"], seed_state()["plot_state"])
    assert [(r["index"], r["content"], r["status"], r["current"]) for r in rows] == [
        (1, "发现背叛者的线索", "completed", False),
        (2, "潜入敌人据点", "completed", False),
        (3, "与仇人对峙", "in_progress", True),
        (4, "做出关键选择", "pending", False),
        (5, "应对选择的后果", "pending", False),
    ]


def test_prepare_context_below_threshold_has_outline_and_instruction_but_no_reminder():
    context = prepare(seed_state(count=2))
    assert context["instruction"] == f"{INSTRUCTION}\n当前目标：故事大纲第3点：与仇人对峙"
    assert "[PROGRESS:X:status]" in context["instruction"]
    assert context["current_index"] == 3
    assert context["current_point"]["content"] == "与仇人对峙"
    assert (context["no_update_count"], context["threshold"]) == (2, 3)
    assert context["reminder"] is None
    assert context["finished"] is False and context["clamped"] is False


def test_three_misses_then_the_reminder_fires_with_the_seed_query_and_events():
    plot_state = {"current_plot_index": 3, "current_status": "in_progress", "no_update_count": 0}
    for _ in range(3):
        plot_state, report = process(plot_state, "等他们分散。")
        assert report["counted_as_miss"] is True
    assert plot_state["no_update_count"] == 3
    current = [f"事件{i}" for i in range(20)]
    reference = ["参考1：在其他剧情线中，对峙时Victor试图解释背叛原因"] + [f"参考{i}" for i in range(2, 9)]
    search = RecordingSearch(current, reference)
    state = {**seed_state(), "plot_state": plot_state}
    reminder = prepare(state, search=search)["reminder"]
    assert search.queries == ["故事大纲第3点：与仇人对峙"]
    assert reminder["text"] == "你现在应该推进到故事大纲第3点：与仇人对峙"
    assert reminder["query"] == "故事大纲第3点：与仇人对峙"
    assert reminder["current_events"] == current[:15]
    assert reminder["reference_events"] == reference[:5]
    assert "search_error" not in reminder


def test_once_a_point_is_completed_reminder_and_instruction_name_the_next_one():
    state = seed_state(count=3, index=3, status="completed")
    search = RecordingSearch([], [])
    context = prepare(state, search=search)
    assert context["reminder"]["text"] == "你现在应该推进到故事大纲第4点：做出关键选择"
    assert search.queries == ["故事大纲第4点：做出关键选择"]
    assert context["instruction"].endswith("当前目标：故事大纲第4点：做出关键选择")
    assert "第3点" not in context["instruction"]
    in_progress = prepare(seed_state(count=3, index=3), search=RecordingSearch([], []))
    assert in_progress["reminder"]["text"] == "你现在应该推进到故事大纲第3点：与仇人对峙"


def test_a_finished_outline_has_no_goal_and_no_reminder():
    context = prepare(seed_state(count=9, index=5, status="completed"))
    assert context["finished"] is True and context["reminder"] is None
    assert context["instruction"] == INSTRUCTION


def test_reminder_does_not_reset_the_counter_only_a_marker_does():
    plot_state = {"current_plot_index": 3, "current_status": "in_progress", "no_update_count": 3}
    state = {**seed_state(), "plot_state": plot_state}
    before = copy.deepcopy(state)
    assert prepare(state, search=RecordingSearch([], []))["reminder"] is not None
    assert state == before
    plot_state, _ = process(plot_state, "我们再等等。")
    assert plot_state["no_update_count"] == 4
    assert prepare({**state, "plot_state": plot_state},
                   search=RecordingSearch([], []))["reminder"] is not None
    plot_state, report = process(plot_state, "就是现在。[PROGRESS:3:completed]")
    assert plot_state["no_update_count"] == 0 and report["counted_as_miss"] is False
    assert prepare({**state, "plot_state": plot_state})["reminder"] is None


def test_seed_turns_42_to_46_walk_through():
    state = seed_state(count=2)
    assert prepare(state)["reminder"] is None  # turn 42, step 3
    plot_state, report = process(state["plot_state"], SEED_REPLY_42)
    assert report["marker"] == "[PROGRESS:3:in_progress]"
    assert plot_state == {"current_plot_index": 3, "current_status": "in_progress",
                          "no_update_count": 0}
    for turn, expected in [(43, 1), (44, 2), (45, 3)]:
        state = {**state, "plot_state": plot_state}
        assert prepare(state)["reminder"] is None, turn
        plot_state, report = process(plot_state, "（沉默）")
        assert plot_state["no_update_count"] == expected, turn
    search = RecordingSearch(["事件1：Alserqi发现Victor的藏身地", "事件2：Alserqi和玩家潜入敌人据点"],
                             ["参考1：在其他剧情线中，对峙时Victor试图解释背叛原因"])
    context = prepare({**state, "plot_state": plot_state}, search=search)  # turn 46
    assert context["reminder"]["text"] == "你现在应该推进到故事大纲第3点：与仇人对峙"
    assert context["reminder"]["current_events"][0] == "事件1：Alserqi发现Victor的藏身地"
    assert search.queries == ["故事大纲第3点：与仇人对峙"]


def test_reminder_survives_a_missing_or_broken_search():
    state = seed_state(count=5)
    reminder = prepare(state, search=None)["reminder"]
    assert reminder["text"] == "你现在应该推进到故事大纲第3点：与仇人对峙"
    assert reminder["current_events"] == [] and "search_error" in reminder

    def broken(query):
        raise ConnectionError("chroma is down")

    reminder = prepare(state, search=broken)["reminder"]
    assert reminder["current_events"] == [] and reminder["reference_events"] == []
    assert "chroma is down" in reminder["search_error"]


def test_threshold_argument_wins_over_module_settings():
    assert prepare(seed_state(count=2), threshold=2, search=RecordingSearch([], []))["reminder"]
    context = director_prepare_context(settings={"enabled": True, "rag_fallback_threshold": 2},
                                       instance_state=seed_state(count=2), background=BACKGROUND,
                                       search=RecordingSearch([], []))
    assert context["threshold"] == 2 and context["reminder"] is not None


def test_disabled_director_prepares_nothing_and_changes_nothing():
    off = {"enabled": False, "rag_fallback_threshold": 3}
    assert prepare(seed_state(count=9), settings=off) is None
    plot_state = seed_state()["plot_state"]
    new_state, report = process(plot_state, "[PROGRESS:4:in_progress]", settings=off)
    assert new_state == plot_state and report == {"enabled": False}


def test_no_background_means_no_outline_no_instruction_no_reminder():
    context = prepare(seed_state(count=7), background=None)
    assert context["outline"] == [] and context["instruction"] is None
    assert context["reminder"] is None and context["current_point"] is None
    plot_state, report = process(seed_state(count=7)["plot_state"], "嗯。", outline_length=0)
    assert plot_state["no_update_count"] == 7 and report["no_outline"] is True


def test_index_beyond_a_shorter_outline_is_clamped_to_the_last_point():
    short = {"story_outline": [{"index": 1, "content": "相遇"}, {"index": 2, "content": "告别"}]}
    search = RecordingSearch([], [])
    context = prepare(seed_state(count=3, index=4, status="in_progress"), background=short,
                      search=search)
    assert context["clamped"] is True and context["current_index"] == 2
    assert [r["status"] for r in context["outline"]] == ["completed", "in_progress"]
    assert search.queries == ["故事大纲第2点：告别"]


def test_completed_on_the_last_point_finishes_the_outline():
    plot_state, report = process(seed_state()["plot_state"], "一切都结束了。[PROGRESS:5:completed]")
    assert plot_state["finished"] is True and report["finished"] is True
    context = prepare(seed_state(count=5, index=5, status="completed"),
                      search=RecordingSearch([], []))
    assert context["finished"] is True and context["reminder"] is None
    not_last, _ = process(seed_state()["plot_state"], "[PROGRESS:4:completed]")
    assert "finished" not in not_last


def test_no_miss_counts_once_the_outline_is_finished():
    finished, _ = process(seed_state()["plot_state"], "一切都结束了。[PROGRESS:5:completed]")
    for _ in range(4):  # the counter climbed to 68 under "the outline is finished"
        finished, report = process(finished, "他们在营火旁坐了很久。")
        assert report["counted_as_miss"] is False
    assert finished["no_update_count"] == 0 and finished["finished"] is True
    reopened, report = process(finished, "[PROGRESS:4:in_progress]")
    assert "finished" not in reopened
    reopened, report = process(reopened, "他们继续赶路。")
    assert report["counted_as_miss"] is True and reopened["no_update_count"] == 1


@pytest.mark.parametrize("flags,reason", [
    ({"content": "(系统错误: timeout)", "error": True}, "error reply"),
    ({"content": "(无回复)", "empty": True}, "empty reply"),
    ({"content": "   "}, "empty reply"),
    ({"content": "我当然记得。[PROGRESS:4:in_progress]", "interrupted": True}, "interrupted reply"),
    ({"content": "我当然记得。（沉默片刻）我答应过你，不会", "interrupted": True}, "interrupted reply"),
])
def test_error_empty_and_interrupted_replies_count_as_miss(flags, reason):
    plot_state = seed_state(count=1)["plot_state"]
    new_state, report = director_process_response(settings=ON, plot_state=plot_state,
                                                  reply=flags, outline_length=5)
    assert new_state["no_update_count"] == 2 and new_state["current_plot_index"] == 3
    assert report["counted_as_miss"] is True and report["miss_reason"] == reason


def test_malformed_markers_count_as_miss_and_are_reported():
    plot_state, report = process(seed_state(count=0)["plot_state"],
                                 "[PROGRESS:0:done][PROGRESS:99:completed][progress:2:completed]")
    assert plot_state["no_update_count"] == 1 and report["marker"] is None
    assert [r["raw"] for r in report["rejected"]] == [
        "[PROGRESS:0:done]", "[PROGRESS:99:completed]", "[progress:2:completed]"]


# --- services on files -------------------------------------------------------


def test_apply_reply_resets_the_counter_in_the_file(store):
    report = director_apply_reply(store, instance_id="inst_001",
                                  reply={"role": "assistant", "content": SEED_REPLY_42, "turn": 42})
    assert report["marker"] == "[PROGRESS:3:in_progress]"
    assert store.instance_state_read("inst_001") == seed_state(count=0)


def test_apply_reply_counts_a_miss_in_the_file_and_keeps_other_fields(store):
    director_apply_reply(store, instance_id="inst_001", reply={"content": "等等。", "turn": 43})
    state = store.instance_state_read("inst_001")
    assert state["plot_state"]["no_update_count"] == 3
    assert state["current_session_id"] == "sess_003" and state["character_id"] == "char_alserqi"


def test_apply_reply_with_director_off_leaves_the_file_untouched(store):
    director_settings_write(store, {"enabled": False})
    path = store.instance_dir("inst_001") / "instance_state.json"
    before = path.read_bytes()
    assert director_apply_reply(store, instance_id="inst_001",
                                reply={"content": "[PROGRESS:4:completed]"}) == {"enabled": False}
    assert path.read_bytes() == before


def test_switch_background_keeps_plot_state_and_reports_clamping(store):
    result = instance_switch_background(store, instance_id="inst_001", background_id="bg_short")
    assert result == {"background_id": "bg_short", "previous_background_id": "bg_wasteland",
                      "clamped": True, "outline_length": 2, "current_plot_index": 3}
    state = store.instance_state_read("inst_001")
    assert state["background_id"] == "bg_short"
    assert state["plot_state"] == seed_state()["plot_state"]
    status = director_status(store, instance_id="inst_001")
    assert status["clamped"] is True and status["current_point"]["content"] == "告别"


def test_switch_background_says_which_points_were_carried_over(store):
    instance_switch_background(store, instance_id="inst_001", background_id="bg_short")
    status = director_status(store, instance_id="inst_001")
    assert [row["carried_over"] for row in status["outline"]] == [True, True]
    assert status["carried_over_from"] == "bg_wasteland"
    assert status["carried_over_from_name"] == "废土复仇记"
    director_apply_reply(store, instance_id="inst_001",
                         reply={"content": "告别的时候到了。[PROGRESS:2:completed]"})
    status = director_status(store, instance_id="inst_001")
    assert [row["carried_over"] for row in status["outline"]] == [True, False]
    instance_switch_background(store, instance_id="inst_001", background_id="bg_wasteland")
    status = director_status(store, instance_id="inst_001")
    assert [row["index"] for row in status["outline"] if row["carried_over"]] == [1, 2]
    assert status["carried_over_from"] == "bg_short"


def test_switch_background_to_none_and_back(store):
    result = instance_switch_background(store, instance_id="inst_001", background_id=None)
    assert result["outline_length"] == 0 and result["clamped"] is False
    assert director_status(store, instance_id="inst_001")["outline"] == []
    result = instance_switch_background(store, instance_id="inst_001", background_id="bg_wasteland")
    assert result["clamped"] is False and result["outline_length"] == 5


def test_switch_background_refuses_unknown_or_malformed_ids(store):
    with pytest.raises(MissingFile):
        instance_switch_background(store, instance_id="inst_001", background_id="bg_nowhere")
    with pytest.raises(InvalidId):
        instance_switch_background(store, instance_id="inst_001", background_id="../etc")
    assert store.instance_state_read("inst_001")["background_id"] == "bg_wasteland"


def test_settings_write_validates_field_by_field_and_writes_nothing_on_error(store):
    with pytest.raises(SettingsInvalid) as caught:
        director_settings_write(store, {"enabled": "yes", "rag_fallback_threshold": 11})
    assert caught.value.errors == {"enabled": "must be true or false",
                                   "rag_fallback_threshold": "must be between 1 and 10"}
    with pytest.raises(SettingsInvalid) as caught:
        director_settings_write(store, {"rag_fallback_threshold": True})
    assert caught.value.errors == {"rag_fallback_threshold": "must be a whole number"}
    assert not store.module_path("director").exists()
    assert not store.config_path.exists()


def test_settings_write_keeps_config_threshold_in_step(store):
    saved = director_settings_write(store, {"rag_fallback_threshold": 5})
    assert saved == {"enabled": True, "rag_fallback_threshold": 5}
    assert director_settings_read(store) == saved
    config = json.loads(store.config_path.read_text(encoding="utf-8"))
    assert config["thresholds"]["rag_fallback_threshold"] == 5
    assert config["limits"]["max_total_tokens"] == 100000


def test_status_uses_config_threshold_and_announces_the_next_reminder(store):
    status = director_status(store, instance_id="inst_001")
    assert (status["no_update_count"], status["threshold"]) == (2, 3)
    assert status["reminder_next_turn"] is False and status["enabled"] is True
    config = store.config_read()
    config["thresholds"]["rag_fallback_threshold"] = 2
    store.config_write(config)
    status = director_status(store, instance_id="inst_001")
    assert status["threshold"] == 2 and status["reminder_next_turn"] is True
    assert [r["status"] for r in status["outline"]] == [
        "completed", "completed", "in_progress", "pending", "pending"]
    director_settings_write(store, {"enabled": False})
    assert director_status(store, instance_id="inst_001")["reminder_next_turn"] is False


def test_the_directors_words_fill_an_outline_point_as_written():
    """Words given in another language name the point; a point's own text holding "{index}"
    or "{point}" stays as written."""
    words = DirectorWords(instruction="Mark progress.", goal="Goal: {point}",
                          reminder="Move on to {point}", point="point {index}: {content}")
    background = {"story_outline": ["Find {point} and {index}", "Leave"]}
    context = director_prepare_context(
        settings={"enabled": True, "rag_fallback_threshold": 1}, background=background,
        instance_state={"plot_state": {"current_plot_index": 1, "no_update_count": 1}},
        search=None, words=words)
    assert context["instruction"] == "Mark progress.\nGoal: point 1: Find {point} and {index}"
    assert context["reminder"]["text"] == "Move on to point 1: Find {point} and {index}"
    assert context["reminder"]["query"] == "point 1: Find {point} and {index}"
