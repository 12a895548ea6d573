"""PUT /api/v1/backgrounds/{id} with a changed story_outline: every chat playing the background
stays on the point it was at (followed by its text), a chat whose point was edited or deleted
keeps its position and is named in `outline_chats`, a chat busy in a turn follows as the turn
ends; the outline needs the `seen` that covers it."""

from __future__ import annotations

import pytest

from chat.services.instances import instance_create

POINTS = ["发现背叛者的线索", "潜入敌人据点", "与仇人对峙", "做出关键选择", "应对选择的后果"]


def _at(api, instance, index, status="in_progress"):
    answer = api("put", f"/api/v1/instances/{instance}/plot_state",
                 {"current_plot_index": index, "current_status": status})
    assert answer.status_code == 200, answer.content


def _outline_put(api, background, points):
    url = f"/api/v1/backgrounds/{background}"
    return api("put", url, {"story_outline": points, "seen": api("get", url).json()["seen"]})


def _current(api, instance) -> tuple[int, str]:
    director = api("get", f"/api/v1/instances/{instance}").json()["director"]
    return director["current_index"], director["current_point"]["content"]


def test_points_inserted_and_moved_above_keep_the_chat_on_its_point(api, instance, background):
    _at(api, instance, 3)
    answer = _outline_put(api, background, ["序章", POINTS[1], POINTS[0], *POINTS[2:]])
    assert answer.status_code == 200, answer.content
    assert _current(api, instance) == (4, "与仇人对峙")
    assert answer.json()["outline_chats"]["moved"] == {"instance_ids": [instance], "count": 1}
    answer = _outline_put(api, background, POINTS[2:])  # the points above it deleted
    assert _current(api, instance) == (1, "与仇人对峙")
    assert answer.json()["outline_chats"]["kept_position"]["count"] == 0


def test_the_current_point_edited_or_deleted_keeps_its_position_and_is_named(
        api, instance, background):
    _at(api, instance, 3, "completed")
    answer = _outline_put(api, background, [*POINTS[:2], "与仇人在桥上对峙", *POINTS[3:]])
    assert answer.json()["outline_chats"]["kept_position"] == {"instance_ids": [instance],
                                                               "count": 1}
    assert _current(api, instance) == (3, "与仇人在桥上对峙")
    answer = _outline_put(api, background, [POINTS[0], POINTS[3], POINTS[4]])
    assert answer.json()["outline_chats"]["kept_position"]["instance_ids"] == [instance]
    assert _current(api, instance) == (3, "应对选择的后果")


def test_a_chat_busy_in_a_turn_follows_the_edit_as_its_turn_ends(api, store, instance,
                                                                 background):
    _at(api, instance, 2)
    turn = store.instance_lock(instance).acquire()
    try:
        answer = _outline_put(api, background, ["序章", *POINTS])
        assert answer.json()["outline_chats"]["busy"]["instance_ids"] == [instance]
        # the turn, played on the outline it read, moves the story to the old point 3
        state = store.instance_state_read(instance)
        store.instance_state_write(instance, {**state, "plot_state": {
            **state["plot_state"], "current_plot_index": 3}})
    finally:
        turn.release()
    assert _current(api, instance) == (4, "与仇人对峙")
    assert not (store.instance_dir(instance) / "outline_follow.json").exists()


def test_two_edits_while_busy_are_followed_from_the_first_outline(api, store, instance,
                                                                  background):
    _at(api, instance, 2)
    with store.instance_lock(instance):
        _outline_put(api, background, ["序章", *POINTS])
        _outline_put(api, background, ["前传", "序章", *POINTS])
    assert _current(api, instance) == (4, "潜入敌人据点")


def test_another_accounts_chat_follows_too_and_is_only_counted(api, store, bob, character,
                                                              background, instance):
    bobs = instance_create(store, owner=bob, character_id=character, background_id=background)
    _at(api, instance, 2)
    state = store.instance_state_read(bobs)
    store.instance_state_write(bobs, {**state, "plot_state": {
        "current_plot_index": 4, "current_status": "in_progress", "no_update_count": 0}})
    answer = _outline_put(api, background, ["序章", *POINTS])
    assert answer.json()["outline_chats"]["moved"] == {"instance_ids": [instance], "count": 2}
    assert store.instance_state_read(bobs)["plot_state"]["current_plot_index"] == 5


def test_a_put_without_the_outline_leaves_the_chats_and_says_nothing_of_them(
        api, store, instance, background):
    _at(api, instance, 3)
    url = f"/api/v1/backgrounds/{background}"
    answer = api("put", url, {"world_setting": "另一个世界。"})
    assert "outline_chats" not in answer.json()
    assert _current(api, instance) == (3, "与仇人对峙")


def test_an_outline_sent_with_the_pages_seen_is_refused(api, alice_client, store, background):
    import re

    from django.urls import reverse

    page = alice_client.get(reverse("background_edit", args=[background])).content.decode()
    page_seen = re.search(r'name="seen" value="([0-9a-f]+)"', page).group(1)
    url = f"/api/v1/backgrounds/{background}"
    refused = api("put", url, {"story_outline": ["只有一点"], "seen": page_seen})
    assert refused.status_code == 409, refused.content
    assert refused.json()["error"]["code"] == "changed"
    assert len(store.background_read(background)["story_outline"]) == 5
    kept = api("put", url, {"world_setting": "页面的 seen 仍可保存别的字段。", "seen": page_seen})
    assert kept.status_code == 200, kept.content


def test_an_outline_read_before_another_tabs_outline_edit_does_not_overwrite_it(
        api, alice_client, store, background):
    from django.urls import reverse

    url = f"/api/v1/backgrounds/{background}"
    first_read = api("get", url).json()
    alice_client.post(reverse("background_outline", args=[background]),
                      {"action": "add", "content": "另一个标签页加的点"})
    late = api("put", url, {"story_outline": [*POINTS, "旧的读法"], "seen": first_read["seen"]})
    assert late.status_code == 409, late.content
    outline = [p["content"] for p in store.background_read(background)["story_outline"]]
    assert outline[-1] == "另一个标签页加的点"


@pytest.mark.django_db(transaction=True)
def test_regenerate_or_delete_after_an_edit_go_back_to_the_followed_point(
        api, store, instance, background, use_stub):
    from tests.stub_llm import Reply

    use_stub.script(Reply("On we go [PROGRESS:3:in_progress]"), Reply("Again, no marker"))
    _at(api, instance, 2)
    assert api("post", "/api/v1/chat", {"instance_id": instance, "query": "go"}).status_code == 200
    assert _current(api, instance) == (3, "与仇人对峙")
    _outline_put(api, background, ["序章", *POINTS])
    assert _current(api, instance) == (4, "与仇人对峙")
    regenerated = api("post", f"/api/v1/instances/{instance}/regenerate")
    assert regenerated.status_code == 200, regenerated.content
    assert _current(api, instance) == (3, "潜入敌人据点")  # where the turn began, followed
    rows = api("get", f"/api/v1/instances/{instance}/sessions/sess_001/messages").json()["rows"]
    last = rows[-1]
    _at(api, instance, 5)
    deleted = api("delete", f"/api/v1/instances/{instance}/sessions/sess_001/messages/"
                            f"{last['index']}?fingerprint={last['fingerprint']}")
    assert deleted.status_code == 200, deleted.content
    assert _current(api, instance) == (3, "潜入敌人据点")
