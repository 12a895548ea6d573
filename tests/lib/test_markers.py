from __future__ import annotations

import pytest

from personalab.lib.markers import find_progress_marker

SEED_REPLY = (
    "我当然记得。（沉默片刻）我答应过你，不会冲动送死。但Victor必须付出代价，"
    "这是我活下去的唯一理由。我会等，等到最安全的时机。[PROGRESS:3:in_progress]"
)


def test_seed_reply_marker_is_found():
    result = find_progress_marker(SEED_REPLY, 5)
    assert (result.index, result.status) == (3, "in_progress")
    assert result.raw == "[PROGRESS:3:in_progress]"
    assert result.rejected == []


@pytest.mark.parametrize("status", ["completed", "in_progress", "pending"])
def test_every_seed_status_is_accepted(status):
    result = find_progress_marker(f"好。[PROGRESS:2:{status}]", 5)
    assert (result.index, result.status) == (2, status)


def test_text_without_marker_finds_nothing():
    result = find_progress_marker("等他们分散。Victor不可能一直和他们在一起。", 5)
    assert result.raw is None and result.index is None and result.status is None
    assert result.rejected == []


def test_unknown_status_and_index_zero_are_rejected_with_both_reasons():
    result = find_progress_marker("[PROGRESS:0:done]", 5)
    assert result.raw is None
    [rejected] = result.rejected
    assert rejected["raw"] == "[PROGRESS:0:done]"
    assert "unknown status 'done'" in rejected["reason"]
    assert "index 0 is outside the outline (valid: 1..5)" in rejected["reason"]


def test_index_beyond_the_outline_is_rejected():
    result = find_progress_marker("[PROGRESS:99:completed]", 5)
    assert result.raw is None
    assert result.rejected[0]["reason"] == "index 99 is outside the outline (valid: 1..5)"


def test_lowercase_marker_is_rejected_as_wrong_case():
    result = find_progress_marker("好的[progress:2:completed]", 5)
    assert result.raw is None
    assert result.rejected[0]["raw"] == "[progress:2:completed]"
    assert result.rejected[0]["reason"].startswith("wrong case")


def test_status_in_capitals_is_rejected_as_wrong_case():
    result = find_progress_marker("[PROGRESS:2:COMPLETED]", 5)
    assert result.raw is None
    assert result.rejected[0]["reason"].startswith("wrong case in status")


@pytest.mark.parametrize("text", ["［PROGRESS:2:completed］", "[PROGRESS：2：completed]",
                                  "【PROGRESS:2:completed】"])
def test_full_width_look_alikes_are_rejected_not_accepted(text):
    result = find_progress_marker(text, 5)
    assert result.raw is None
    assert result.rejected[0]["reason"].startswith("full-width")


@pytest.mark.parametrize("text,reason", [
    ("[PROGRESS: 2:completed]", "spaces inside the marker"),
    ("[PROGRESS:2]", "expected three parts: [PROGRESS:X:status]"),
    ("[PROGRESS:two:completed]", "index 'two' is not a number"),
    ("[PROGRESS:２:completed]", "index '２' is not a number"),
])
def test_near_misses_are_rejected_with_a_reason(text, reason):
    result = find_progress_marker(text, 5)
    assert result.raw is None
    assert result.rejected[0]["reason"] == reason


def test_first_valid_marker_wins_and_later_ones_are_reported():
    text = "[PROGRESS:99:completed] 然后 [PROGRESS:3:completed] 再 [PROGRESS:4:in_progress]"
    result = find_progress_marker(text, 5)
    assert (result.index, result.status, result.raw) == (3, "completed", "[PROGRESS:3:completed]")
    reasons = [(r["raw"], r["reason"]) for r in result.rejected]
    assert reasons == [
        ("[PROGRESS:99:completed]", "index 99 is outside the outline (valid: 1..5)"),
        ("[PROGRESS:4:in_progress]", "ignored: an earlier valid marker wins"),
    ]
    assert result.rejected[0]["position"] == 0


def test_any_marker_is_out_of_range_when_the_outline_is_empty():
    result = find_progress_marker("[PROGRESS:1:completed]", 0)
    assert result.raw is None
    assert "outline is empty" in result.rejected[0]["reason"]


def test_last_point_is_in_range():
    assert find_progress_marker("[PROGRESS:10:completed]", 10).index == 10
    assert find_progress_marker("[PROGRESS:11:completed]", 10).index is None
