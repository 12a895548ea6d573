"""A branch is a timeline of its own: recall never brings back what the source session said
after the branch point (the future the branch turned away from), nor the source's copies of
the lines the branch holds itself."""

from __future__ import annotations

import pytest

from chat import history
from tests.chat.test_history import _row
from tests.memory.test_group_witness import _recalled, _run, _window_newest

pytestmark = pytest.mark.django_db(transaction=True)

BIKE = "我的自行车是亮红色的，带一条白色条纹。"
QUESTION = "你还记得我的自行车是什么颜色吗？"


def test_a_branch_does_not_recall_the_future_it_turned_away_from(store, instance, memory_on,
                                                                 use_stub):
    _window_newest(store, 1)
    _run(store, instance, "我们从灯塔出发吧。", stub=use_stub)
    _run(store, instance, BIKE, stub=use_stub)
    _run(store, instance, "天气不错，风很大。", stub=use_stub)
    assert BIKE in _recalled(store, instance, _run(store, instance, QUESTION, stub=use_stub))

    row = _row(store, instance, "我们从灯塔出发吧。")
    history.session_branch(store, instance_id=instance, session_id="sess_001",
                           index=row["index"], fingerprint=row["fingerprint"])
    _run(store, instance, "我们换条路走。", stub=use_stub)
    _run(store, instance, "前面有一座桥。", stub=use_stub)

    recalled = _recalled(store, instance, _run(store, instance, QUESTION, stub=use_stub))
    assert BIKE not in recalled
