"""The director inside real turns, with replies scripted through the stub LLM."""

from __future__ import annotations

import asyncio

import pytest

from chat.play.turn import turn_run
from chat.services.instances import instance_create
from tests.memory.recall_chats import recall_chat_seed
from tests.stub_llm import Empty, Fail, Reply

pytestmark = pytest.mark.django_db(transaction=True)


async def _turn(store, instance_id, text="继续"):
    async def emit(event):
        pass

    return await turn_run(store, instance_id=instance_id, user_text=text, emit=emit)


def _system(stub) -> str:
    return stub.requests[-1]["messages"][0]["content"]


async def test_markers_advance_the_story_point_by_point(store, instance, use_stub):
    use_stub.script(Reply("我们找到了线索。[PROGRESS:1:completed]"),
                    Reply("潜入开始。[PROGRESS:2:in_progress]"))
    await _turn(store, instance)
    await _turn(store, instance)
    plot = store.instance_state_read(instance)["plot_state"]
    assert plot == {**plot, "current_plot_index": 2, "current_status": "in_progress",
                    "no_update_count": 0}
    await _turn(store, instance)
    assert "1. 发现背叛者的线索" in _system(use_stub)


async def test_three_misses_then_the_reminder_is_in_the_next_prompt_until_a_marker(
        store, instance, use_stub):
    store.module_write("memory", {"recaps_enabled": False})  # their requests take no script
    state = store.instance_state_read(instance)
    state["plot_state"] = {"current_plot_index": 3, "current_status": "in_progress",
                           "no_update_count": 2}
    store.instance_state_write(instance, state)
    use_stub.script(Reply("我当然记得。[PROGRESS:3:in_progress]"), Reply("等等。"), Empty(),
                    Fail(500), Reply("还在等。"), Reply("还在等。"),
                    Reply("对峙开始。[PROGRESS:3:completed]"), Reply("好。"))
    await _turn(store, instance)  # turn 42 of the seed: marker resets the counter
    assert store.instance_state_read(instance)["plot_state"]["no_update_count"] == 0
    for _ in range(3):  # 43-45: no marker, an empty reply, an error
        await _turn(store, instance)
        assert "导演提醒" not in _system(use_stub)
    assert store.instance_state_read(instance)["plot_state"]["no_update_count"] == 3
    await _turn(store, instance)  # 46: the reminder fires
    assert "你现在应该推进到故事大纲第3点：与仇人对峙" in _system(use_stub)
    await _turn(store, instance)  # still no marker: the reminder stays
    assert "你现在应该推进到故事大纲第3点：与仇人对峙" in _system(use_stub)
    assert store.instance_state_read(instance)["plot_state"]["no_update_count"] == 5
    await _turn(store, instance)  # the marker comes ...
    await _turn(store, instance)  # ... and the next prompt has no reminder
    assert "你现在应该推进到故事大纲" not in _system(use_stub)


async def test_malformed_markers_count_as_misses_and_are_traced(store, instance, use_stub):
    use_stub.script(Reply("[PROGRESS:0:done]"), Reply("[PROGRESS:99:completed]"),
                    Reply("[progress:2:completed]"))
    results = [await _turn(store, instance) for _ in range(3)]
    assert store.instance_state_read(instance)["plot_state"]["no_update_count"] == 3
    for result in results:
        trace = store.trace_read(instance, result.trace_id)
        assert trace["director_result"]["rejected"]


async def test_director_off_adds_nothing_and_counts_nothing(store, instance, use_stub):
    store.module_write("director", {"enabled": False, "rag_fallback_threshold": 3})
    use_stub.script(Reply("[PROGRESS:2:completed]"))
    await _turn(store, instance)
    assert "故事大纲" not in _system(use_stub)
    assert store.instance_state_read(instance)["plot_state"]["current_plot_index"] == 1


async def test_switching_background_mid_story_uses_the_new_outline(store, instance, use_stub):
    from director.services import instance_switch_background
    from library.background_services import background_save

    state = store.instance_state_read(instance)
    state["plot_state"]["current_plot_index"] = 4
    store.instance_state_write(instance, state)
    from asgiref.sync import sync_to_async

    short = await sync_to_async(background_save)(
        store, data={"name": "海港", "story_outline": ["登船", "出海"]})
    result = instance_switch_background(store, instance_id=instance, background_id=short)
    assert result["clamped"] is True
    await _turn(store, instance)
    system = _system(use_stub)
    assert "出海" in system and "与仇人对峙" not in system
    assert store.instance_state_read(instance)["plot_state"]["current_plot_index"] == 4


def test_the_outline_view_names_the_carried_over_points(client, store, alice, instance,
                                                          background):
    from library.background_services import background_save

    state = store.instance_state_read(instance)
    state["plot_state"] = {"current_plot_index": 2, "current_status": "in_progress",
                           "no_update_count": 0}
    store.instance_state_write(instance, state)
    other = background_save(store, user=alice, data={"name": "新的旅程",
                                                     "story_outline": ["出发", "抵达", "归来"]})
    client.force_login(alice)
    client.post(f"/instances/{instance}/background", {"background_id": other})
    page = client.get(f"/instances/{instance}/").content.decode()
    assert page.count('data-testid="carried-over"') == 2
    assert "carried over from 废土复仇记" in page


async def test_a_completed_point_makes_the_reminder_name_the_next_one(store, instance, use_stub):
    state = store.instance_state_read(instance)
    state["plot_state"] = {"current_plot_index": 3, "current_status": "completed",
                           "no_update_count": 3}
    store.instance_state_write(instance, state)
    use_stub.script(Reply("好。"))
    await _turn(store, instance)
    system = _system(use_stub)
    assert "你现在应该推进到故事大纲第4点：做出关键选择" in system
    assert "推进到故事大纲第3点" not in system
    assert "当前目标：故事大纲第4点" in system


async def test_an_english_prompt_words_the_instruction_and_reminder_in_english(
        store, instance, use_stub):
    """The director's seed wording is Chinese; an English prompt carries it in English, with
    the outline point's own words as written, and the inspector shows what was sent."""
    store.module_write("prompt", {**store.module_read("prompt"), "locale": "en"})
    store.module_write("memory", {"recaps_enabled": False})
    state = store.instance_state_read(instance)
    state["plot_state"] = {"current_plot_index": 3, "current_status": "in_progress",
                           "no_update_count": 3}
    store.instance_state_write(instance, state)
    use_stub.script(Reply("Wait."))
    result = await _turn(store, instance, "Go on")
    system = _system(use_stub)
    assert "put a marker in your reply: [PROGRESS:X:status]" in system
    assert "Current goal: outline point 3: 与仇人对峙" in system
    assert "You should now move the story on to outline point 3: 与仇人对峙" in system
    assert "推进到" not in system and "当前目标" not in system and "如果剧情推进" not in system
    director = store.trace_read(instance, result.trace_id)["director_context"]  # as sent
    assert director["reminder"]["text"] == "You should now move the story on to outline point 3: 与仇人对峙"
    assert director["instruction"].endswith("\nCurrent goal: outline point 3: 与仇人对峙")


def test_the_reminder_names_each_recalled_line_once(store, instance, memory_on, use_stub):
    """The director's fallback search lists a line said several times once (seven of its
    fifteen places held "The market was loud this morning."), and the places go to others."""

    recall_chat_seed(store, instance)
    state = store.instance_state_read(instance)
    state["plot_state"] = {"current_plot_index": 3, "current_status": "in_progress",
                           "no_update_count": 5}
    store.instance_state_write(instance, state)
    result = asyncio.run(_turn(store, instance, "我们继续吧。"))
    events = store.trace_read(instance, result.trace_id)["director_context"]["reminder"][
        "current_events"]
    assert len(events) == len(set(events)) > 3


def test_a_chat_with_no_outline_shows_no_count_of_turns_without_progress(client, store, alice,
                                                                         character):
    """"Turns without progress: 0 / threshold 3" under "No outline (no background)." counted
    toward nothing a player could see."""
    plain = instance_create(store, owner=alice, character_id=character, background_id=None)
    client.force_login(alice)
    page = client.get(f"/instances/{plain}/").content.decode()
    assert "No outline (no background)." in page and "Turns without progress" not in page


async def test_a_held_beat_stays_in_the_prompt_and_the_trace_shows_the_held_marker(
        store, instance, use_stub, client, alice):
    store.module_write("memory", {"recaps_enabled": False})
    state = store.instance_state_read(instance)
    state["plot_state"] = {"current_plot_index": 3, "current_status": "in_progress",
                           "no_update_count": 5}
    store.instance_state_write(instance, {**state, "plot_hold": True})
    use_stub.script(Reply("对峙结束了。[PROGRESS:4:in_progress]"))
    result = await _turn(store, instance)
    assert "停留在当前情节：故事大纲第3点：与仇人对峙" in _system(use_stub)
    assert "导演提醒" not in _system(use_stub)
    assert store.instance_state_read(instance)["plot_state"]["current_plot_index"] == 3
    assert store.trace_read(instance, result.trace_id)["director_result"]["held_marker"][
        "index"] == 4
    await asyncio.to_thread(client.force_login, alice)
    page = (await asyncio.to_thread(client.get, f"/traces/{result.trace_id}/")).content.decode()
    assert 'data-testid="director-held-marker"' in page and 'data-testid="director-held"' in page
    # The chat page tells its badge the marker was not taken (static/chat/render.js draws it so).
    chat = (await asyncio.to_thread(client.get, f"/instances/{instance}/")).content.decode()
    assert chat.count('data-held-point="4"') == 1 and 'data-held="held: not taken"' in chat
