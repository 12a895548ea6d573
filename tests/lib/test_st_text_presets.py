"""SillyTavern 1.12.6's own instruct and context presets (default/content/presets/instruct and
/context in its repository, as it ships them), imported as a user brings them and played against
the stub's completions endpoint: the whole prompt string and the stop strings are what
SillyTavern builds for the same card, chat and world info (written by reading its `Generate`,
`formatInstructModeChat`, `formatInstructModeExamples`, `formatInstructModePrompt`,
`formatInstructModeSystemPrompt` and `getInstructStoppingSequences`), its System Prompt at a fresh
install's "Neutral - Chat" included."""

from __future__ import annotations

import pytest

from chat.services.instance_settings import instance_update
from chat.services.traces import trace_rebuild
from library.personas.services import persona_create
from tests.group_turns import session_lines
from tests.stub_llm import Reply
from tests.text_turns import english, group_create, group_turn, solo_create, turn

pytestmark = pytest.mark.django_db(transaction=True)

_INSTRUCT = {"last_output_sequence": "", "activation_regex": "", "first_output_sequence": "",
             "skip_examples": False, "user_alignment_message": "", "last_system_sequence": "",
             "macro": True, "system_sequence_prefix": "", "system_sequence_suffix": ""}
VICUNA = {**_INSTRUCT, "name": "Vicuna 1.1", "input_sequence": "\nUSER: ",
          "output_sequence": "\nASSISTANT: ", "system_sequence": "", "stop_sequence": "",
          "wrap": False, "names_behavior": "force",
          "system_sequence_prefix": "BEGINNING OF CONVERSATION:", "output_suffix": "</s>",
          "input_suffix": "", "system_suffix": "", "system_same_as_user": True}
CHATML = {**_INSTRUCT, "name": "ChatML", "input_sequence": "<|im_start|>user",
          "output_sequence": "<|im_start|>assistant", "system_sequence": "<|im_start|>system",
          "stop_sequence": "<|im_end|>", "wrap": True, "names_behavior": "always",
          "output_suffix": "<|im_end|>\n", "input_suffix": "<|im_end|>\n",
          "system_suffix": "<|im_end|>\n", "system_same_as_user": False}
_STORY = ("{{#if system}}{{system}}\n{{/if}}{{#if wiBefore}}{{wiBefore}}\n{{/if}}"
          "{{#if description}}{{description}}\n{{/if}}{{#if personality}}{{char}}'s personality: "
          "{{personality}}\n{{/if}}{{#if scenario}}Scenario: {{scenario}}\n{{/if}}"
          "{{#if wiAfter}}{{wiAfter}}\n{{/if}}{{#if persona}}{{persona}}\n{{/if}}")
_CONTEXT = {"use_stop_strings": False, "allow_jailbreak": False, "always_force_name2": True,
            "trim_sentences": False, "single_line": False}
DEFAULT = {**_CONTEXT, "name": "Default", "story_string": _STORY, "example_separator": "***",
           "chat_start": "***"}
CHATML_CONTEXT = {**_CONTEXT, "name": "ChatML", "example_separator": "", "chat_start": "",
                  "story_string": "<|im_start|>system\n" + _STORY + "{{trim}}<|im_end|>"}

CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "A field medic in a drowned city.",
    "personality": "calm", "scenario": "{{user}} wakes in her clinic.",
    "first_mes": "Hold still, {{user}}.", "alternate_greetings": [],
    "mes_example": "<START>\n{{user}}: Does it hurt?\n{{char}}: Only when you move.",
    "system_prompt": "", "post_history_instructions": "", "creator_notes": "", "tags": [],
    "extensions": {}}}


@pytest.fixture
def text_api(use_stub, settings):
    settings.PERSONALAB_COMPLETION_API = "text"
    return use_stub


def _presets(client, staff, instruct, context) -> None:
    client.force_login(staff)
    response = client.put("/api/v1/llm/text_completion",
                          {"instruct": instruct, "context": context, "context_template": "custom"},
                          content_type="application/json")
    assert response.status_code == 200, response.content


def test_vicuna_with_the_default_context_as_sillytavern_builds_it(store, alice, staff, client,
                                                                   text_api):
    _presets(client, staff, VICUNA, DEFAULT)
    english(store)
    persona_create(store, owner=alice, data={"name": "Ann", "description": "A diver."})
    instance_id = solo_create(store, alice, CARD)
    text_api.script(Reply("I am Mira."), Reply("Fine."))
    turn(store, instance_id)
    turn(store, instance_id, "And now?")
    sent = text_api.requests[-1]
    assert sent["prompt"] == (
        # the System Prompt with the preset's system prefix, wrap off: no separator
        "BEGINNING OF CONVERSATION:Write Mira's next reply in a fictional chat between Mira and "
        "Ann.\n"
        "A field medic in a drowned city.\nMira's personality: calm\n"
        "Scenario: Ann wakes in her clinic.\nA diver.\n"
        # examples under the separator; "force" names the player's example line only
        "***\n\nUSER: Ann: Does it hurt?\nASSISTANT: Only when you move.</s>"
        # chat start, then the chat: no names alone with one character ("force")
        "***\n\nASSISTANT: Hold still, Ann.</s>\nUSER: Who are you?\nASSISTANT: I am Mira.</s>"
        "\nUSER: And now?\nASSISTANT: ")
    # SillyTavern lists the names first; the set is what a server reads
    assert sorted(sent["stop"]) == sorted(["\nAnn:", "USER: ", "ASSISTANT: "])


def test_chatml_in_a_group_opens_with_the_speakers_system_prompt(store, alice, staff, client,
                                                                  text_api):
    _presets(client, staff, CHATML, CHATML_CONTEXT)
    english(store)
    instance_id = group_create(store, alice, {**CARD, "data": {**CARD["data"],
                                                               "mes_example": ""}})
    text_api.script(Reply("I am Mira."), Reply("I am Rook."))
    group_turn(store, instance_id)
    sent = text_api.requests[-1]
    assert sent["prompt"].startswith(
        "<|im_start|>system\nWrite Rook's next reply in a fictional chat between Rook and Ann.\n"
        "A field medic in a drowned city.\nRook's personality: calm\n"
        "Scenario: Ann wakes in her clinic.<|im_end|>\n")
    assert sent["prompt"].endswith("<|im_start|>user\nMira: I am Mira.<|im_end|>\n"
                                   "<|im_start|>assistant\nRook:")
    assert {"\nAnn:", "\nMira:", "\n<|im_end|>", "\n<|im_start|>user"} <= set(sent["stop"])


def test_an_impersonation_ends_on_the_players_turn_without_chat_completions_instruction(
        store, alice, staff, client, text_api):
    # SillyTavern's impersonation_prompt is a Chat Completion setting; its text prompt ends on
    # formatInstructModePrompt(name1, isImpersonate): the player's sequence and name.
    _presets(client, staff, CHATML, CHATML_CONTEXT)
    english(store)
    instance_id = solo_create(store, alice, {**CARD, "data": {**CARD["data"],
                                                              "mes_example": ""}})
    text_api.script(Reply("I am Mira."), Reply(" I nod.\nMira: Good."))
    turn(store, instance_id)
    client.force_login(alice)
    response = client.post("/api/v1/chat", {"instance_id": instance_id, "mode": "impersonate"},
                           content_type="application/json")
    assert response.json()["answer_text"] == "I nod."  # stopped at the character's line
    sent = text_api.requests[-1]
    assert sent["prompt"].endswith(
        "<|im_start|>user\nAnn: Who are you?<|im_end|>\n<|im_start|>assistant\n"
        "Mira: I am Mira.<|im_end|>\n<|im_start|>user\nAnn:")
    assert "point of view" not in sent["prompt"]
    assert "\nMira:" in sent["stop"]


@pytest.mark.parametrize(("said", "kept"), [
    ("Hi.<|im_end|>\n<|im_start|>user\nAnn: more", "Hi."),  # the stop sequence
    ("Hi.\n<|im_start|>assistant\nMira: More.", "Hi.\n\nMore."),  # its own marker's line
    ("Hi.\n<|im_st", "Hi."),  # cut short by its length mid-marker
])
def test_a_reply_past_the_templates_markers_is_cleaned_as_sillytavern_cleans_it(
        store, alice, staff, client, text_api, said, kept):
    # A server that ignores stop strings: cleanUpMessage cuts at the stop and input
    # sequences and removes the output sequence's lines, then the names.
    _presets(client, staff, CHATML, CHATML_CONTEXT)
    english(store)
    instance_id = solo_create(store, alice, CARD)
    text_api.script(Reply(said))
    turn(store, instance_id)
    assert session_lines(store, instance_id)[-1]["content"] == kept


@pytest.mark.parametrize(("sysprompt", "system_prompt", "opening"), [
    ({"name": "Neutral - Chat", "enabled": False, "content": "Write {{char}}'s next reply."},
     "", "<|im_start|>system\nA field medic"),
    ({"name": "Actor", "enabled": True, "content": "You are {{char}}; {{user}} is the player."},
     "", "<|im_start|>system\nYou are Mira; Ann is the player.\nA field medic"),
    (None, "Be {{char}}. {{original}}",
     "<|im_start|>system\nBe Mira. Write Mira's next reply in a fictional chat between Mira "
     "and Ann.\nA field medic"),
])
def test_the_system_prompt_follows_sillytaverns_switch_its_text_and_the_card(
        store, alice, staff, client, text_api, sysprompt, system_prompt, opening):
    # SillyTavern's "Master Export" holds the System Prompt beside the two templates.
    export = {"instruct": CHATML, "context": CHATML_CONTEXT,
              **({"sysprompt": sysprompt} if sysprompt else {})}
    _presets(client, staff, export, export)
    english(store)
    instance_id = solo_create(store, alice, {**CARD, "data": {**CARD["data"],
                                                              "system_prompt": system_prompt}})
    text_api.script(Reply("I am Mira."))
    turn(store, instance_id)
    assert text_api.requests[-1]["prompt"].startswith(opening)


@pytest.mark.parametrize(("enabled", "sent"), [
    (False, "[|]"),  # switched off: every System Prompt macro is empty, the card's too
    (True, "[You are Mira.|You are Mira.]"),
])
def test_system_prompt_macros_follow_sillytaverns_switch(store, alice, staff, client, text_api,
                                                       enabled, sent):
    # replaceInstructMacros: {{systemPrompt}} and {{defaultSystemPrompt}} are "" unless
    # sysprompt.enabled, whatever the card's own system prompt says.
    export = {"instruct": CHATML, "context": CHATML_CONTEXT,
              "sysprompt": {"name": "Mine", "enabled": enabled, "content": "You are {{char}}."}}
    _presets(client, staff, export, export)
    english(store)
    instance_id = solo_create(store, alice, {**CARD, "data": {
        **CARD["data"], "personality": "calm [{{systemPrompt}}|{{defaultSystemPrompt}}]"}})
    text_api.script(Reply("I am Mira."))
    turn(store, instance_id)
    assert f"personality: calm {sent}\n" in text_api.requests[-1]["prompt"]


CHATML_STOPS = ["\n<|im_end|>", "\n<|im_start|>user", "\n<|im_start|>assistant",
                "\n<|im_start|>system"]


def test_stop_strings_go_in_sillytaverns_order(store, alice, staff, client, text_api):
    # getStoppingStrings: the names (the other side's, then the player's), the instruct
    # sequences, the context template's lines, the player's own; "\n" first with single_line.
    _presets(client, staff, CHATML, {**CHATML_CONTEXT, "single_line": True})
    english(store)
    instance_id = solo_create(store, alice, {**CARD, "data": {**CARD["data"],
                                                              "mes_example": ""}})
    instance_update(store, user=alice, instance_id=instance_id, generation={"stop": ["###"]})
    text_api.script(Reply("I am Mira."), Reply("I nod."))
    result = turn(store, instance_id)
    assert text_api.requests[-1]["stop"] == ["\n", "\nAnn:", *CHATML_STOPS, "###"]
    # the prompt inspector shows the same list (until 2026-12-03 without the player's own)
    trace = trace_rebuild(store, instance_id=instance_id, trace_id=result.trace_id)
    assert trace["prompt_stop"] == text_api.requests[-1]["stop"]
    client.force_login(alice)
    client.post("/api/v1/chat", {"instance_id": instance_id, "mode": "impersonate"},
                content_type="application/json")
    assert text_api.requests[-1]["stop"] == ["\n", "\nMira:", "\nAnn:", *CHATML_STOPS, "###"]


@pytest.mark.parametrize(("said", "kept"), [
    ("  I am Mira.  \nStill here.\t\n\n", "I am Mira.\nStill here."),  # "Trim spaces"
    ("I am Mira.\n##", "I am Mira."),  # the start of the player's own stop string
    ("I am Mira.\n<|im_start|>us", "I am Mira."),
])
def test_a_text_reply_is_trimmed_as_sillytavern_trims_it(store, alice, staff, client, text_api,
                                                         said, kept):
    _presets(client, staff, CHATML, CHATML_CONTEXT)
    english(store)
    instance_id = solo_create(store, alice, CARD)
    instance_update(store, user=alice, instance_id=instance_id, generation={"stop": ["###"]})
    text_api.script(Reply(said))
    turn(store, instance_id)
    assert session_lines(store, instance_id)[-1]["content"] == kept


@pytest.mark.parametrize("names_behavior", ["always", "force"])
def test_a_groups_impersonation_ends_on_the_players_name(store, alice, staff, client, text_api,
                                                         names_behavior):
    # formatInstructModePrompt(name1, isImpersonate): the name with "always", and in a group
    # with "force" (until 2026-12-03 a group's impersonation ended on the bare marker).
    _presets(client, staff, {**CHATML, "names_behavior": names_behavior}, CHATML_CONTEXT)
    english(store)
    instance_id = group_create(store, alice, {**CARD, "data": {**CARD["data"],
                                                               "mes_example": ""}})
    text_api.script(Reply("I am Mira."), Reply("I am Rook."), Reply("I nod."))
    group_turn(store, instance_id)
    client.force_login(alice)
    response = client.post("/api/v1/chat", {"instance_id": instance_id, "mode": "impersonate"},
                           content_type="application/json")
    assert response.json()["answer_text"] == "I nod."
    assert text_api.requests[-1]["prompt"].endswith("<|im_start|>user\nAnn:")
    # Every member's line is a character's turn with its own name, as SillyTavern's
    # formatMessageHistoryItem gives a group's lines (the output sequence, named).
    assert ("<|im_start|>assistant\nMira: I am Mira.<|im_end|>\n"
            "<|im_start|>assistant\nRook: I am Rook.<|im_end|>") in text_api.requests[-1]["prompt"]
