"""Text completion laid out as SillyTavern 1.12.6 lays it out (checked side by side with
bench/st_parity_items.py): a card's post-history instructions are sent only when the context
template allows them (`allow_jailbreak`), and then as an unnamed user turn after the last
message (before the reply a Continue carries on), never as a system turn after the history; a
group's member list is in the prompt's language. Real turns against the stub."""

from __future__ import annotations

import pytest

from personalab.lib.instruct import BUILT_IN as INSTRUCTS
from personalab.lib.story_string import BUILT_IN as CONTEXTS
from tests.stub_llm import Reply
from tests.text_turns import english, group_create, group_turn, solo_create, turn

pytestmark = pytest.mark.django_db(transaction=True)

CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "A field medic in a drowned city.", "personality": "",
    "scenario": "", "first_mes": "Hold still, {{user}}.", "alternate_greetings": [],
    "mes_example": "", "system_prompt": "",
    "post_history_instructions": "Never speak for {{user}}.", "creator_notes": "", "tags": [],
    "extensions": {}}}


@pytest.fixture
def text_api(use_stub, settings):
    settings.PERSONALAB_COMPLETION_API = "text"
    settings.PERSONALAB_INSTRUCT_TEMPLATE = "chatml"
    return use_stub


def _choose_context(client, staff, context: dict) -> None:
    client.force_login(staff)
    response = client.put("/api/v1/llm/text_completion", {"context": context},
                          content_type="application/json")
    assert response.status_code == 200, response.content


@pytest.mark.parametrize("context", ["", "chatml", "llama3"])
def test_post_history_instructions_stay_out_unless_the_context_template_allows_them(
        store, alice, text_api, settings, context):
    settings.PERSONALAB_CONTEXT_TEMPLATE = context  # "": SillyTavern's Default
    english(store)
    instance_id = solo_create(store, alice, CARD)
    turn(store, instance_id)
    prompt = text_api.requests[-1]["prompt"]
    assert "Never speak for" not in prompt
    assert prompt.endswith("<|im_start|>user\nAnn: Who are you?<|im_end|>\n"
                           "<|im_start|>assistant\nMira:")


def test_allowed_post_history_instructions_are_the_players_last_turn(
        store, alice, staff, client, text_api):
    _choose_context(client, staff, {**CONTEXTS["default"], "name": "Default + jailbreak",
                                    "allow_jailbreak": True})
    english(store)
    instance_id = solo_create(store, alice, CARD)
    text_api.script(Reply("Two and"), Reply(" more."))
    turn(store, instance_id)
    prompt = text_api.requests[-1]["prompt"]
    assert prompt.endswith("<|im_start|>user\nAnn: Who are you?<|im_end|>\n"
                           "<|im_start|>user\nNever speak for Ann.<|im_end|>\n"
                           "<|im_start|>assistant\nMira:")
    assert "<|im_start|>system\nNever speak" not in prompt
    result = turn(store, instance_id, "", continue_reply=True)
    continued = text_api.requests[-1]["prompt"]
    # Continue: before the reply being continued, which ends the prompt, open.
    assert continued.endswith("<|im_start|>user\nNever speak for Ann.<|im_end|>\n"
                              "<|im_start|>assistant\nMira: Two and")
    assert result.answer_text == "Two and more."


def test_a_groups_member_list_is_in_the_prompts_language(store, alice, text_api):
    english(store)
    instance_id = group_create(store, alice, CARD)
    text_api.script(Reply("Mira here."), Reply("Rook here."))
    group_turn(store, instance_id)
    prompt = next(sent["prompt"] for sent in text_api.requests
                  if sent["prompt"].endswith("Mira:"))
    assert "Also in this scene (you play only Mira; never speak for them):\n- Rook: " in prompt
    assert "本场景" not in prompt


@pytest.mark.parametrize("carried", ["preset", "master_export"])
def test_an_instruct_presets_system_prompt_is_the_main_prompt_and_a_cards_original(
        store, alice, staff, client, text_api, carried):
    """Instruct presets from before SillyTavern 1.12.6 carry `system_prompt` (later, its
    export of all templates carries `sysprompt`): it was dropped, so `{{system}}` and a card's
    `{{original}}` were empty."""
    system = "You're {{char}} in a never-ending roleplay with {{user}}."
    preset = {**INSTRUCTS["chatml"], "name": "Old ChatML"}
    body = ({"instruct": {**preset, "system_prompt": system}} if carried == "preset" else
            {"instruct": {"instruct": preset, "sysprompt": {"name": "RP", "content": system}}})
    client.force_login(staff)
    assert client.put("/api/v1/llm/text_completion", body,
                      content_type="application/json").status_code == 200
    english(store)
    plain = solo_create(store, alice, CARD)
    turn(store, plain)
    assert "You're Mira in a never-ending roleplay with Ann." in text_api.requests[-1]["prompt"]
    own = solo_create(store, alice, {**CARD, "data": {
        **CARD["data"], "name": "Rook", "system_prompt": "{{original}} Keep replies short."}})
    turn(store, own)
    assert ("You're Rook in a never-ending roleplay with Ann. Keep replies short."
            in text_api.requests[-1]["prompt"])
