"""A chat's story progress follows the outline points themselves when the author reorders,
inserts, deletes or rewrites them mid-play (docs/decisions/outline-point-ids.md): the turn's
director, PUT /api/v1/instances/{id}/plot_state and the page agree on where the story is."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from chat.models import ApiToken
from chat.play.turn import turn_run
from chat.services.instance_settings import instance_plot_set
from chat.services.instances import instance_create
from director.services import director_apply_reply, director_status
from library.background_services import background_outline_edit, background_save
from tests.stub_llm import Reply

OUTLINE = ["发现背叛者的线索", "潜入敌人据点", "与仇人对峙", "做出关键选择", "应对选择的后果"]


def _rows(store, instance_id) -> list[tuple[str, str]]:
    return [(row["content"], row["status"])
            for row in director_status(store, instance_id=instance_id)["outline"]]


def _current(store, instance_id) -> str:
    return director_status(store, instance_id=instance_id)["current_point"]["content"]


def _at_point_3(store, alice, instance):
    instance_plot_set(store, user=alice, instance_id=instance, index=3, status="in_progress")


def test_moving_a_later_point_above_the_current_one_keeps_the_step_and_the_done_ones(
        store, alice, background, instance):
    _at_point_3(store, alice, instance)
    background_outline_edit(store, background_id=background, action="up", position=4,
                            user=alice)
    assert _rows(store, instance) == [
        ("发现背叛者的线索", "completed"), ("潜入敌人据点", "completed"),
        ("做出关键选择", "pending"), ("与仇人对峙", "in_progress"), ("应对选择的后果", "pending")]
    assert director_status(store, instance_id=instance)["current_index"] == 4


def test_reordering_the_done_points_keeps_them_done(store, alice, background, instance):
    _at_point_3(store, alice, instance)
    background_outline_edit(store, background_id=background, action="down", position=1,
                            user=alice)
    assert _rows(store, instance)[:3] == [
        ("潜入敌人据点", "completed"), ("发现背叛者的线索", "completed"),
        ("与仇人对峙", "in_progress")]


def test_another_accounts_chat_on_the_shared_background_follows_through_its_turns(
        store, alice, bob, character, background, instance):
    bobs = instance_create(store, owner=bob, character_id=character, background_id=background)
    director_apply_reply(store, instance_id=bobs,
                         reply={"role": "assistant", "content": "潜入。[PROGRESS:2:in_progress]"})
    background_outline_edit(store, background_id=background, action="up", position=3,
                            user=alice)  # 与仇人对峙 above 潜入敌人据点
    assert _current(store, bobs) == "潜入敌人据点"
    # a turn without a marker leaves it there; a marker's X is read against the outline now
    director_apply_reply(store, instance_id=bobs, reply={"role": "assistant", "content": "嗯。"})
    assert _current(store, bobs) == "潜入敌人据点"
    director_apply_reply(store, instance_id=bobs,
                         reply={"role": "assistant", "content": "好。[PROGRESS:3:completed]"})
    status = director_status(store, instance_id=bobs)
    assert status["current_point"]["content"] == "潜入敌人据点"
    assert status["current_status"] == "completed"


def test_deleting_the_current_point_makes_the_next_one_current_and_says_so(
        store, alice, alice_client, background, instance):
    _at_point_3(store, alice, instance)
    background_outline_edit(store, background_id=background, action="delete", position=3,
                            user=alice)
    status = director_status(store, instance_id=instance)
    assert status["current_point"]["content"] == "做出关键选择"
    assert status["current_status"] == "pending"
    assert status["point_removed"] == {"removed_point": 3, "current_index": 3}
    assert [row["status"] for row in status["outline"]][:2] == ["completed", "completed"]
    page = alice_client.get(reverse("instance_outline", args=[instance])).content.decode()
    assert 'data-testid="outline-point-removed"' in page
    assert "The point in progress (3) was removed from the outline: point 3 is current now." in page
    # the next turn writes where the story is now: the note has been read
    director_apply_reply(store, instance_id=instance, reply={"role": "assistant", "content": "嗯"})
    status = director_status(store, instance_id=instance)
    assert status["point_removed"] is None
    assert status["current_point"]["content"] == "做出关键选择"


def test_deleting_the_current_point_after_a_reorder_skips_the_points_already_done(
        store, alice, background, instance):
    _at_point_3(store, alice, instance)
    background_outline_edit(store, background_id=background, action="down", position=2,
                            user=alice)  # 潜入敌人据点 (done) below 与仇人对峙
    background_outline_edit(store, background_id=background, action="delete", position=2,
                            user=alice)  # 与仇人对峙, the current one
    assert _current(store, instance) == "做出关键选择"


def test_inserting_a_point_above_the_current_one_leaves_it_current(
        store, alice, background, instance):
    _at_point_3(store, alice, instance)
    background_save(store, background_id=background, user=alice, data={
        "name": "废土复仇记", "story_outline": ["序幕", *OUTLINE]})  # texts only, over REST
    status = director_status(store, instance_id=instance)
    assert status["current_point"]["content"] == "与仇人对峙"
    assert status["current_index"] == 4
    assert [row["status"] for row in status["outline"]] == [
        "pending", "completed", "completed", "in_progress", "pending", "pending"]


def test_rewriting_the_current_points_text_keeps_it_current(store, alice, background, instance):
    _at_point_3(store, alice, instance)
    background_outline_edit(store, background_id=background, action="edit", position=3,
                            content="与仇人在桥上对峙", user=alice)
    background_outline_edit(store, background_id=background, action="up", position=3,
                            user=alice)
    assert _current(store, instance) == "与仇人在桥上对峙"


def test_an_outline_and_progress_saved_before_ids_follow_the_first_reorder(
        store, alice, background, instance):
    path = store.background_dir(background) / "background.json"
    saved = json.loads(path.read_text(encoding="utf-8"))
    saved["story_outline"] = [{"index": p["index"], "content": p["content"]}
                              for p in saved["story_outline"]]
    path.write_text(json.dumps(saved, ensure_ascii=False), encoding="utf-8")
    state = store.instance_state_read(instance)
    store.instance_state_write(instance, {**state, "plot_state": {
        "current_plot_index": 3, "current_status": "in_progress", "no_update_count": 0}})
    background_outline_edit(store, background_id=background, action="up", position=4,
                            user=alice)
    assert _current(store, instance) == "与仇人对峙"
    assert [p["content"] for p in store.background_read(background)["story_outline"]] == [
        OUTLINE[0], OUTLINE[1], OUTLINE[3], OUTLINE[2], OUTLINE[4]]


def test_the_plot_state_api_goes_to_the_point_shown_after_a_reorder(
        client, store, alice, background, instance):
    _at_point_3(store, alice, instance)
    background_outline_edit(store, background_id=background, action="up", position=4,
                            user=alice)
    answer = client.put(f"/api/v1/instances/{instance}/plot_state",
                        json.dumps({"current_plot_index": 4, "current_status": "completed"}),
                        content_type="application/json",
                        HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert answer.status_code == 200, answer.content
    assert answer.json()["current_point"]["content"] == "与仇人对峙"
    assert answer.json()["current_status"] == "completed"


@pytest.mark.django_db(transaction=True)
def test_the_turns_goal_is_the_moved_point(store, alice, background, instance, use_stub):
    import asyncio

    async def emit(event):
        pass

    _at_point_3(store, alice, instance)
    background_outline_edit(store, background_id=background, action="up", position=4,
                            user=alice)
    use_stub.script(Reply("我们对峙。"))
    asyncio.run(turn_run(store, instance_id=instance, user_text="继续", emit=emit))
    assert "故事大纲第4点：与仇人对峙" in use_stub.requests[-1]["messages"][0]["content"]
