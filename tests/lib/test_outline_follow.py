"""A chat's story step follows its point's text through an outline edit; a point whose text is
gone keeps its position (the caller tells the author)."""

from __future__ import annotations

from personalab.lib.outline_follow import (
    outline_index_followed,
    plot_state_followed,
    points_passed_unplayed,
)

OLD = ["a", "b", "c", "d"]


def test_inserted_deleted_and_moved_points_above_are_followed():
    assert outline_index_followed(OLD, ["new", *OLD], 3) == 4
    assert outline_index_followed(OLD, ["b", "c", "d"], 3) == 2
    assert outline_index_followed(OLD, ["c", "a", "b", "d"], 3) == 1


def test_an_edited_or_deleted_point_is_not_found():
    assert outline_index_followed(OLD, ["a", "b", "C!", "d"], 3) is None
    assert outline_index_followed(OLD, ["a", "b", "d"], 3) is None


def test_repeated_texts_keep_their_rank():
    old = ["fight", "rest", "fight", "end"]
    assert outline_index_followed(old, ["intro", *old], 3) == 4
    assert outline_index_followed(old, ["rest", "fight", "end"], 3) == 2  # fewer: the last


def test_the_plot_state_and_carried_points_move_an_index_past_the_outline_stays():
    state = {"plot_state": {"current_plot_index": 3, "current_status": "completed",
                            "no_update_count": 1},
             "carried_over": {"from_background_id": "bg_x", "points": [1, 2, 3]}}
    moved, found = plot_state_followed(state, OLD, ["b", "x", "a", "c", "d"])
    assert found and moved["plot_state"] == {"current_plot_index": 4,
                                             "current_status": "completed",
                                             "no_update_count": 1}
    assert moved["carried_over"]["points"] == [1, 3, 4]
    assert state["plot_state"]["current_plot_index"] == 3  # the caller's copy is untouched
    past = {"plot_state": {"current_plot_index": 9}}
    assert plot_state_followed(past, OLD, ["new", *OLD]) == (past, True)


def test_a_point_added_or_moved_above_the_chats_point_is_one_it_passed_without_playing():
    before = ["a", "b", "c", "d"]
    assert points_passed_unplayed(before, ["a", "new", "b", "c", "d"], 2, 3) == [2]
    assert points_passed_unplayed(before, ["a", "c", "b", "d"], 2, 3) == [2]  # c moved up
    assert points_passed_unplayed(before, ["a", "c", "b", "d"], 3, 2) == []  # the chat's own
    assert points_passed_unplayed(before, ["a", "B!", "c", "d"], 3, 3) == []  # an edit
    assert points_passed_unplayed(before, ["a", "b", "c", "d", "new"], 2, 2) == []  # below
