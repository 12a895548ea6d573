"""Every card field does what it does in SillyTavern, seen through a real turn: the stub
server records what the model received."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.history_manager.edits import reply_choose_alternative
from chat.prompt.alternation import messages_alternate
from chat.prompt.examples import examples_parse
from chat.services.instances import instance_create
from chat.services.traces import trace_rebuild
from tests.library.card_turns import (
    SECRET_NOTE,
    card_turn_run,
    english_set,
    mira_card,
    mira_import,
)
from tests.pages.settings_form import SETTINGS_FORM
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _roles(messages: list[dict]) -> list[str]:
    return [m["role"] for m in messages]


def assert_alternates(messages: list[dict]) -> None:
    roles = _roles(messages)
    body = roles[1:] if roles and roles[0] == "system" else roles
    assert "system" not in body, roles
    assert body[0] == "user", roles
    assert all(a != b for a, b in zip(body, body[1:])), roles


def test_every_card_field_reaches_the_model_where_sillytavern_puts_it(store, alice,
                                                                             use_stub):
    english_set(store, main_prompt="Stay in character as {{char}}.",
                post_history="Never speak for {{user}}.")
    character_id = mira_import(store, mira_card(
        system_prompt="You are {{char}}, a medic. {{original}}",
        post_history_instructions="Answer in under 60 words. {{original}}",
        extensions={"depth_prompt": {"prompt": "Mira hides a limp.", "depth": 0,
                                     "role": "system"}}))
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    trace_id = card_turn_run(store, instance_id, "Who are you?")

    sent = use_stub.requests[-1]["messages"]
    system = sent[0]["content"]
    assert system.startswith("You are Mira, a medic. Stay in character as Mira.")
    # Personality and scenario in SillyTavern's Chat Completion wording.
    order = ["A field medic in a drowned city.",
             "=== Personality ===\n[Mira's personality: calm, dry humour]",
             ("=== Scenario ===\n[Circumstances and context of the dialogue: Ann wakes in her "
              "clinic.]")]
    positions = [system.index(text) for text in order]
    assert positions == sorted(positions)
    assert "{{" not in system
    assert "<START>" not in json.dumps(sent)
    assert SECRET_NOTE not in json.dumps(sent)
    # Then each example dialogue as its own messages, SillyTavern's line before each.
    assert sent[1:7] == [
        {"role": "system", "content": "[Example Chat]"},
        {"role": "system", "content": "Does it hurt?", "name": "example_user"},
        {"role": "system", "content": "Only when you talk.", "name": "example_assistant"},
        {"role": "system", "content": "[Example Chat]"},
        {"role": "system", "content": "Where are we?", "name": "example_user"},
        {"role": "system", "content": "Above the water, for now.", "name": "example_assistant"}]
    # After the history: the user's words, then the depth-0 Character's Note and the
    # post-history instructions, each with its own role (prompt post-processing "none").
    # SillyTavern's line before the chat, then the greeting.
    at = sent.index({"role": "system", "content": "[Start a new Chat]"})
    assert sent[at + 1] == {"role": "assistant", "content": "Hold still, Ann."}
    assert sent[-3:] == [
        {"role": "user", "content": "Who are you?"},
        {"role": "system", "content": "Mira hides a limp."},
        {"role": "system", "content": "Answer in under 60 words. Never speak for Ann."}]

    trace = trace_rebuild(store, instance_id=instance_id, trace_id=trace_id)
    assert trace["messages"] == sent
    fields = trace["card_fields"]
    assert fields["system_prompt"].startswith("replaces the main prompt")
    assert fields["post_history_instructions"].startswith("after the history")
    assert fields["mes_example"] == "mes_example: 2 of 2 blocks kept"
    assert fields["depth_prompt"] == "depth 0, role system"
    assert fields["creator_notes"] == "shown to the player, never sent"
    assert fields["personality"] == "section personality"


def test_example_dialogues_go_before_the_conversation_is_cut(store, alice, use_stub):
    english_set(store)
    blocks = [f"{{{{user}}}}: question {n}\n{{{{char}}}}: " + "answer words " * 60
              for n in range(1, 5)]
    character_id = mira_import(
        store, mira_card(mes_example="".join(f"<START>\n{b}\n" for b in blocks)))
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    config = store.config_read()
    config["limits"]["max_total_tokens"] = 400
    store.config_write(config)
    for text in ("first", "second", "third"):
        trace_id = card_turn_run(store, instance_id, text)

    sent = use_stub.requests[-1]["messages"]
    said = [m["content"] for m in sent if m["role"] == "user"]
    assert said == ["first", "second", "third"]  # the whole conversation is there
    trace = store.trace_read(instance_id, trace_id)
    assert "refused" not in trace and trace["total_tokens"] <= 400
    examples = next(s for s in trace["sections"] if s["name"] == "examples")
    assert examples["cut"] and 0 < 4 - examples["omitted"] < 4
    examples = [m["content"] for m in sent if m.get("name") == "example_user"]
    assert "question 1" in examples and "question 4" not in examples


def test_alternate_greetings_are_swipes_of_the_first_message(store, alice, use_stub):
    english_set(store)
    character_id = mira_import(store, mira_card(
        first_mes="Hold still, {{user}}.",
        alternate_greetings=["You're awake, {{user}}.", "The water rose again."]))
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    greeting = store.session_read(instance_id, "sess_001").lines[0]
    assert greeting["content"] == "Hold still, {{user}}."  # files keep the text as written
    assert [a["content"] for a in greeting["alternatives"]] == [
        "You're awake, {{user}}.", "The water rose again."]

    reply_choose_alternative(store, instance_id=instance_id, session_id="sess_001", turn=0,
                             alternative_index=1)
    card_turn_run(store, instance_id, "What happened?")
    sent = use_stub.requests[-1]["messages"]
    at = sent.index({"role": "system", "content": "[Start a new Chat]"})
    assert sent[at + 1] == {"role": "assistant", "content": "The water rose again."}


def test_lore_at_a_depth_never_makes_two_user_messages_in_a_row(store, instance,
                                                                      use_stub):
    store.module_write("llm", {"prompt_processing": "strict"})  # for strict chat templates
    store.memory_json_write(instance, "authors_note",
                            {"text": "Keep it tense.", "depth": 1, "role": "user"})
    use_stub.script(Reply("one"), Reply("two"))
    card_turn_run(store, instance, "first")
    card_turn_run(store, instance, "second")
    sent = use_stub.requests[-1]["messages"]
    assert_alternates(sent)
    assert sent[-2:] == [{"role": "assistant", "content": "one"},
                         {"role": "user", "content": "Keep it tense.\n\nsecond"}]


def test_strict_post_processing_folds_notes_into_the_users_turn(store, alice, use_stub):
    store.module_write("llm", {"prompt_processing": "strict"})
    english_set(store, post_history="Never speak for {{user}}.")
    character_id = mira_import(store, mira_card(extensions={"depth_prompt": {
        "prompt": "Mira hides a limp.", "depth": 0, "role": "system"}}))
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    card_turn_run(store, instance_id, "Who are you?")
    sent = use_stub.requests[-1]["messages"]
    assert sent[1] == {"role": "user", "content": "[Start a new chat]"}
    assert_alternates(sent)
    last = sent[-1]["content"]
    assert last.startswith("Who are you?")
    assert last.index("Mira hides a limp.") < last.index("Never speak for Ann.")


def test_merge_post_processing_joins_neighbours_and_keeps_roles(store, alice, use_stub):
    store.module_write("llm", {"prompt_processing": "merge"})
    english_set(store, post_history="Never speak for {{user}}.")
    character_id = mira_import(store, mira_card(extensions={"depth_prompt": {
        "prompt": "Mira hides a limp.", "depth": 0, "role": "system"}}))
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    card_turn_run(store, instance_id, "Who are you?")
    sent = use_stub.requests[-1]["messages"]
    assert sent[-2] == {"role": "user", "content": "Who are you?"}
    assert sent[-1]["role"] == "system"
    assert sent[-1]["content"].index("Mira hides a limp.") < sent[-1]["content"].index(
        "Never speak for Ann.")
    roles = _roles(sent)
    assert all(a != b for a, b in zip(roles, roles[1:]))


@pytest.mark.parametrize("text, blocks", [
    ("", []),
    ("<START>\nA: hi\nB: yo", ["A: hi\nB: yo"]),
    ("lead\n<start>\none\n<START>\n\n<START>\ntwo", ["lead", "one", "two"]),
    ("no marker at all", ["no marker at all"]),
])
def test_example_text_is_split_on_start_lines(text, blocks):
    assert examples_parse(text) == blocks


@pytest.mark.parametrize("roles, expected", [
    (["system", "assistant", "user"], ["system", "user", "assistant", "user"]),
    (["system", "system", "user", "user", "assistant", "system", "user"],
     ["system", "user", "assistant", "user"]),
    (["user", "assistant", "assistant", "system"], ["user", "assistant", "user"]),
    (["system", "user", "assistant"], ["system", "user", "assistant"]),
])
def test_messages_are_merged_into_alternating_roles(roles, expected):
    messages = [{"role": role, "content": f"{role}{n}"} for n, role in enumerate(roles)]
    result = messages_alternate(messages, opening="[Start]")
    assert _roles(result) == expected
    joined = "\n\n".join(m["content"] for m in result)
    assert all(m["content"] in joined for m in messages)


def test_creator_notes_are_shown_on_the_chat_page(store, alice, alice_client):
    character_id = mira_import(store, mira_card())
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    page = alice_client.get(f"/instances/{instance_id}/").content.decode()
    assert 'data-testid="creator-notes"' in page and "Creator&#x27;s note: tested" in page
    # in 中文 it read 作者注释, the name of the author's note card further down the same drawer
    zh = alice_client.get(f"/instances/{instance_id}/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    notes = zh.content.decode().split('data-testid="creator-notes"><summary>', 1)[1]
    assert notes.split("</summary>", 1)[0] == "创作者备注"


def test_a_cards_upload_names_the_lorebook_it_came_with(alice_client):
    """The page said only "Imported mira.json.": a SillyTavern player, asked there whether to
    import a card's embedded book, went looking for it."""
    book = {"name": "Drowned City", "entries": [
        {"id": n, "keys": [key], "content": key, "enabled": True, "insertion_order": 100,
         "extensions": {}} for n, key in enumerate(("clinic", "tide"))]}
    upload = json.dumps(mira_card(character_book=book)).encode()
    page = alice_client.post("/library/cards/upload", {"file": SimpleUploadedFile(
        "mira.json", upload, content_type="application/json")}, follow=True).content.decode()
    assert "Imported mira.json." in page
    assert "Lorebook linked to this character: “Drowned City” (2 entries)." in page
    zh = alice_client.post("/library/cards/upload", {"file": SimpleUploadedFile(
        "mira.json", upload, content_type="application/json")}, follow=True,
        HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "已关联到这个角色的世界书：“Drowned City”（2 个条目）。" in zh


def test_the_prompt_inspector_says_where_each_card_field_went(store, alice, alice_client,
                                                              use_stub):
    english_set(store)
    character_id = mira_import(store, mira_card(post_history_instructions="Stay brief."))
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    trace_id = card_turn_run(store, instance_id, "Hi")
    page = alice_client.get(f"/traces/{trace_id}/").content.decode()
    assert 'id="card-fields"' in page
    assert "post_history_instructions</td><td>after the history" in page
    assert "creator_notes</td><td>shown to the player, never sent" in page
    # no background, no outline: the director's row read "Outline point 1 · turns without
    # progress 0 / 3" over "No valid marker (no outline)"
    assert "Outline point" not in page and "The director added nothing" in page


def test_the_settings_page_sets_the_prompt_post_processing(client, django_user_model, store):
    staff = django_user_model.objects.create_superuser("root", "", "pw-123456")
    client.force_login(staff)
    page = client.get("/settings/").content.decode()
    assert 'name="llm.prompt_processing"' in page and '<option value="none" selected>' in page
    response = client.post("/settings/", {**SETTINGS_FORM, "llm.prompt_processing": "strict"})
    assert response.status_code == 302
    assert store.module_read("llm")["prompt_processing"] == "strict"
