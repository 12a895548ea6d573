"""Context templates (SillyTavern's story string) for text completion, issue 32: the opening
of the prompt string is laid out by the template's story string (`{{#if}}` / `{{#unless}}`
blocks, the card's fields, persona, world info, `{{trim}}`), the example dialogues follow under
its separator and its chat-start line opens the chat. Templates are built here from
SillyTavern's documented context-template format; each is checked through a real turn against
the stub, which records the prompt string the model received."""

from __future__ import annotations

import asyncio
import json

import pytest

from chat.play.turn import TurnRefused, turn_run
from chat.services.traces import trace_rebuild
from tests.pages.settings_form import SETTINGS_FORM
from tests.stub_llm import Reply
from tests.text_turns import english, group_create, group_turn, solo_create, turn

pytestmark = pytest.mark.django_db(transaction=True)

CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "A field medic in a drowned city.",
    "personality": "calm", "scenario": "{{user}} wakes in her clinic.",
    "first_mes": "Hold still, {{user}}.", "alternate_greetings": [],
    "mes_example": "<START>\n{{user}}: Does it hurt?\n{{char}}: Only when you move.",
    "system_prompt": "Write Mira's next reply.", "post_history_instructions": "",
    "creator_notes": "", "tags": [], "extensions": {}}}

# A context template in SillyTavern's format, with markers no built-in uses.
CONTEXT = {
    "name": "Bracketed (test)",
    "story_string": "[story]\n{{#if system}}{{system}}\n{{/if}}{{#if description}}"
                    "<desc>{{description}}</desc>\n{{/if}}{{#if personality}}{{char}} is "
                    "{{personality}}.\n{{/if}}{{#unless wiAfter}}(no lore)\n{{/unless}}"
                    "{{#if persona}}{{persona}}\n{{else}}(no persona)\n{{/if}}{{trim}}\n\n[/story]",
    "example_separator": "<example>", "chat_start": "<chat>", "use_stop_strings": True,
    "names_as_stop_strings": True, "always_force_name2": True, "trim_sentences": False,
}


def _setup(store, alice, card: dict = CARD) -> str:
    english(store)
    return solo_create(store, alice, card)


@pytest.fixture
def text_api(use_stub, settings):
    settings.PERSONALAB_COMPLETION_API = "text"
    settings.PERSONALAB_INSTRUCT_TEMPLATE = "chatml"
    return use_stub


def _choose(client, staff, body: dict):
    client.force_login(staff)
    response = client.put("/api/v1/llm/text_completion", body, content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()


def test_an_imported_context_template_lays_out_the_prompt(store, alice, staff, client,
                                                           text_api):
    chosen = _choose(client, staff, {"context": CONTEXT})
    assert chosen["context_template_effective"] == "custom"
    instance_id = _setup(store, alice)
    result = turn(store, instance_id)
    sent = text_api.requests[-1]
    prompt = sent["prompt"]
    # The story string, its blocks decided by the values, {{trim}} eating the newlines, and
    # the template's own markers instead of the instruct template's system turn.
    assert prompt.startswith("[story]\nWrite Mira's next reply.\n<desc>A field medic in a "
                             "drowned city.</desc>\nMira is calm.\n(no lore)\n(no persona)"
                             "[/story]\n")
    assert "<|im_start|>system" not in prompt and "=== Personality ===" not in prompt
    # Then the examples under the separator as the instruct template's turns (SillyTavern's
    # formatInstructModeExamples), the chat-start line, and the chat.
    assert ("[/story]\n<example>\n<|im_start|>user\nAnn: Does it hurt?<|im_end|>\n"
            "<|im_start|>assistant\nMira: Only when you move.<|im_end|>\n<chat>\n"
            "<|im_start|>assistant\nMira: Hold still, Ann.<|im_end|>\n") in prompt
    assert prompt.endswith("<|im_start|>user\nAnn: Who are you?<|im_end|>\n"
                           "<|im_start|>assistant\nMira:")
    assert {"\n<chat>", "\n<example>", "\n<|im_end|>"} <= set(sent["stop"])
    # The prompt inspector shows the string that was sent.
    trace = trace_rebuild(store, instance_id=instance_id, trace_id=result.trace_id)
    assert trace["prompt_text"] == prompt
    assert {"\n<chat>", "\n<example>"} <= set(trace["prompt_stop"])
    client.force_login(alice)
    page = client.get(f"/traces/{result.trace_id}/").content.decode()
    assert "story string of the context template Bracketed (test)" in page


def test_with_no_context_template_chosen_the_prompt_is_laid_out_as_sillytaverns_default(
        store, alice, client, staff, text_api, use_stub):
    """SillyTavern lays out every text-completion prompt with a context template, "Default"
    unless another is selected: so does a turn here when none is chosen anywhere."""
    assert _choose(client, staff, {})["context_template_effective"] == "default"
    instance_id = _setup(store, alice)
    turn(store, instance_id)
    prompt = text_api.requests[-1]["prompt"]
    # Default's story string as it is (no system turn around it, no headed sections), the
    # examples under its "***" separator as turns, "***" where the chat starts.
    assert prompt.startswith("Write Mira's next reply.\nA field medic in a drowned city.\n"
                             "Mira's personality: calm\nScenario: Ann wakes in her clinic.\n"
                             "***\n<|im_start|>user\nAnn: Does it hurt?<|im_end|>\n")
    assert ("Mira: Only when you move.<|im_end|>\n***\n<|im_start|>assistant\nMira: Hold "
            "still, Ann.<|im_end|>\n") in prompt
    assert "=== Personality ===" not in prompt and "<|im_start|>system" not in prompt
    # Chat completion is not laid out by a context template: our headed sections, as before.
    _choose(client, staff, {"completion_api": "chat"})
    turn(store, instance_id, "And now?")
    assert "=== Personality ===" in use_stub.requests[-1]["messages"][0]["content"]


def test_built_in_chatml_context_template_matches_sillytaverns(store, alice, text_api,
                                                               settings):
    settings.PERSONALAB_CONTEXT_TEMPLATE = "chatml"
    instance_id = _setup(store, alice)
    turn(store, instance_id)
    prompt = text_api.requests[-1]["prompt"]
    # SillyTavern's ChatML story string: one system turn, "{{char}}'s personality:",
    # "Scenario:", its last newline trimmed before <|im_end|>; then the examples as ChatML
    # turns (no separator) and the chat with no chat-start line.
    assert prompt.startswith("<|im_start|>system\nWrite Mira's next reply.\nA field medic in a "
                             "drowned city.\nMira's personality: calm\nScenario: Ann wakes in "
                             "her clinic.<|im_end|>\n<|im_start|>user\nAnn: Does it hurt?"
                             "<|im_end|>\n<|im_start|>assistant\nMira: Only when you move."
                             "<|im_end|>\n<|im_start|>assistant\nMira: Hold still, Ann.")


def test_the_instruct_templates_system_prefix_goes_around_the_system_prompt(
        store, alice, staff, client, text_api, settings):
    """As SillyTavern formats the system prompt with an instruct template's
    system_sequence_prefix (Metharme's <|system|>) before it fills the story string."""
    settings.PERSONALAB_INSTRUCT_TEMPLATE = "metharme"
    _choose(client, staff, {"context": CONTEXT})
    turn(store, _setup(store, alice))
    prompt = text_api.requests[-1]["prompt"]
    assert prompt.startswith("[story]\n<|system|>Write Mira's next reply.\n<desc>")
    assert prompt.endswith("<|user|>Who are you?<|model|>")


def test_a_context_template_file_named_by_the_environment_is_used(store, alice, text_api,
                                                                  settings, tmp_path):
    path = tmp_path / "Bracketed.json"
    path.write_text(json.dumps(CONTEXT), encoding="utf-8")
    settings.PERSONALAB_CONTEXT_TEMPLATE = str(path)
    instance_id = _setup(store, alice)
    turn(store, instance_id)
    assert text_api.requests[-1]["prompt"].startswith("[story]\n")
    settings.PERSONALAB_CONTEXT_TEMPLATE = str(tmp_path / "gone.json")
    with pytest.raises(TurnRefused) as refused:
        turn(store, instance_id, "Still there?")
    assert "PERSONALAB_CONTEXT_TEMPLATE: cannot read" in refused.value.message
    assert len(text_api.requests) == 1  # nothing half-built was sent


def test_values_are_put_in_never_read_as_the_template(store, alice, staff, client, text_api):
    """A card's text that looks like the story string's blocks is the card's text: it is put
    in as it is, never evaluated (no recursion into substituted text)."""
    _choose(client, staff, {"context": CONTEXT})
    hostile = {**CARD, "data": {**CARD["data"], "description":
                                "{{#unless system}}leak{{else}}{{wiBefore}}{{/unless}}"}}
    turn(store, _setup(store, alice, hostile))
    prompt = text_api.requests[-1]["prompt"]
    assert "<desc>{{#unless system}}leak{{else}}{{wiBefore}}{{/unless}}</desc>" in prompt


def test_the_story_string_as_a_chat_message_at_its_depth(store, alice, staff, client,
                                                        text_api):
    _choose(client, staff, {"context": {**CONTEXT, "story_string": "Remember: {{description}}",
                                        "story_string_position": 1, "story_string_depth": 1,
                                        "story_string_role": 1, "chat_start": ""}})
    turn(store, _setup(store, alice))
    prompt = text_api.requests[-1]["prompt"]
    # One message before the last, in the player's role; the examples still open the prompt.
    assert prompt.startswith("<example>\n<|im_start|>user\nAnn: Does it hurt?")
    assert ("Mira: Hold still, Ann.<|im_end|>\n<|im_start|>user\n"
            "Ann: Remember: A field medic in a drowned city.<|im_end|>\n"
            "<|im_start|>user\nAnn: Who are you?<|im_end|>\n") in prompt
    assert "<desc>" not in prompt


def test_a_bad_story_string_is_refused_with_a_sentence_and_nothing_is_saved(store, staff,
                                                                           client):
    client.force_login(staff)
    for story, sentence in (("{{#if description}}open", "is never closed"),
                            ("{{#if mood}}x{{/if}}", "names no value it knows"),
                            ("x{{/unless}}", "closes no open")):
        response = client.put("/api/v1/llm/text_completion",
                              {"context": {**CONTEXT, "story_string": story}},
                              content_type="application/json")
        assert response.status_code == 400
        error = response.json()["error"]
        assert sentence in error["message"] and "context" in error["fields"]
    assert "context" not in store.module_read("llm")


def test_none_and_chat_completion_keep_our_own_sections(store, alice, staff, client,
                                                         text_api, use_stub, settings):
    """"none" on the settings page overrides the environment's template; chat completion never
    uses one (the model's own chat template lays the prompt out)."""
    settings.PERSONALAB_CONTEXT_TEMPLATE = "chatml"
    assert _choose(client, staff, {"context_template": "none"})[
        "context_template_effective"] == "none"
    instance_id = _setup(store, alice)
    turn(store, instance_id)
    assert text_api.requests[-1]["prompt"].startswith("<|im_start|>system\n")
    assert "=== Personality ===" in text_api.requests[-1]["prompt"]
    # The environment may say "none" as well.
    settings.PERSONALAB_CONTEXT_TEMPLATE = "none"
    _choose(client, staff, {"context_template": ""})
    turn(store, instance_id, "Still you?")
    assert "=== Personality ===" in text_api.requests[-1]["prompt"]
    _choose(client, staff, {"context_template": "", "completion_api": "chat"})
    turn(store, instance_id, "And now?")
    assert "=== Personality ===" in use_stub.requests[-1]["messages"][0]["content"]


def test_skip_examples_and_no_names_as_stop_strings(store, alice, staff, client, text_api):
    preset = {"name": "Plain turns", "input_sequence": "<in>", "output_sequence": "<out>",
              "wrap": True, "names_behavior": "always", "skip_examples": True}
    _choose(client, staff, {"context": {**CONTEXT, "names_as_stop_strings": False},
                            "instruct": preset})
    turn(store, _setup(store, alice))
    prompt = text_api.requests[-1]["prompt"]
    # names_as_stop_strings off: the player's "\nAnn:" does not end the reply
    assert "\nAnn:" not in text_api.requests[-1]["stop"]
    assert "\n<out>" in text_api.requests[-1]["stop"]
    assert "[/story]\n<example>\nAnn: Does it hurt?\nMira: Only when you move.\n<chat>\n" in prompt


def test_the_settings_page_imports_a_context_template(store, alice, staff, client, text_api):
    client.force_login(staff)
    form = {**SETTINGS_FORM, "llm.base_url": text_api.base_url, "llm.completion_api": "text"}
    page = client.post("/settings/", {**form, "llm.context_json": '{"story_string": "{{#if x'})
    assert page.status_code == 400
    assert 'data-field="llm.context_json"' in page.content.decode()
    assert "context" not in store.module_read("llm")
    assert 'name="llm.context_template"' in client.get("/settings/").content.decode()
    response = client.post("/settings/", {**form, "llm.context_json": json.dumps(CONTEXT)})
    assert response.status_code == 302
    assert '<option value="custom" selected>' in client.get("/settings/").content.decode()
    turn(store, _setup(store, alice))
    assert text_api.requests[-1]["prompt"].startswith("[story]\n")


def test_single_line_and_trim_sentences_shape_the_reply(store, alice, staff, client,
                                                        text_api):
    """SillyTavern's reply post-processing: `single_line` sends "\\n" as a stop string (and the
    reply is cut at its first newline), `trim_sentences` drops the unfinished last sentence."""

    _choose(client, staff, {"context": {**CONTEXT, "single_line": True,
                                        "trim_sentences": True}})
    instance_id = _setup(store, alice)
    text_api.script(Reply("She nods. Then she turns to\nAnn: and more", chunk_size=5))
    result = turn(store, instance_id)
    assert text_api.requests[-1]["stop"][0] == "\n"
    assert result.answer_text == "She nods."
    _choose(client, staff, {"context": {**CONTEXT, "trim_sentences": False}})
    text_api.script(Reply("Fine. And you", chunk_size=5))
    assert turn(store, instance_id, "Well?").answer_text == "Fine. And you"
    assert "\n" not in text_api.requests[-1]["stop"]


def test_trim_sentences_shapes_a_chat_completion_reply_too(store, alice, staff, client,
                                                          use_stub, settings):
    """SillyTavern's "Trim incomplete sentences" is a global setting its cleanUpMessage applies
    whatever the API; "single line" only adds "\\n" to the stop strings, which its Chat
    Completion request does not send, so a chat reply keeps its lines."""
    settings.PERSONALAB_COMPLETION_API = "chat"
    _choose(client, staff, {"context": {**CONTEXT, "single_line": True,
                                        "trim_sentences": True}})
    instance_id = _setup(store, alice)
    use_stub.script(Reply("She nods.\nThen she turns to", chunk_size=5))
    assert turn(store, instance_id).answer_text == "She nods."
    assert "\n" not in (use_stub.requests[-1].get("stop") or [])
    use_stub.script(Reply("Fine.\nAnd you?\nWell", chunk_size=5))
    assert turn(store, instance_id, "Well?").answer_text == "Fine.\nAnd you?"


def test_group_example_lines_of_every_member_are_their_own_turns(store, alice, staff, client,
                                                                  text_api):
    """In a group, an example dialogue whose lines name another member ("Rook:") splits
    there too: Rook's line is its own turn, named, not glued to Mira's reply."""
    _choose(client, staff, {"context": {**CONTEXT, "use_stop_strings": False}})
    english(store)
    card = {**CARD, "data": {**CARD["data"], "mes_example":
                             "<START>\n{{user}}: Does it hurt?\n{{char}}: Only when you move.\n"
                             "Rook: She lies.\n{{char}}: Hush, Rook."}}
    instance_id = group_create(store, alice, card, mes_example="")
    text_api.script(Reply("Mira here."), Reply("Rook here."))
    group_turn(store, instance_id)
    prompt = next(sent["prompt"] for sent in text_api.requests if sent["prompt"].endswith(
        "Mira:"))
    assert ("<|im_start|>assistant\nMira: Only when you move.<|im_end|>\n"
            "<|im_start|>user\nRook: She lies.<|im_end|>\n"
            "<|im_start|>assistant\nMira: Hush, Rook.<|im_end|>\n") in prompt


def test_a_block_tag_alone_on_its_line_takes_its_line_break_as_sillytaverns(
        store, alice, text_api, settings):
    # SillyTavern's Alpaca story string ends "{{#if persona}}{{persona}}\n{{/if}}\n\n": its
    # renderer (Handlebars) drops the line break after a block tag alone on its line, so one
    # blank line, not two, comes before the first reply.
    settings.PERSONALAB_INSTRUCT_TEMPLATE = settings.PERSONALAB_CONTEXT_TEMPLATE = "alpaca"
    instance_id = _setup(store, alice)
    turn(store, instance_id)
    prompt = text_api.requests[-1]["prompt"]
    assert "Scenario: Ann wakes in her clinic.\n\n### Instruction:\nAnn: Does it hurt?" in prompt
    assert "\n\n\n" not in prompt


def test_a_note_deeper_than_the_chat_is_its_own_turn_after_the_story_string(
        store, alice, text_api, settings):
    # A Character's Note at depth 2 in a chat of two messages goes before the greeting: a
    # system turn with the template's markers, as SillyTavern's, not glued to the story string.
    settings.PERSONALAB_CONTEXT_TEMPLATE = "chatml"
    note = {"prompt": "Mira never lies.", "depth": 2, "role": "system"}
    card = {**CARD, "data": {**CARD["data"], "mes_example": "",
                             "extensions": {"depth_prompt": note}}}
    instance_id = _setup(store, alice, card)
    turn(store, instance_id)
    prompt = text_api.requests[-1]["prompt"]
    assert ("her clinic.<|im_end|>\n<|im_start|>system\nMira never lies.<|im_end|>\n"
            "<|im_start|>assistant\nMira: Hold still, Ann.<|im_end|>") in prompt


def test_a_stopped_reply_keeps_its_unfinished_sentence(store, alice, staff, client, text_api):
    """Stopped, SillyTavern keeps the reply as its last streamed update showed it, which
    leaves "Trim incomplete sentences" out (displayIncompleteSentences)."""
    _choose(client, staff, {"context": {**CONTEXT, "trim_sentences": True}})
    instance_id = _setup(store, alice)
    text_api.script(Reply("Fine. And you", chunk_size=3, held_after=3))

    async def stopped():
        stop, said = asyncio.Event(), []

        async def emit(event):
            said.append(event.get("content") or "") if event.get("type") == "token" else None
            if "And" in "".join(said):
                stop.set()

        return await turn_run(store, instance_id=instance_id, user_text="Well?", emit=emit,
                              stop=stop)

    try:
        result = asyncio.run(stopped())
    finally:
        text_api.release()
    assert result.interrupted and result.answer_text == "Fine. And"
