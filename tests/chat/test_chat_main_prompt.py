"""SillyTavern's default main prompt in Chat Completion, through real turns against the stub
(which records what the model received): "Write {{char}}'s next reply in a fictional chat
between {{char}} and {{user}}." first (in a group the member who speaks), in Chinese
for a Chinese prompt; the card's system prompt or a main block replaces it ({{original}} keeps
it), an edit in the prompt manager's utility prompts changes it, "" sends none; text completion
sends SillyTavern's System Prompt. The card is written here from the
documented V3 format."""

from __future__ import annotations

import pytest

from tests.text_turns import (
    english,
    english_turn_sent,
    group_create,
    group_turn,
    solo_create,
    text_turn_prompt,
    turn,
    utility_set,
)

pytestmark = pytest.mark.django_db(transaction=True)

CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "A field medic.", "personality": "calm",
    "scenario": "A clinic at night.", "first_mes": "Hold still, {{user}}.",
    "alternate_greetings": [], "mes_example": "", "system_prompt": "",
    "post_history_instructions": "", "tags": [], "extensions": {}}}
LINE = "Write Mira's next reply in a fictional chat between Mira and Ann."


def _system(use_stub) -> str:
    return use_stub.requests[-1]["messages"][0]["content"]


def _first(use_stub) -> str:
    """The first part of the system message (parts are joined by a blank line)."""
    return _system(use_stub).split("\n\n")[0]


def test_a_chat_starts_with_sillytaverns_main_prompt(store, alice, use_stub):
    english_turn_sent(store, alice, CARD, use_stub)
    assert _first(use_stub) == LINE
    assert _system(use_stub).count("fictional chat") == 1


def test_a_group_names_the_member_who_speaks_in_the_main_prompt(store, alice, use_stub):
    """As a fresh SillyTavern 1.12.6 sends it: its settings.json and Default preset say
    {{char}}, not openai.js's {{charIfNotGroup}} (the side-by-side run: "between Amy and
    Alex" there, "between Amy, Brin, Cato and Alex" here)."""
    english(store)
    instance_id = group_create(store, alice, CARD)
    group_turn(store, instance_id)
    first, second = (use_stub.requests[i]["messages"][0]["content"] for i in (-2, -1))
    assert first.startswith("Write Mira's next reply in a fictional chat between Mira and Ann.")
    assert second.startswith("Write Rook's next reply in a fictional chat between Rook and Ann.")


def test_the_cards_system_prompt_replaces_it_and_original_keeps_it(store, alice, use_stub):
    english(store)
    own = solo_create(store, alice, {**CARD, "data": {**CARD["data"],
                                                      "system_prompt": "Play {{char}} only."}})
    turn(store, own)
    assert _first(use_stub) == "Play Mira only."
    assert "fictional chat" not in str(use_stub.requests[-1]["messages"])
    kept = solo_create(store, alice, {**CARD, "data": {**CARD["data"],
                                                       "system_prompt": "{{original}} Be kind."}})
    turn(store, kept)
    assert _first(use_stub) == LINE + " Be kind."


def test_the_prompt_manager_edits_or_empties_it(store, alice, use_stub):
    english(store)
    instance_id = solo_create(store, alice, CARD)
    utility_set(store, instance_id, chat_main_prompt="You are {{char}}; {{user}} plays.")
    turn(store, instance_id)
    assert _first(use_stub) == "You are Mira; Ann plays."
    utility_set(store, instance_id, chat_main_prompt="")
    turn(store, instance_id, "Again.")
    assert "fictional chat" not in _system(use_stub)
    assert _first(use_stub).startswith("=== Character")
    # A main block (a preset's main prompt) wins over the utility line.
    state = store.instance_state_read(instance_id)
    state["prompt_manager"] = {"blocks": [{"identifier": "main", "name": "Main", "role": "system",
                                           "content": "Preset main.", "enabled": True,
                                           "place": "main", "depth": 0}], "utility": {}}
    store.instance_state_write(instance_id, state)
    turn(store, instance_id, "Once more.")
    assert _first(use_stub) == "Preset main."


def test_a_chinese_prompt_gets_a_chinese_main_prompt(store, alice, use_stub):
    store.module_write("prompt", {"locale": "zh", "user_name": "Ann"})
    # {{systemPrompt}} is the same line in the same language (until 2026-12-03 English).
    instance_id = solo_create(store, alice, {**CARD, "data": {
        **CARD["data"], "scenario": "A clinic. ({{systemPrompt}})"}})
    turn(store, instance_id)
    assert _first(use_stub) == "写出Mira在Mira与Ann之间这场虚构聊天中的下一条回复。"
    assert "A clinic. (写出Mira在Mira与Ann之间这场虚构聊天中的下一条回复。)" in _system(use_stub)
    assert "fictional chat" not in _system(use_stub)


def test_text_completion_sends_sillytaverns_system_prompt(store, alice, use_stub, settings):
    # SillyTavern 1.12.6's System Prompt ("Neutral - Chat", on in a fresh install) names the
    # character twice, not the group (tests/lib/test_st_text_presets.py).
    assert text_turn_prompt(store, alice, CARD, use_stub, settings).startswith(
        "Write Mira's next reply in a fictional chat between Mira and Ann.\n")
