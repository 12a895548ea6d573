"""The first run a newcomer sees: the offline demo on the seed's instance."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from chat.play.turn import turn_run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def demo(store, django_user_model, monkeypatch):
    monkeypatch.setattr("chat.management.commands.seed_demo.Command._index_memory",
                        lambda self, store: None)
    django_user_model.objects.create_superuser("admin", "", "pw-123456")
    call_command("seed_demo")
    return "inst_001"


async def _turn(store, instance_id, text):
    async def emit(event):
        pass

    return await turn_run(store, instance_id=instance_id, user_text=text, emit=emit)


async def test_a_handful_of_offline_turns_on_the_demo_completes_a_point_and_starts_the_next(
        store, demo):
    seen = []
    for text in ["我们先看看守卫的动向。", "他们换岗了。", "现在动手吗？", "走吧。", "跟上。",
                 "前面就是Victor的房间。"]:
        await _turn(store, demo, text)
        plot = store.instance_state_read(demo)["plot_state"]
        seen.append((plot["current_plot_index"], plot["current_status"]))
    # The seed leaves the story at point 3 in progress (turn 41).
    assert (3, "completed") in seen[:3]
    assert seen[-1] == (4, "in_progress")
