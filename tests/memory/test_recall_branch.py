"""A branch is a timeline of its own: recall never brings back what the source session said
after the branch point (the future the branch turned away from), nor the source's copies of
the lines the branch holds itself."""

from __future__ import annotations

import pytest

from chat.history_manager import edits as history
from tests.chat.history_files import history_row
from tests.memory.memory_turns import scripted_turn_run, trace_hits_json, window_newest_keep

pytestmark = pytest.mark.django_db(transaction=True)

BIKE = "我的自行车是亮红色的，带一条白色条纹。"
QUESTION = "你还记得我的自行车是什么颜色吗？"


def test_a_branch_does_not_recall_the_future_it_turned_away_from(store, instance, memory_on,
                                                                 use_stub):
    window_newest_keep(store, 1)
    scripted_turn_run(store, instance, "我们从灯塔出发吧。", stub=use_stub)
    scripted_turn_run(store, instance, BIKE, stub=use_stub)
    scripted_turn_run(store, instance, "天气不错，风很大。", stub=use_stub)
    answer = scripted_turn_run(store, instance, QUESTION, stub=use_stub)
    assert BIKE in trace_hits_json(store, instance, answer)

    row = history_row(store, instance, "我们从灯塔出发吧。")
    history.session_branch(store, instance_id=instance, session_id="sess_001",
                           index=row["index"], fingerprint=row["fingerprint"])
    scripted_turn_run(store, instance, "我们换条路走。", stub=use_stub)
    scripted_turn_run(store, instance, "前面有一座桥。", stub=use_stub)

    answer = scripted_turn_run(store, instance, QUESTION, stub=use_stub)
    recalled = trace_hits_json(store, instance, answer)
    assert BIKE not in recalled


def test_the_directors_fallback_search_in_a_branch_skips_the_abandoned_future(
        store, instance, memory_on, use_stub):
    window_newest_keep(store, 1)
    scripted_turn_run(store, instance, "我们从灯塔出发吧。", stub=use_stub)
    scripted_turn_run(store, instance, "我找到了背叛者的线索：一封烧焦的信。", stub=use_stub)
    scripted_turn_run(store, instance, "天气不错，风很大。", stub=use_stub)
    row = history_row(store, instance, "我们从灯塔出发吧。")
    history.session_branch(store, instance_id=instance, session_id="sess_001",
                           index=row["index"], fingerprint=row["fingerprint"])
    for text in ("我们换条路走。", "前面有一座桥。", "桥下有水声。", "我们继续走。"):
        scripted_turn_run(store, instance, text, stub=use_stub)
    turn = next(r for r in reversed(use_stub.requests)
                if r["messages"][-1]["content"].endswith("我们继续走。"))
    system = turn["messages"][0]["content"]
    assert "已发生的事件" in system  # the director's fallback search ran
    assert "烧焦的信" not in system
