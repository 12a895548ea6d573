""""Hold this beat": while the player holds the story at its current outline point, markers
for later points are not applied, no reminder pushes on, and the prompt's guidance says to stay;
the hold lives beside plot_state in the instance's file."""

from __future__ import annotations

import pytest

from director.logic import (
    SEED_WORDS,
    DirectorWords,
    director_overview,
    director_prepare_context,
    director_process_response,
    plot_held,
)
from director.services import (
    director_apply_reply,
    director_hold_set,
    director_plot_set,
    director_status,
)
from personalab.lib.errors import Invalid
from personalab.lib.filestore.store import FileStore

OUTLINE = ["发现背叛者的线索", "潜入敌人据点", "与仇人对峙", "做出关键选择", "应对选择的后果"]
BACKGROUND = {"name": "废土复仇记", "world_setting": "",
              "story_outline": [{"content": c} for c in OUTLINE]}
ON = {"enabled": True, "rag_fallback_threshold": 3}
WORDS = DirectorWords(instruction="If the story moves on, mark it", goal="Current goal: {point}",
                      reminder="Move on to {point}", point="point {index}: {content}",
                      hold="Stay in the current beat: {point}")


def state(*, held=None, count=0, index=2, status="in_progress") -> dict:
    found = {"instance_id": "inst_001", "background_id": "bg_wasteland",
             "current_session_id": "sess_001",
             "plot_state": {"current_plot_index": index, "current_status": status,
                            "no_update_count": count}}
    if held is not None:
        found["plot_hold"] = held
    return found


def process(plot_state: dict, content: str, *, held: bool):
    return director_process_response(settings=ON, plot_state=plot_state,
                                     reply={"content": content}, outline_length=5, held=held)


@pytest.fixture
def store(tmp_path) -> FileStore:
    store = FileStore(tmp_path)
    store.background_write("bg_wasteland", BACKGROUND)
    store.instance_state_write("inst_001", state())
    return store


@pytest.mark.parametrize("value,held", [(True, True), (False, False), (None, False),
                                        ("true", False), (1, False)])
def test_only_a_true_hold_holds_and_an_old_state_file_is_not_held(value, held):
    assert plot_held(state(held=value)) is held


def test_a_held_marker_for_a_later_point_is_not_applied_and_is_reported_as_held():
    before = state()["plot_state"]
    after, report = process(before, "好。[PROGRESS:3:in_progress]", held=True)
    assert after["current_plot_index"] == 2 and after["current_status"] == "in_progress"
    assert report["held"] is True and report["marker"] is None
    assert report["held_marker"] == {"raw": "[PROGRESS:3:in_progress]", "index": 3,
                                     "status": "in_progress", "kept_at": 2}
    assert report["counted_as_miss"] is False


def test_without_the_hold_the_same_marker_moves_the_story():
    after, report = process(state()["plot_state"], "好。[PROGRESS:3:in_progress]", held=False)
    assert after["current_plot_index"] == 3 and "held_marker" not in report


def test_a_held_beat_still_takes_a_marker_for_its_own_point_or_an_earlier_one():
    after, _ = process(state()["plot_state"], "[PROGRESS:2:completed]", held=True)
    assert (after["current_plot_index"], after["current_status"]) == (2, "completed")
    back, _ = process(state()["plot_state"], "[PROGRESS:1:in_progress]", held=True)
    assert back["current_plot_index"] == 1


def test_turns_without_a_marker_do_not_count_while_held():
    after, report = process(state(count=2)["plot_state"], "就这样坐着。", held=True)
    assert after["no_update_count"] == 2 and report["counted_as_miss"] is False


def test_a_held_beat_gets_no_reminder_and_its_guidance_says_to_stay():
    def search(query):
        raise AssertionError("no reminder, no search")
    context = director_prepare_context(settings=ON, threshold=3,
                                       instance_state=state(held=True, count=5),
                                       background=BACKGROUND, search=search, words=WORDS)
    assert context["reminder"] is None and context["held"] is True
    assert context["instruction"] == ("If the story moves on, mark it\n"
                                      "Stay in the current beat: point 2: 潜入敌人据点")
    free = director_prepare_context(settings=ON, threshold=3, instance_state=state(count=5),
                                    background=BACKGROUND, search=None, words=WORDS)
    assert free["reminder"] is not None and "Current goal" in free["instruction"]


def test_a_held_completed_point_stays_the_target_instead_of_the_next_one():
    overview = director_overview(settings=ON, threshold=3,
                                 instance_state=state(held=True, status="completed"),
                                 background=BACKGROUND)
    assert overview["target_point"]["index"] == 2
    assert SEED_WORDS.hold.split("{point}")[0] in overview["instruction"]
    assert not overview["reminder_due"]


def test_the_hold_is_kept_in_the_state_file_and_read_by_the_turn(store):
    director_hold_set(store, instance_id="inst_001", held=True)
    assert store.instance_state_read("inst_001")["plot_hold"] is True
    report = director_apply_reply(store, instance_id="inst_001",
                                  reply={"content": "[PROGRESS:4:in_progress]"})
    assert report["held_marker"]["index"] == 4
    assert store.instance_state_read("inst_001")["plot_state"]["current_plot_index"] == 2
    assert director_status(store, instance_id="inst_001")["held"] is True
    director_hold_set(store, instance_id="inst_001", held=False)
    director_apply_reply(store, instance_id="inst_001",
                         reply={"content": "[PROGRESS:4:in_progress]"})
    assert store.instance_state_read("inst_001")["plot_state"]["current_plot_index"] == 4


def test_setting_a_point_by_hand_moves_the_story_and_keeps_the_hold(store):
    director_hold_set(store, instance_id="inst_001", held=True)
    director_plot_set(store, instance_id="inst_001", index=4, status="in_progress")
    found = store.instance_state_read("inst_001")
    assert found["plot_hold"] is True and found["plot_state"]["current_plot_index"] == 4


def test_a_hold_that_is_not_true_or_false_is_refused_by_name(store):
    with pytest.raises(Invalid) as refused:
        director_hold_set(store, instance_id="inst_001", held="yes")
    assert list(refused.value.fields) == ["held"]
    assert "plot_hold" not in store.instance_state_read("inst_001")
