"""PUT /api/v1/instances/{id}/plot_hold: the chat's owner holds the story at its current
outline point ("hold this beat") or lets it move on; the chat page's outline shows the control."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from chat.models import ApiToken


@pytest.fixture
def put(client, alice):
    token = ApiToken.issue(alice)

    def call(instance_id, body, user_token=None, **headers):
        return client.put(f"/api/v1/instances/{instance_id}/plot_hold", json.dumps(body),
                          content_type="application/json",
                          HTTP_AUTHORIZATION=f"Bearer {user_token or token}", **headers)
    return call


def test_holding_is_written_to_the_file_answered_and_released(put, instance, store, api):
    answer = put(instance, {"held": True})
    assert answer.status_code == 200, answer.content
    assert answer.json()["held"] is True and answer.json()["reminder_next_turn"] is False
    assert store.instance_state_read(instance)["plot_hold"] is True
    assert api("get", f"/api/v1/instances/{instance}").json()["director"]["held"] is True
    assert put(instance, {"held": False}).json()["held"] is False
    assert store.instance_state_read(instance)["plot_hold"] is False


def test_moving_the_story_by_hand_keeps_the_hold(put, instance, store, api):
    put(instance, {"held": True})
    moved = api("put", f"/api/v1/instances/{instance}/plot_state", {"current_plot_index": 4})
    assert moved.json()["held"] is True and moved.json()["target_point"]["index"] == 4


@pytest.mark.parametrize("body", [{}, {"held": "true"}, {"held": 1}, {"held": None}])
def test_a_hold_that_is_not_true_or_false_is_refused_by_name(put, instance, store, body):
    before = store.instance_state_read(instance)
    answer = put(instance, body)
    assert answer.status_code == 400
    assert "held" in answer.json()["error"]["fields"]
    assert store.instance_state_read(instance) == before


def test_only_the_owner_may_hold_and_staff_is_told_so_in_chinese(put, instance, store, bob,
                                                                  staff):
    before = store.instance_state_read(instance)
    assert put(instance, {"held": True}, user_token=ApiToken.issue(bob)).status_code == 404
    answer = put(instance, {"held": True}, user_token=ApiToken.issue(staff),
                 HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert answer.status_code == 403
    assert answer.json()["error"]["message"] == "只有对话的主人才能让剧情停在这一幕或继续推进"
    assert store.instance_state_read(instance) == before


def test_the_route_is_in_the_openapi_schema(client):
    schema = client.get("/api/v1/openapi.json").json()
    route = schema["paths"]["/api/v1/instances/{instance_id}/plot_hold"]["put"]
    assert "Hold this beat" in route["description"]


def test_the_outline_shows_the_control_pressed_while_held(client, alice, put, instance):
    client.force_login(alice)
    address = reverse("instance_outline", args=[instance])
    assert 'data-testid="plot-hold" aria-pressed="false"' in client.get(address).content.decode()
    put(instance, {"held": True})
    page = client.get(address).content.decode()
    assert 'data-testid="plot-hold" aria-pressed="true"' in page
    assert 'data-testid="plot-held-note"' in page


def test_the_phone_s_story_button_shows_the_held_beat_in_words(client, alice, put, instance):
    client.force_login(alice)
    address = reverse("instance", args=[instance])
    assert 'data-testid="story-held" hidden>' in client.get(address).content.decode()
    put(instance, {"held": True})
    page = client.get(address, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert ('data-testid="story-held" title="这一幕已停住：在你放开之前，剧情停在第 1 点。">'
            '<span aria-hidden="true">⚓</span><span class="visually-hidden">这一幕停住了</span>'
            ) in page
    assert 'data-held-note="这一幕已停住：在你放开之前，剧情停在第 1 点。"' in page


def test_a_held_point_that_is_done_is_not_called_the_next_goal(client, alice, put, instance,
                                                               store):
    """Held, the story stays on the current point even when it is done: the label "next goal"
    on it read as if the story were going back there; the held note says where it stays."""
    state = store.instance_state_read(instance)
    store.instance_state_write(instance, {**state, "plot_state": {
        "current_plot_index": 2, "current_status": "completed", "no_update_count": 0}})
    client.force_login(alice)
    address = reverse("instance_outline", args=[instance])
    assert client.get(address).content.decode().count("next goal") == 1
    put(instance, {"held": True})
    page = client.get(address).content.decode()
    assert "next goal" not in page and 'data-testid="plot-held-note"' in page
