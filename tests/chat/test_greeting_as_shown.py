"""The greeting as the player saw it: what {{lastCharMessage}} and {{lastMessage}} read and
what the SillyTavern export writes (the session file keeps the card's text, filled when read,
its rolls seeded by the line)."""

from __future__ import annotations

import asyncio
import json

import pytest

from chat.play.turn import turn_run
from chat.selectors import message_render_context
from chat.services.instances import instance_create
from chat.services.session_export import session_export
from library.character_services import character_save
from personalab.lib.line_macros import line_macros_replace

pytestmark = pytest.mark.django_db(transaction=True)

GREETING = "Greetings {{user}}, roll {{roll:d1000000}} and pick {{random::one::two::three}}."
ALTERNATE = "Again, {{user}}: {{roll:d1000000}}."


@pytest.fixture
def rolling(store, alice, background):
    store.module_write("prompt", {**store.module_read("prompt"), "user_name": "Mira"})
    card = {"spec": "chara_card_v3", "spec_version": "3.0",
            "data": {"name": "Alserqi", "first_mes": GREETING,
                     "alternate_greetings": [ALTERNATE]}}
    character_id = character_save(store, data={
        "name": "Alserqi", "greeting": GREETING, "card": card,
        "base_persona": "LAST=[{{lastCharMessage}}] ANY=[{{lastMessage}}]"})
    return instance_create(store, owner=alice, character_id=character_id,
                           background_id=background)


def _shown(store, instance_id: str) -> tuple[dict, str]:
    """The greeting line of the file and its text as the chat page shows it."""
    line = store.session_read(instance_id, "sess_001").lines[0]
    values = message_render_context(store, state=store.instance_state_read(instance_id),
                                    lines=[line])["macro_values"]
    return line, line_macros_replace(line, values)


async def _quiet(event):
    pass


async def test_last_char_message_reads_the_greeting_as_the_model_is_sent_it(
        store, rolling, use_stub):
    line, shown = await asyncio.to_thread(_shown, store, rolling)
    assert line["content"] == GREETING and "{{" not in shown
    await turn_run(store, instance_id=rolling, user_text="hello", emit=_quiet)
    sent = use_stub.requests[-1]["messages"]
    assert {"role": "assistant", "content": shown} in sent
    assert f"LAST=[{shown}]" in sent[0]["content"]


async def test_a_players_last_message_macro_is_the_greeting_as_shown(store, rolling, use_stub):
    _, shown = await asyncio.to_thread(_shown, store, rolling)
    await turn_run(store, instance_id=rolling, user_text="you said: {{lastMessage}}",
                   emit=_quiet)
    assert use_stub.requests[-1]["messages"][-1] == {"role": "user",
                                                     "content": f"you said: {shown}"}


def test_the_sillytavern_export_writes_the_greeting_and_its_swipes_as_shown(store, rolling):
    line, shown = _shown(store, rolling)
    body, _ = session_export(store, instance_id=rolling, session_id="sess_001", fmt="jsonl")
    greeting = [json.loads(row) for row in body.decode().splitlines()][1]
    assert greeting["mes"] == shown
    # the alternate greeting as the page shows it once swiped to: no time of its own
    alternate = line_macros_replace({"role": "assistant", "turn": 0, "greeting": True,
                                     "content": ALTERNATE}, {"user": "Mira"})
    assert greeting["swipes"] == [shown, alternate]
    assert alternate.startswith("Again, Mira: ") and "{{" not in alternate
    assert store.session_read(rolling, "sess_001").lines[0]["content"] == GREETING


@pytest.fixture
def counting(store, alice, background):
    card = {"spec": "chara_card_v3", "spec_version": "3.0",
            "data": {"name": "Alserqi", "first_mes": "Hi.", "alternate_greetings": ["Yo."]}}
    character_id = character_save(store, data={
        "name": "Alserqi", "greeting": "Hi.", "card": card,
        "base_persona": "ID={{lastMessageId}} SW=[{{currentSwipeId}}] M={{model}} "
                        "IN=[{{input}}]"})
    return instance_create(store, owner=alice, character_id=character_id,
                           background_id=background)


async def test_the_message_id_swipe_id_model_and_input_macros_reach_the_model(
        store, counting, use_stub):
    await turn_run(store, instance_id=counting, user_text="one", emit=_quiet)
    # the greeting (0) and the player's line (1) are the chat; a player's line has no swipes
    assert "ID=1 SW=[] M=stub-model IN=[]" in use_stub.requests[-1]["messages"][0]["content"]
    assert use_stub.requests[-1]["model"] == "stub-model"
    await turn_run(store, instance_id=counting, user_text="{{lastMessageId}}/{{currentSwipeId}}",
                   emit=_quiet)
    # sent after the reply (index 2, one version): SillyTavern fills it before it joins the chat
    assert use_stub.requests[-1]["messages"][-1] == {"role": "user", "content": "2/1"}
    assert "ID=3 SW=[]" in use_stub.requests[-1]["messages"][0]["content"]
    # a regenerate makes the reply's second version: SillyTavern's swipe being made
    await turn_run(store, instance_id=counting, user_text="", regenerate=True, emit=_quiet)
    assert "ID=3 SW=[2]" in use_stub.requests[-1]["messages"][0]["content"]
