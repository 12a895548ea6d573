"""A server killed between a session switch in the files and its database row (kill -9 while a
summarize embedded its events) left the API naming the old session until a manual `reindex`;
the next server start puts each such row right (chat/services/index.py, personalab/asgi.py)."""

from __future__ import annotations

import pytest

from chat.models import Instance, Session
from chat.services.index import instances_index_catch_up, trace_held_point

pytestmark = pytest.mark.django_db


def test_a_row_behind_its_files_is_caught_up_and_a_row_in_step_is_left(store, instance):
    store.session_create(instance, "sess_002", continued_from="sess_001")
    state = store.instance_state_read(instance)
    store.instance_state_write(instance, {**state, "current_session_id": "sess_002"})
    assert Instance.objects.get(instance_id=instance).current_session_id == "sess_001"

    assert instance in instances_index_catch_up(store)
    assert Instance.objects.get(instance_id=instance).current_session_id == "sess_002"
    assert Session.objects.filter(instance_id=instance, session_id="sess_002").exists()
    assert instances_index_catch_up(store) == []


@pytest.mark.parametrize(("report", "point"), [
    ({"held_marker": {"raw": "[PROGRESS:5:in_progress]", "index": 5, "kept_at": 4}}, 5),
    ({"marker": "[PROGRESS:5:in_progress]", "index": 5}, None),
    ({"held_marker": {"index": True}}, None), (None, None), ("broken", None)])
def test_a_trace_row_keeps_the_point_of_a_marker_the_held_beat_did_not_take(report, point):
    assert trace_held_point({"director_result": report}) == point
