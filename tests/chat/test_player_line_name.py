"""Each of the player's lines keeps the name it was said under: after a change of persona the
chat page renamed every earlier line to the new persona (SillyTavern keeps each message's name)."""

from __future__ import annotations

import asyncio
import re

import pytest

from chat.play.turn import turn_run
from chat.services.instance_settings import instance_update
from library.personas.services import persona_create
from tests.group_turns import turn_said
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _turn(store, instance_id: str, text: str) -> None:
    async def emit(event):
        pass

    asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=emit))


def _player_names_shown(page: str) -> list[str]:
    articles = re.findall(r'<article class="msg user.*?</article>', page, flags=re.S)
    return [re.search(r'<header class="who"><strong><bdi>(.*?)</bdi></strong>', a).group(1)
            for a in articles]


def test_a_persona_switch_leaves_earlier_lines_under_their_own_name(
        store, alice, alice_client, instance, use_stub):
    ann = persona_create(store, owner=alice, data={"name": "Ann", "description": "A medic."})
    bo = persona_create(store, owner=alice, data={"name": "Bo", "description": "A thief."})
    instance_update(store, user=alice, instance_id=instance, persona_id=ann)
    _turn(store, instance, "I am Ann.")
    instance_update(store, user=alice, instance_id=instance, persona_id=bo)
    _turn(store, instance, "I am Bo.")
    session_id = store.instance_state_read(instance)["current_session_id"]
    said = [(line.get("name"), line["content"]) for line in
            store.session_read(instance, session_id).lines if line.get("role") == "user"]
    assert said == [("Ann", "I am Ann."), ("Bo", "I am Bo.")]
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert _player_names_shown(page) == ["Ann", "Bo"]


def test_a_group_prompt_names_earlier_player_lines_as_they_were_said(
        store, alice, group, use_stub):
    """The chat page kept each line's name, but every group prompt still put the current
    persona's name before each of the player's lines."""
    ann = persona_create(store, owner=alice, data={"name": "Ann", "description": "A medic."})
    bo = persona_create(store, owner=alice, data={"name": "Bo", "description": "A thief."})
    instance_update(store, user=alice, instance_id=group, persona_id=ann)
    use_stub.script(Reply("好。"), Reply("嗯。"), Reply("走。"), Reply("……"))
    asyncio.run(turn_said(store, group, "I am Ann."))
    instance_update(store, user=alice, instance_id=group, persona_id=bo)
    asyncio.run(turn_said(store, group, "I am Bo."))
    sent = "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])
    assert "Ann: I am Ann." in sent and "Bo: I am Bo." in sent and "Bo: I am Ann." not in sent
