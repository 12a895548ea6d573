"""Text-completion backends (issue 32 item 6): with PERSONALAB_COMPLETION_API=text (or the
settings page's choice) a turn sends one prompt string to /v1/completions, built with an
instruct template and ending on the character's turn, the template's markers sent as `stop`.
Each through a real turn against the stub, which records what the model received."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import pytest

from chat.play.context import provider_current
from chat.services.traces import trace_rebuild
from memory.character.evolved_persona import memory_update_persona
from personalab.lib.instruct import instruct_examples, instruct_prompt, instruct_template_read
from personalab.lib.instruct_presets import BUILT_IN
from personalab.lib.llm import LLMSettings
from personalab.lib.llm_offline import OfflineProvider
from personalab.lib.llm_providers import provider_for
from personalab.lib.llm_text import prompt_for
from tests.pages.settings_form import SETTINGS_FORM
from tests.stub_llm import LongLine, Reply, Useless
from tests.text_turns import english, group_create, group_turn, solo_create, turn

pytestmark = pytest.mark.django_db(transaction=True)

CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "A field medic in a drowned city.",
    "personality": "calm", "scenario": "{{user}} wakes in her clinic.",
    "first_mes": "Hold still, {{user}}.", "alternate_greetings": [], "mes_example": "",
    "system_prompt": "", "post_history_instructions": "", "creator_notes": "", "tags": [],
    "extensions": {}}}

# Each built-in template: where the prompt ends (the model writes next), how the player's
# message is marked, and stop sequences it must send.
ENDINGS = {
    "chatml": ("<|im_end|>\n<|im_start|>assistant\nMira:", "<|im_start|>user\nAnn: Who are you?",
               ["\n<|im_end|>", "\n<|im_start|>user"]),
    "llama3": ("<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nMira:",
               "<|start_header_id|>user<|end_header_id|>\n\nAnn: Who are you?<|eot_id|>",
               ["<|eot_id|>", "<|start_header_id|>user<|end_header_id|>"]),
    "mistral": ("Ann: Who are you?[/INST] Mira:", "[INST] Ann: Who are you?", ["[INST] "]),
    "alpaca": ("\n\n### Response:\n", "### Instruction:\nWho are you?\n\n",
               ["\n### Instruction:", "\n### Response:"]),
    "vicuna": ("Who are you?\nASSISTANT: ", "\nUSER: Who are you?", ["USER: ", "ASSISTANT: "]),
    "gemma": ("<end_of_turn>\n<start_of_turn>model\n", "<start_of_turn>user\nWho are you?",
              ["\n<end_of_turn>", "\n<start_of_turn>user"]),
    "metharme": ("Who are you?<|model|>", "<|user|>Who are you?", ["</s>", "<|user|>"]),
    "phi": ("<|end|>\n<|assistant|>\nMira:", "<|user|>\nAnn: Who are you?<|end|>",
            ["<|end|>", "<|user|>"]),
}

# A SillyTavern instruct preset in its older documented format (`names`, `separator_sequence`),
# with sequences no built-in uses, so the test sees they came from the import.
ST_PRESET = {
    "name": "Orca Vicuna (test)", "system_prompt": "ignored here",
    "input_sequence": "### HUMAN {{name}}:", "output_sequence": "### BOT {{char}}:",
    "first_output_sequence": "", "last_output_sequence": "### BOT (final):",
    "system_sequence_prefix": "### SYSTEM:", "system_sequence_suffix": "",
    "stop_sequence": "<|stop|>", "separator_sequence": "<|sep|>", "wrap": True, "macro": True,
    "names": False, "names_force_groups": True, "activation_regex": "", "enabled": True,
}


def _mira(store, alice, card: dict = CARD) -> str:
    return solo_create(store, alice, card)


@pytest.fixture
def text_api(use_stub, settings):
    settings.PERSONALAB_COMPLETION_API = "text"
    return use_stub


@pytest.mark.parametrize("template", sorted(ENDINGS))
def test_each_built_in_template_ends_on_the_characters_turn_with_its_stops(
        store, alice, text_api, settings, template):
    settings.PERSONALAB_INSTRUCT_TEMPLATE = template
    english(store)
    instance_id = _mira(store, alice)
    text_api.script(Reply(" I am Mira, the medic."))
    result = turn(store, instance_id)
    assert text_api.paths == ["/completions"]
    sent = text_api.requests[-1]
    assert "messages" not in sent and sent["stream"] is True
    ending, user_line, stops = ENDINGS[template]
    prompt = sent["prompt"]
    assert prompt.endswith(ending)
    assert user_line in prompt
    assert prompt.index("A field medic in a drowned city.") < prompt.index("Hold still, Ann.") \
        < prompt.index("Who are you?")
    assert all(stop in sent["stop"] for stop in stops)
    assert result.answer_text == "I am Mira, the medic."  # the space after "Mira:" left out


def test_an_imported_sillytavern_instruct_preset_builds_the_prompt(store, alice, text_api,
                                                                   staff, client):
    client.force_login(staff)
    response = client.put("/api/v1/llm/text_completion", {"instruct": ST_PRESET},
                          content_type="application/json")
    assert response.status_code == 200, response.content
    assert response.json()["instruct_template_effective"] == "custom"
    english(store)
    # The Default context template (nothing else chosen) puts the preset's system prefix
    # around the card's system prompt, as SillyTavern formats it.
    instance_id = _mira(store, alice, {**CARD, "data": {**CARD["data"],
                                                        "system_prompt": "Be Mira."}})
    turn(store, instance_id)
    sent = text_api.requests[-1]
    prompt = sent["prompt"]
    assert prompt.startswith("### SYSTEM:\nBe Mira.\nA field medic")
    assert "### BOT Mira:\nHold still, Ann.<|sep|>" in prompt  # separator_sequence: its suffix
    assert "### HUMAN Ann:\nWho are you?\n" in prompt  # names off: no "Ann: " before the text
    assert prompt.endswith("\n### BOT (final):\n")
    assert {"\n<|stop|>", "\n### HUMAN Ann:", "\n### BOT Mira:"} <= set(sent["stop"])


def test_a_bad_preset_is_refused_with_a_sentence_and_nothing_is_saved(store, staff, client):
    client.force_login(staff)
    response = client.put("/api/v1/llm/text_completion",
                          {"completion_api": "text", "instruct": {**ST_PRESET, "wrap": "yes"}},
                          content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "wrap must be true or false"
    assert "instruct" in response.json()["error"]["fields"]
    assert "completion_api" not in store.module_read("llm")

    page = client.post("/settings/", {**SETTINGS_FORM, "llm.completion_api": "text",
                                      "llm.instruct_json": '{"name": "half a preset"'})
    assert page.status_code == 400
    assert 'data-field="llm.instruct_json"' in page.content.decode()
    assert "not JSON" in page.content.decode()
    assert "completion_api" not in store.module_read("llm")
    page = client.post("/settings/", {**SETTINGS_FORM, "llm.instruct_json": "[" * 50_000})
    assert page.status_code == 400 and "nested too deep" in page.content.decode()
    assert "instruct" not in store.module_read("llm")


def test_only_staff_change_the_text_completion_choice(store, alice, client):
    client.force_login(alice)
    assert client.get("/api/v1/llm/text_completion").json()["completion_api_effective"] == "chat"
    response = client.put("/api/v1/llm/text_completion", {"completion_api": "text"},
                          content_type="application/json")
    assert response.status_code == 403
    assert "completion_api" not in store.module_read("llm")


def test_the_settings_page_switches_to_text_completion_with_a_template(store, alice, use_stub,
                                                                        staff, client):
    client.force_login(staff)
    page = client.get("/settings/").content.decode()
    assert 'name="llm.completion_api"' in page and '<option value="llama3">' in page
    response = client.post("/settings/", {**SETTINGS_FORM, "llm.base_url": use_stub.base_url,
                                          "llm.completion_api": "text",
                                          "llm.instruct_template": "llama3"})
    assert response.status_code == 302
    english(store)
    turn(store, _mira(store, alice))
    assert use_stub.paths == ["/completions"]
    assert use_stub.requests[-1]["prompt"].endswith(
        "<|start_header_id|>assistant<|end_header_id|>\n\nMira:")


def test_chat_completion_and_the_offline_demo_stay_the_default(store, alice, use_stub,
                                                               settings):
    english(store)
    turn(store, _mira(store, alice))
    assert use_stub.paths == ["/chat/completions"]
    assert "messages" in use_stub.requests[-1]
    # Text completion asked for, but no endpoint: the offline demo answers, as before.
    assert isinstance(provider_for(LLMSettings(completion_api="text")), OfflineProvider)


def test_the_prompt_inspector_shows_the_string_that_was_sent(store, alice, text_api,
                                                             settings, client):
    settings.PERSONALAB_INSTRUCT_TEMPLATE = "chatml"
    english(store)
    instance_id = _mira(store, alice)
    result = turn(store, instance_id)
    trace = trace_rebuild(store, instance_id=instance_id, trace_id=result.trace_id)
    assert trace["prompt_text"] == text_api.requests[-1]["prompt"]
    client.force_login(alice)
    page = client.get(f"/traces/{result.trace_id}/").content.decode()
    assert 'id="prompt-text"' in page
    assert "&lt;|im_start|&gt;assistant\nMira:</pre>" in page


def test_a_memory_update_works_with_a_text_backend(store, alice, text_api, settings):
    settings.PERSONALAB_INSTRUCT_TEMPLATE = "chatml"
    english(store)
    instance_id = _mira(store, alice)
    turn(store, instance_id)
    text_api.script(Reply("Mira now trusts Ann a little."))
    result = asyncio.run(memory_update_persona(store, instance_id=instance_id,
                                               llm=provider_current(store)))
    assert result["evolved_persona"] == "Mira now trusts Ann a little."
    assert text_api.paths[-1] == "/completions"
    # A task's answer: the assistant's marker without a speaker's name.
    assert text_api.requests[-1]["prompt"].endswith("<|im_start|>assistant\n")


def test_continue_leaves_the_reply_open_and_impersonation_ends_on_the_players_turn():
    template = instruct_template_read(BUILT_IN["chatml"])
    messages = [{"role": "system", "content": "Story."}, {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Well, I"}]
    kept = instruct_prompt(messages, template=template, char_name="Mira", user_name="Ann",
                           continue_last=True)
    assert kept.text.endswith("<|im_start|>assistant\nMira: Well, I")
    asked = instruct_prompt(messages[:2], template=template, char_name="Mira", user_name="Ann",
                            ending="user")
    assert asked.text.endswith("<|im_end|>\n<|im_start|>user\nAnn:")
    assert "\nMira:" in asked.stop


def test_a_preset_file_named_by_the_environment_is_used(store, alice, text_api, settings,
                                                        tmp_path):
    preset = tmp_path / "My Model.json"
    preset.write_text(json.dumps({**ST_PRESET, "names": True}))
    settings.PERSONALAB_INSTRUCT_TEMPLATE = str(preset)
    english(store)
    turn(store, _mira(store, alice))
    prompt = text_api.requests[-1]["prompt"]
    assert "### HUMAN Ann:\nAnn: Who are you?" in prompt  # `names: true`: every message named
    assert prompt.endswith("### BOT (final):\nMira:")


def test_a_missing_preset_file_ends_the_turn_with_a_sentence(store, alice, text_api, settings,
                                                             tmp_path):
    settings.PERSONALAB_INSTRUCT_TEMPLATE = str(tmp_path / "gone.json")
    english(store)
    result = turn(store, _mira(store, alice))
    assert text_api.requests == []  # nothing half-built was sent
    assert "PERSONALAB_INSTRUCT_TEMPLATE: cannot read" in result.error
    assert "gone.json" in result.error


def test_in_a_group_the_speaker_is_named_once_and_others_keep_their_names():
    # A group prompt's user lines already carry "Name: " (the player's and other members'
    # lines); `force` names the speaking character, as SillyTavern does in group chats.
    messages = [{"role": "system", "content": "Scene."},
                {"role": "user", "content": "Ann: Hello both."},
                {"role": "user", "content": "Rook: Evening."},
                {"role": "assistant", "content": "Welcome."}]
    alpaca = instruct_template_read(BUILT_IN["alpaca"])
    grouped = instruct_prompt(messages, template=alpaca, char_name="Mira", user_name="Ann",
                              group=True)
    assert "### Instruction:\nAnn: Hello both.\n\n" in grouped.text
    assert "### Response:\nMira: Welcome.\n\n" in grouped.text
    assert grouped.text.endswith("### Response:\nMira:")
    alone = instruct_prompt(messages, template=alpaca, char_name="Mira", user_name="Ann")
    assert alone.text.endswith("### Response:\n") and "Mira: Welcome." not in alone.text
    chatml = instruct_prompt(messages, template=instruct_template_read(BUILT_IN["chatml"]),
                             char_name="Mira", user_name="Ann", group=True)
    assert "<|im_start|>user\nAnn: Hello both.<|im_end|>" in chatml.text
    assert "<|im_start|>user\nRook: Evening.<|im_end|>" in chatml.text
    assert "<|im_start|>assistant\nMira: Welcome.<|im_end|>" in chatml.text


def test_a_hostile_text_stream_is_cut_as_a_chat_stream_is(store, alice, text_api, settings):
    settings.PERSONALAB_LLM_MAX_LINE_BYTES = 1 << 20
    settings.PERSONALAB_LLM_IDLE_SECONDS = 0.5
    english(store)
    instance_id = _mira(store, alice)
    text_api.script(LongLine(5_000_000, before="I begin."))
    result = turn(store, instance_id)
    assert result.answer_text.startswith("I begin.")
    assert "without an end" in result.error
    text_api.script(Useless(5.0, before="Then "))
    result = turn(store, instance_id, "And?")
    assert result.answer_text.startswith("Then") and "PERSONALAB_LLM_IDLE_SECONDS" in result.error


def test_openais_own_api_gets_at_most_four_stop_sequences():
    # OpenAI's /v1/completions answers 400 to a fifth; the servers people run take them all.
    messages = [{"role": "system", "content": "Story."}, {"role": "user", "content": "Hi"}]
    context = {"character_name": "Mira", "user_name": "Ann", "generation": {"stop": ["END"]}}
    for base_url, count in (("https://api.openai.com/v1", 4), ("http://127.0.0.1:5001/v1", 6)):
        provider = provider_for(LLMSettings(base_url=base_url, api_key="k", model="m",
                                            completion_api="text", instruct_template="chatml"))
        assert len(provider._request(messages, context)["stop"]) == count


def test_the_first_reply_keeps_its_first_marker_after_the_alignment_line():
    # SillyTavern's first_output_sequence marks the chat's first message, a greeting here,
    # even when the user alignment message goes before it.
    template = instruct_template_read({**BUILT_IN["mistral"], "first_output_sequence": "[/INST]~"})
    messages = [{"role": "system", "content": "Story."},
                {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Hi"}]
    text = instruct_prompt(messages, template=template, char_name="Mira", user_name="Ann").text
    assert "provided above.[/INST]~Mira: Hello.</s>[INST] Ann: Hi[/INST] Mira:" in text


def test_a_first_sequence_is_the_chats_first_messages_not_the_windows_oldest():
    # SillyTavern's Alpaca-Single-Turn puts "<START OF CHAT>" before coreChat[0], the chat's
    # first message; once a long chat's window leaves it out, no message gets it.
    template = instruct_template_read({**BUILT_IN["alpaca"], "first_output_sequence": "<S>"})
    messages = [{"role": "system", "content": "Story."},
                {"role": "assistant", "content": "Later."}, {"role": "user", "content": "Hi"}]
    whole = instruct_prompt(messages, template=template, char_name="Mira", user_name="Ann")
    cut = prompt_for(messages, template=template, context={
        "character_name": "Mira", "user_name": "Ann", "chat_start_cut": True})
    assert "<S>\nLater." in whole.text
    assert "<S>" not in cut.text and "### Response:\nLater." in cut.text


def test_a_note_at_the_chats_start_takes_the_first_sequence_as_in_sillytavern():
    # A note at a depth the chat is too short for is spliced in as coreChat[0] by SillyTavern's
    # doChatInject; its formatInstructModeChat gives a narrator line the system markers, so
    # the first player sequence goes to no message and the player's first line gets its usual.
    template = instruct_template_read({**BUILT_IN["alpaca"], "first_input_sequence": "<F>"})
    messages = [{"role": "system", "content": "Story."}, {"role": "system", "content": "Note."},
                {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yes."},
                {"role": "user", "content": "Go"}]
    text = instruct_prompt(messages, template=template, char_name="Mira", user_name="Ann",
                           story_raw=True).text
    assert "<F>" not in text and "### Input:\nNote.\n\n### Instruction:\nHi\n" in text


def test_continue_sends_the_unfinished_reply_open_for_the_model(store, alice, text_api,
                                                                settings):
    settings.PERSONALAB_INSTRUCT_TEMPLATE = "chatml"
    english(store)
    instance_id = _mira(store, alice)
    text_api.script(Reply("I am Mira, and"), Reply(" I mend people."))
    turn(store, instance_id)
    result = turn(store, instance_id, "", continue_reply=True)
    prompt = text_api.requests[-1]["prompt"]
    assert prompt.endswith("<|im_start|>assistant\nMira: I am Mira, and")
    assert result.answer_text == "I am Mira, and I mend people."  # the space kept


def test_in_a_group_every_other_members_name_is_a_stop_string(store, alice, text_api,
                                                               settings):
    # SillyTavern stops a group member's reply where the model starts writing another
    # member's line ("\nName:"), as well as the player's.
    settings.PERSONALAB_INSTRUCT_TEMPLATE = "alpaca"
    english(store)
    instance_id = group_create(store, alice, CARD)
    text_api.script(Reply("Mira here."), Reply("Rook here."))
    group_turn(store, instance_id)
    mira, rook_sent = text_api.requests[-2:]
    assert mira["prompt"].endswith("Mira:") and rook_sent["prompt"].endswith("Rook:")
    assert "\nAnn:" in mira["stop"] and "\nRook:" in mira["stop"]
    assert "\nMira:" not in mira["stop"]
    assert "\nAnn:" in rook_sent["stop"] and "\nMira:" in rook_sent["stop"]
    assert "\nRook:" not in rook_sent["stop"]


def test_example_lines_split_into_turns_as_sillytaverns_parse():
    # SillyTavern's parseExampleIntoIndividual: a narration line before the first speaker's
    # line opens the first turn, and the speaker's next "Name:" line stays in its turn (only
    # the first "Name:" goes); an example without a speaker's line sends no turn.
    block = "*Mira looks up.*\nAnn: Hi?\nMira: Hello.\nMira: Sit."
    chatml = instruct_template_read(BUILT_IN["chatml"])
    text = instruct_examples([block, "Plain words."], template=chatml, user_name="Ann",
                             char_name="Mira", heading="")
    assert text == ("<|im_start|>user\nAnn: *Mira looks up.*\n Hi?<|im_end|>\n"
                    "<|im_start|>assistant\nMira: Hello.\nMira: Sit.<|im_end|>\n")


def test_a_group_line_fills_the_markers_name_with_its_speaker():
    # SillyTavern's ChatML-Names: `<|im_start|>[{{name}}]`, {{name}} the message's speaker. A
    # group prompt gives another member's line as a user line "Mira: …": its marker names Mira,
    # not the player; in a group's impersonation each member's line names its member.
    names_template = instruct_template_read({
        "name": "ChatML-Names", "input_sequence": "<|im_start|>[{{name}}]",
        "output_sequence": "<|im_start|>[{{name}}]", "system_sequence": "<|im_start|>system",
        "stop_sequence": "<|im_end|>", "wrap": True, "macro": True, "names_behavior": "none",
        "output_suffix": "<|im_end|>\n", "input_suffix": "<|im_end|>\n",
        "system_suffix": "<|im_end|>\n"})
    messages = [{"role": "system", "content": "Scene."},
                {"role": "user", "content": "Mira: Hold still."},
                {"role": "user", "content": "Ann: Hello both."},
                {"role": "assistant", "content": "Welcome."}]
    prompt = instruct_prompt(messages, template=names_template, char_name="Rook",
                             user_name="Ann", group=True, others=["Mira"]).text
    assert ("<|im_start|>[Mira]\nMira: Hold still.<|im_end|>\n"
            "<|im_start|>[Ann]\nAnn: Hello both.<|im_end|>\n"
            "<|im_start|>[Rook]\nWelcome.<|im_end|>\n<|im_start|>[Rook]\n") in prompt
    lines = [{"role": "assistant", "content": "Mira: Hold still."},
             {"role": "assistant", "content": "Rook: Welcome."}]
    impersonated = instruct_prompt(lines, template=names_template, char_name="Rook",
                                   user_name="Ann", group=True, others=["Mira"],
                                   ending="user").text
    assert impersonated.startswith("<|im_start|>[Mira]\nMira: Hold still.<|im_end|>\n"
                                   "<|im_start|>[Rook]\nRook: Welcome.<|im_end|>\n")


def test_a_groups_example_lines_are_named_once_whatever_the_template():
    # In a group SillyTavern 1.12.6's parseExampleIntoIndividual puts the speaker's name in
    # front of every example line, so a template with names "none" still shows who speaks;
    # "always" names them a second time there (`Rook: Rook: Hm.`), once here.
    chatml = instruct_template_read(BUILT_IN["chatml"])
    for behavior in ("none", "always"):
        template = replace(chatml, names_behavior=behavior)
        text = instruct_examples(["Ann: Hi?\nRook: Hm."], template=template, user_name="Ann",
                                 char_name="Rook", heading="", group=True)
        assert text == ("<|im_start|>user\nAnn: Hi?<|im_end|>\n"
                        "<|im_start|>assistant\nRook: Hm.<|im_end|>\n")
