"""Macros through the real thing: the chat page and a turn sent to the stub server."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from chat.play.macros import imported_chat_variables
from chat.play.turn import turn_run
from chat.prompt.inputs import PromptInputs
from chat.prompt.story import StoryChoice
from chat.prompt.template_macros import template_macro_values
from chat.prompt.variables import macro_values
from chat.prompt.window import ContextWindow
from chat.services.instances import instance_create
from library.character_services import character_save
from library.find_replace.services import regex_scripts_account_save
from personalab.lib import macros as macros_module
from personalab.lib.instruct import instruct_template_read
from personalab.lib.instruct_presets import BUILT_IN
from personalab.lib.macros import TIME_ZONE, macros_replace
from personalab.lib.story_string import context_template_named
from tests.conftest import MACRO_GREETING
from tests.group_turns import session_lines
from tests.stub_llm import Reply
from tests.text_turns import english, group_create, group_turn

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_chat_page_shows_the_greeting_with_macros_and_the_file_keeps_them(
        client, alice, store, greeted):
    client.force_login(alice)
    page = client.get(f"/instances/{greeted}/").content.decode()
    assert "Hello Mira, I am Alserqi. Mira? A ruined mall." in page
    assert "{{user}}" not in page
    assert MACRO_GREETING in store.session_path(greeted, "sess_001").read_text(encoding="utf-8")


async def test_the_model_receives_persona_and_greeting_with_macros_replaced(
        store, greeted, use_stub):
    async def emit(event):
        pass

    await turn_run(store, instance_id=greeted, user_text="hi {{char}}", emit=emit)
    sent = use_stub.requests[-1]["messages"]
    assert "Alserqi protects Mira." in sent[0]["content"]
    assert {"role": "assistant",
            "content": "Hello Mira, I am Alserqi. Mira? A ruined mall."} in sent
    assert sent[-1] == {"role": "user", "content": "hi Alserqi"}


async def test_names_are_filled_in_inside_the_card_field_macros(store, greeted, use_stub):
    async def emit(event):
        pass

    await turn_run(store, instance_id=greeted, user_text="recall: {{description}}", emit=emit)
    assert use_stub.requests[-1]["messages"][-1] == {
        "role": "user", "content": "recall: Alserqi protects Mira."}


PICKS = "".join("{{pick::0::1::2::3::4::5::6::7::8::9}}" for _ in range(3))


@pytest.fixture
def scripted(store, alice, background):
    card = {"spec": "chara_card_v3", "spec_version": "3.0",
            "data": {"name": "Alserqi", "first_mes": "Hi.",
                     # A comment across a <START> line: filled before the split, as there;
                     # the picks of {{mesExamples}} are the example dialogue's, as there.
                     "mes_example": "<START>\n{{user}}: Hey\n{{char}}: Hm." + PICKS
                                    + "{{// <START> x}}"}}
    persona = ("{{setvar::mood::wary}}{{char}} is {{getvar::mood}}{{// set {by} the card }}. "
               "Heard: {{lastUserMessage}}. {{reverse:olleh}}. {{mesExamples}}")
    character_id = character_save(store, data={
        "name": "Alserqi", "base_persona": persona, "greeting": "Hi.", "card": card})
    return instance_create(store, owner=alice, character_id=character_id,
                           background_id=background)


async def test_the_model_receives_variables_reversals_and_examples_filled_in(
        store, scripted, use_stub):
    async def emit(event):
        pass

    await turn_run(store, instance_id=scripted, user_text="the gate is open", emit=emit)
    system = use_stub.requests[-1]["messages"][0]["content"]
    assert "Alserqi is wary. Heard: the gate is open. hello." in system
    assert "<START>\nUser: Hey\nAlserqi: Hm." in system
    assert "{{" not in system
    sent = use_stub.requests[-1]["messages"]
    assert not [m for m in sent if "}}" in m["content"] or "{{" in m["content"]], sent
    example = next(m["content"] for m in sent if m.get("name") == "example_assistant")
    assert f"Alserqi: {example}\n" in system  # three picks of ten each: one in 1,000 by chance


@pytest.fixture
def instructed(store, alice, background):
    persona = "[{{instructInput}}] {{chatStart}} {{exampleSeparator}} | {{systemPrompt}}"
    character_id = character_save(store, data={
        "name": "Alserqi", "base_persona": persona, "greeting": "Hi.",
        "card": {"spec": "chara_card_v3", "spec_version": "3.0",
                 "data": {"name": "Alserqi", "first_mes": "Hi."}}})
    return instance_create(store, owner=alice, character_id=character_id,
                           background_id=background)


async def test_the_instruct_and_system_prompt_macros_are_filled_as_sillytavern_fills_them(
        store, instructed, use_stub):
    # Chat completion: instruct mode is off, so its markers are empty; the context template's
    # separator and chat start are SillyTavern's Default `***`; {{systemPrompt}} is the card's
    # system prompt when it has one, else SillyTavern's. They reached the model as written.
    async def emit(event):
        pass

    await turn_run(store, instance_id=instructed, user_text="hello", emit=emit)
    system = use_stub.requests[-1]["messages"][0]["content"]
    assert ("[] *** *** | Write Alserqi's next reply in a fictional chat between Alserqi "
            "and User.") in system


def test_an_imported_chat_brings_its_sillytavern_variables():
    metadata = {"imported": {"header": {"chat_metadata": {
        "variables": {"mood": "calm", "count": 3, "ratio": 0.5, "flag": True, "list": [1]}}}}}
    assert imported_chat_variables(metadata) == {"mood": "calm", "count": "3", "ratio": "0.5"}
    assert imported_chat_variables({}) == {}


def test_max_prompt_is_the_context_less_the_reply():
    # SillyTavern 1.12.6's {{maxPrompt}}: getMaxContextSize(), the context less the reply.
    inputs = PromptInputs(character_name="Pia", user_name="Ann", base_persona="",
                          evolved_persona="", world_setting="", background_name="",
                          director=None, recalled=[],
                          window=ContextWindow(tokens=8192, reply=1024, source="setting"))
    assert macros_replace("{{maxPrompt}}", macro_values(inputs)) == "7168"


INSTANT = datetime(2026, 12, 2, 17, 5, tzinfo=UTC)  # 1:05 AM on December 3 in Shanghai


class _Frozen(datetime):
    @classmethod
    def now(cls, tz=None):
        return INSTANT.astimezone(tz) if tz else INSTANT.astimezone().replace(tzinfo=None)


@pytest.fixture
def clocked(store, alice, background, monkeypatch):
    monkeypatch.setattr(macros_module, "datetime", _Frozen)
    character_id = character_save(store, data={
        "name": "Alserqi", "base_persona": "{{char}} reads {{isotime}} on {{date}}.",
        "greeting": "Hi.", "card": {"spec": "chara_card_v3", "spec_version": "3.0",
                                    "data": {"name": "Alserqi", "first_mes": "Hi."}}})
    return instance_create(store, owner=alice, character_id=character_id,
                           background_id=background)


def _zone_keep(store, zone):
    store.module_write("reading", {"accounts": {"alice": {"time_zone": zone}}})


async def test_a_players_clock_macros_read_the_time_zone_their_browser_reported(
        store, clocked, use_stub):
    async def emit(event):
        pass

    _zone_keep(store, "Asia/Shanghai")
    await turn_run(store, instance_id=clocked, user_text="it is {{time}}", emit=emit)
    sent = use_stub.requests[-1]["messages"]
    assert "Alserqi reads 01:05 on December 3, 2026." in sent[0]["content"]
    assert sent[-1] == {"role": "user", "content": "it is 1:05 AM"}


async def test_a_kept_zone_that_is_none_leaves_the_servers_clock(store, clocked, use_stub):
    async def emit(event):
        pass

    _zone_keep(store, "Mars/Olympus")
    await turn_run(store, instance_id=clocked, user_text="it is {{isotime}}", emit=emit)
    server = INSTANT.astimezone()
    sent = use_stub.requests[-1]["messages"]
    assert f"Alserqi reads {server:%H:%M} on {server:%B} {server.day}" in sent[0]["content"]
    assert sent[-1] == {"role": "user", "content": f"it is {server:%H:%M}"}


async def test_every_macro_of_a_turn_reads_the_players_zone(store, alice, clocked, use_stub):
    # One zone, the player's, wherever a macro is filled: a regex script's replacement, a card
    # field read through {{description}}, an instruct preset's system prompt behind
    # {{systemPrompt}} (until 2026-12-03 these three read the server's clock).
    async def emit(event):
        pass

    _zone_keep(store, "Asia/Shanghai")
    regex_scripts_account_save(store, user=alice, scripts=[{
        "id": "clock", "scriptName": "clock", "findRegex": "/NOW/g",
        "replaceString": "{{isotime}}", "trimStrings": [], "placement": [2],
        "disabled": False, "markdownOnly": False, "promptOnly": False, "runOnEdit": False,
        "substituteRegex": 0, "minDepth": None, "maxDepth": None}])
    state = store.instance_state_read(clocked)
    state["scenario_override"] = "Told at {{weekday}}: {{description}}"
    store.instance_state_write(clocked, state)
    use_stub.script(Reply("It is NOW."))
    await turn_run(store, instance_id=clocked, user_text="hi", emit=emit)
    assert session_lines(store, clocked)[-1]["content"] == "It is 01:05."
    sent = use_stub.requests[-1]["messages"][0]["content"]
    assert "Told at Thursday: Alserqi reads 01:05 on December 3, 2026." in sent


def test_the_system_prompt_macro_reads_the_players_zone(monkeypatch):
    monkeypatch.setattr(macros_module, "datetime", _Frozen)
    chatml = instruct_template_read({**BUILT_IN["chatml"], "system_prompt": "At {{isotime}}."})
    choice = StoryChoice(template=context_template_named("chatml"), instruct=chatml)
    values = {"user": "Ann", "char": "Mira", TIME_ZONE: "Asia/Shanghai"}
    assert template_macro_values(choice, values)["systemPrompt"] == "At 01:05."


ZONED_CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "{{char}} reads {{isotime}}.", "personality": "",
    "scenario": "", "first_mes": "Hi.", "alternate_greetings": [], "mes_example": "",
    "system_prompt": "", "post_history_instructions": "", "tags": [], "extensions": {
        "depth_prompt": {"prompt": "Note at {{isotime}}.", "depth": 1, "role": "system"}}}}


@pytest.mark.parametrize("mode", ["swap", "append"])
def test_a_groups_member_cards_read_the_players_zone(store, alice, use_stub, monkeypatch, mode):
    # The others' descriptions (swap: the members block; append: the joined cards) and their
    # Character's Notes (until 2026-12-03 the server's clock).
    monkeypatch.setattr(macros_module, "datetime", _Frozen)
    english(store)
    _zone_keep(store, "Asia/Shanghai")
    instance_id = group_create(store, alice, ZONED_CARD)
    state = store.instance_state_read(instance_id)
    state["generation_mode"] = mode
    store.instance_state_write(instance_id, state)
    group_turn(store, instance_id)
    said = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "Mira reads 01:05." in said and "Note at 01:05." in said
    assert "17:05" not in said

