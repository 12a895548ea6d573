"""SillyTavern's utility prompts in a Chat Completion request, seen through real turns against
the stub (which records what the model received): "[Start a new Chat]" before the history (a
group's "[Start a new group chat. Group members: ...]"), "[Example Chat]" before each example
dialogue, and on Continue the reply so far, the depth-0 notes, then the continue nudge naming
it, then the post-history instructions (or, with continue_prefill, the reply so far last).
A preset's own lines replace them, and export writes them back. The preset is written here
from SillyTavern's documented format."""

from __future__ import annotations

import pytest

from chat.models import ApiToken
from personalab.lib.prompt_manager import prompt_blocks_from_st_preset, st_preset_prompts
from tests.stub_llm import Reply
from tests.text_turns import english, group_create, group_turn, solo_create, turn, utility_set

pytestmark = pytest.mark.django_db(transaction=True)

NUDGE = ("[Continue the following message. Do not include ANY parts of the original message. "
         "Use capitalization and punctuation as if your reply is a part of the original "
         "message: {}]")
CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "A field medic.", "personality": "calm",
    "scenario": "A clinic.", "first_mes": "Hold still, {{user}}.", "alternate_greetings": [],
    "mes_example": "<START>\n{{user}}: Does it hurt?\n{{char}}: Only when you talk.\n"
                   "<START>\n{{user}}: Where are we?\n{{char}}: Above the water.",
    "system_prompt": "", "post_history_instructions": "Stay terse.", "tags": [],
    "extensions": {}}}


def _auth(user) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}


def _note(store, instance_id: str) -> None:
    store.memory_json_write(instance_id, "authors_note",
                            {"text": "Keep it tense.", "depth": 0, "role": "system"})


def test_the_chat_history_starts_with_sillytaverns_new_chat_line(store, alice, use_stub):
    english(store)
    instance_id = solo_create(store, alice, CARD)
    turn(store, instance_id)
    sent = use_stub.requests[-1]["messages"]
    at = sent.index({"role": "system", "content": "[Start a new Chat]"})
    assert sent[at + 1] == {"role": "assistant", "content": "Hold still, Ann."}
    # Each example dialogue is opened by SillyTavern's line (its turns: tests/chat/
    # test_chat_examples_sent.py), before the history.
    assert [m["content"] for m in sent[:at]].count("[Example Chat]") == 2
    trace = store.trace_read(instance_id, turn(store, instance_id, "Again.").trace_id)
    assert {"name": "new_chat", "text": "[Start a new Chat]"}.items() <= next(
        s for s in trace["sections"] if s["name"] == "new_chat").items()
    assert trace["messages"][at]["content"] == "[Start a new Chat]"


def test_a_group_chat_names_its_members_in_its_new_chat_line(store, alice, use_stub):
    english(store)
    instance_id = group_create(store, alice, CARD)
    group_turn(store, instance_id)
    sent = use_stub.requests[-1]["messages"]
    assert {"role": "system",
            "content": "[Start a new group chat. Group members: Mira, Rook]"} in sent


def test_continue_sends_the_reply_so_far_its_notes_then_the_nudge(store, alice, use_stub):
    english(store)
    instance_id = solo_create(store, alice, CARD)
    _note(store, instance_id)
    use_stub.script(Reply("I am Mira, and"), Reply("I mend people."))
    turn(store, instance_id)
    result = turn(store, instance_id, "", continue_reply=True)
    sent = use_stub.requests[-1]["messages"]
    assert sent[-5:] == [
        {"role": "user", "content": "Who are you?"},
        {"role": "assistant", "content": "I am Mira, and"},
        {"role": "system", "content": "Keep it tense."},
        {"role": "system", "content": NUDGE.format("I am Mira, and")},
        {"role": "system", "content": "Stay terse."}]
    # SillyTavern's continue_postfix (a space) joins the reply so far and the model's answer
    assert result.answer_text == "I am Mira, and I mend people."


def test_continue_joins_with_a_space_but_not_after_chinese_text(store, alice, use_stub):
    english(store)
    instance_id = solo_create(store, alice, CARD)
    use_stub.script(Reply("She paused."), Reply("Then she left."), Reply("她停下了。"),
                    Reply("然后离开。"))
    turn(store, instance_id)
    assert turn(store, instance_id, "", continue_reply=True).answer_text == (
        "She paused. Then she left.")
    turn(store, instance_id, "然后呢？")
    assert turn(store, instance_id, "", continue_reply=True).answer_text == "她停下了。然后离开。"


def test_continue_prefill_sends_the_reply_so_far_last_without_a_nudge(store, alice, use_stub):
    english(store)
    instance_id = solo_create(store, alice, CARD)
    utility_set(store, instance_id, continue_prefill=True)
    use_stub.script(Reply("I am Mira, and"), Reply(" I mend people."))
    turn(store, instance_id)
    turn(store, instance_id, "", continue_reply=True)
    sent = use_stub.requests[-1]["messages"]
    assert sent[-3:] == [{"role": "user", "content": "Who are you?"},
                         {"role": "system", "content": "Stay terse."},
                         {"role": "assistant", "content": "I am Mira, and"}]
    assert not any("Continue the following" in m["content"] for m in sent)


def test_a_presets_utility_prompts_are_sent_and_exported_back(store, alice, client, use_stub):
    english(store)
    instance_id = solo_create(store, alice, CARD)
    preset = {"prompts": [{"identifier": "main", "name": "Main Prompt", "role": "system",
                           "content": "Write {{char}}'s reply.", "system_prompt": True}],
              "new_chat_prompt": "[A new story with {{user}}]", "new_example_chat_prompt": "",
              "continue_nudge_prompt": "[Go on: {{lastChatMessage}}]"}
    answer = client.post(f"/api/v1/instances/{instance_id}/generation/preset", preset,
                         content_type="application/json", **_auth(alice))
    assert answer.status_code == 200, answer.content
    manager = client.get(f"/api/v1/instances/{instance_id}/prompt_manager",
                         **_auth(alice)).json()
    assert manager["utility"]["new_chat_prompt"] == "[A new story with {{user}}]"
    assert "new_chat_prompt" not in {item["name"] for item in manager["skipped"]}
    use_stub.script(Reply("I am Mira, and"), Reply(" more."))
    turn(store, instance_id)
    sent = use_stub.requests[-1]["messages"]
    assert {"role": "system", "content": "[A new story with Ann]"} in sent
    assert not any("[Example Chat]" in m["content"] for m in sent)  # emptied: none sent
    turn(store, instance_id, "", continue_reply=True)
    assert {"role": "system", "content": "[Go on: I am Mira, and]"} in \
        use_stub.requests[-1]["messages"]
    exported = client.get(f"/api/v1/instances/{instance_id}/generation/preset",
                          **_auth(alice)).json()
    assert exported["new_chat_prompt"] == "[A new story with {{user}}]"
    assert exported["new_group_chat_prompt"] == \
        "[Start a new group chat. Group members: {{group}}]"  # SillyTavern's default
    assert exported["continue_prefill"] is False


def test_an_absolute_prompt_is_exported_where_the_preset_had_it():
    """SillyTavern places an absolute-position prompt by its depth wherever it sits in the
    order; export keeps it where its author put it (here last, after the post-history)."""
    preset = {"prompts": [
        {"identifier": "main", "name": "Main", "role": "system", "content": "M",
         "system_prompt": True},
        {"identifier": "jailbreak", "name": "Post", "role": "system", "content": "P",
         "system_prompt": True},
        {"identifier": "deep", "name": "Deep", "role": "assistant", "content": "D",
         "injection_position": 1, "injection_depth": 1},
        *[{"identifier": m, "name": m, "marker": True, "system_prompt": True}
          for m in ("chatHistory", "charDescription")]],
        "prompt_order": [{"character_id": 100001, "order": [
            {"identifier": name, "enabled": True}
            for name in ("main", "charDescription", "chatHistory", "jailbreak", "deep")]}]}
    blocks = prompt_blocks_from_st_preset(preset)["blocks"]
    order = [entry["identifier"] for entry in
             st_preset_prompts(blocks)["prompt_order"][0]["order"]]
    assert order[-2:] == ["jailbreak", "deep"]
    assert order.index("chatHistory") < order.index("jailbreak")


def test_utility_prompts_are_edited_through_rest_and_checked_first(store, alice, client,
                                                                    use_stub):
    english(store)
    instance_id = solo_create(store, alice, CARD)
    url = f"/api/v1/instances/{instance_id}/prompt_manager"
    bad = client.put(url, {"utility": {"continue_prefill": "yes", "new_chat_prompt": 3}},
                     content_type="application/json", **_auth(alice))
    assert bad.status_code == 400
    assert set(bad.json()["error"]["fields"]) == {"utility.continue_prefill",
                                                  "utility.new_chat_prompt"}
    good = client.put(url, {"utility": {"new_chat_prompt": ""}},
                      content_type="application/json", **_auth(alice))
    assert good.status_code == 200 and good.json()["utility"] == {"new_chat_prompt": ""}
    turn(store, instance_id)
    sent = use_stub.requests[-1]["messages"]
    assert {"role": "assistant", "content": "Hold still, Ann."} in sent
    assert not any(m["content"] == "[Start a new Chat]" for m in sent)  # emptied: none sent
