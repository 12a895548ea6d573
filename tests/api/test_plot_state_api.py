"""PUT /api/v1/instances/{id}/plot_state: the author skips to, goes back to or finishes a point
of the chat's outline by hand; wrong values are refused by name and write nothing."""

from __future__ import annotations

import json

import pytest

from chat.models import ApiToken


@pytest.fixture
def put(client, alice):
    token = ApiToken.issue(alice)

    def call(instance_id, body, user_token=None):
        return client.put(f"/api/v1/instances/{instance_id}/plot_state", json.dumps(body),
                          content_type="application/json",
                          HTTP_AUTHORIZATION=f"Bearer {user_token or token}")
    return call


def _statuses(director: dict) -> list[str]:
    return [row["status"] for row in director["outline"]]


def test_skipping_to_a_point_marks_the_earlier_ones_done_and_restarts_the_count(
        put, instance, store):
    state = store.instance_state_read(instance)
    store.instance_state_write(instance, {**state, "plot_state": {
        "current_plot_index": 1, "current_status": "in_progress", "no_update_count": 2}})
    answer = put(instance, {"current_plot_index": 3})
    assert answer.status_code == 200, answer.content
    assert _statuses(answer.json()) == ["completed", "completed", "in_progress", "pending",
                                        "pending"]
    assert answer.json()["target_point"]["index"] == 3
    assert store.instance_state_read(instance)["plot_state"] == {
        "current_plot_index": 3, "current_status": "in_progress", "no_update_count": 0}


def test_going_back_and_finishing_a_point_by_hand(put, instance, store):
    put(instance, {"current_plot_index": 4, "current_status": "completed"})
    back = put(instance, {"current_plot_index": 2, "current_status": "pending"})
    assert _statuses(back.json()) == ["completed", "pending", "pending", "pending", "pending"]
    done = put(instance, {"current_plot_index": 5, "current_status": "completed"})
    assert done.json()["finished"] is True


@pytest.mark.parametrize("body,field", [
    ({"current_plot_index": 0}, "current_plot_index"),
    ({"current_plot_index": 6}, "current_plot_index"),
    ({"current_plot_index": "3"}, "current_plot_index"),
    ({"current_plot_index": True}, "current_plot_index"),
    ({}, "current_plot_index"),
    ({"current_plot_index": 2, "current_status": "done"}, "current_status"),
])
def test_a_wrong_point_or_status_is_refused_by_name_and_writes_nothing(
        put, instance, store, body, field):
    before = store.instance_state_read(instance)
    answer = put(instance, body)
    assert answer.status_code == 400
    assert field in answer.json()["error"]["fields"]
    assert store.instance_state_read(instance) == before


def test_another_accounts_chat_is_404_and_unchanged(put, instance, store, bob):
    before = store.instance_state_read(instance)
    answer = put(instance, {"current_plot_index": 3}, user_token=ApiToken.issue(bob))
    assert answer.status_code == 404
    assert store.instance_state_read(instance) == before


def test_a_chat_without_an_outline_says_so(put, instance, store):
    state = store.instance_state_read(instance)
    store.instance_state_write(instance, {**state, "background_id": None})
    answer = put(instance, {"current_plot_index": 1})
    assert answer.status_code == 400
    assert "no outline" in answer.json()["error"]["message"]
