"""Messages put into the chat of a text-completion prompt (a context template's in-chat story
string, an author's note at a depth), placed as SillyTavern 1.12.6's doChatInject places its
depth prompts: a Continue keeps the reply being continued last (depth 0 goes before it), and a
message in the player's role speaks as the player (named in a group when the instruct template
names every speaker). Each through a real turn against the stub, which records the prompt."""

from __future__ import annotations

import pytest

from personalab.lib.instruct_presets import BUILT_IN
from tests.stub_llm import Reply
from tests.text_turns import english, group_create, group_turn, solo_create, turn

pytestmark = pytest.mark.django_db(transaction=True)

CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "A field medic in a drowned city.",
    "personality": "", "scenario": "", "first_mes": "Hold still, {{user}}.",
    "alternate_greetings": [], "mes_example": "", "system_prompt": "",
    "post_history_instructions": "", "creator_notes": "", "tags": [], "extensions": {}}}

# A context template in SillyTavern's format whose story string goes into the chat.
IN_CHAT = {"name": "In chat (test)", "story_string": "Remember: {{description}}",
           "example_separator": "", "chat_start": "", "story_string_position": 1,
           "story_string_depth": 0, "story_string_role": 0}
STORY = "Remember: A field medic in a drowned city."


@pytest.fixture
def text_api(use_stub, settings):
    settings.PERSONALAB_COMPLETION_API = "text"
    settings.PERSONALAB_INSTRUCT_TEMPLATE = "chatml"
    return use_stub


def _choose(client, staff, body: dict) -> None:
    client.force_login(staff)
    response = client.put("/api/v1/llm/text_completion", body, content_type="application/json")
    assert response.status_code == 200, response.content


def _note(store, instance_id: str, *, depth: int, role: str) -> None:
    """An author's note at `depth` in `role`."""
    store.memory_json_write(instance_id, "authors_note",
                            {"text": "Keep it tense.", "depth": depth, "role": role})


def test_continue_ends_on_the_open_reply_with_a_story_string_and_a_note_at_depth_0(
        store, alice, staff, client, text_api):
    _choose(client, staff, {"context": IN_CHAT})
    english(store)
    instance_id = solo_create(store, alice, CARD)
    _note(store, instance_id, depth=0, role="system")
    text_api.script(Reply("I am Mira, and"), Reply(" I mend people."))
    turn(store, instance_id)
    # A new reply: both after the player's last message, then the reply's marker.
    first = text_api.requests[-1]["prompt"]
    assert first.endswith("<|im_start|>system\n" + STORY + "<|im_end|>\n"
                          "<|im_start|>assistant\nMira:")
    assert first.index("Who are you?") < first.index("Keep it tense.") < first.index(STORY)
    result = turn(store, instance_id, "", continue_reply=True)
    prompt = text_api.requests[-1]["prompt"]
    # Continue: both go before the reply being continued, which stays last and open.
    assert prompt.endswith("<|im_start|>system\n" + STORY + "<|im_end|>\n"
                           "<|im_start|>assistant\nMira: I am Mira, and")
    assert prompt.index("Who are you?") < prompt.index("Keep it tense.") < prompt.index(STORY)
    assert result.answer_text == "I am Mira, and I mend people."


@pytest.mark.parametrize("names, shown", [("always", "Ann: "), ("force", "")])
def test_in_a_group_a_story_string_in_the_players_role_speaks_as_the_player(
        store, alice, staff, client, text_api, names, shown):
    """SillyTavern names an injected user message as the player (name1) when the instruct
    template names every speaker (`always`); `force` names only the other characters."""
    _choose(client, staff, {"context": {**IN_CHAT, "story_string_depth": 1,
                                        "story_string_role": 1},
                            "instruct": {**BUILT_IN["chatml"], "names_behavior": names}})
    english(store)
    instance_id = group_create(store, alice, CARD)
    _note(store, instance_id, depth=1, role="user")
    text_api.script(Reply("Mira here."), Reply("Rook here."))
    group_turn(store, instance_id)
    prompt = next(sent["prompt"] for sent in text_api.requests
                  if sent["prompt"].endswith("Mira:"))
    # (The story string carries the group's member list after it, as its anchorAfter.)
    assert (f"<|im_start|>user\n{shown}Keep it tense.<|im_end|>\n"
            f"<|im_start|>user\n{shown}{STORY}\n") in prompt
    assert prompt.index(STORY) < prompt.index("<|im_start|>user\nAnn: Hello both.<|im_end|>")


@pytest.mark.parametrize("api", ["text", "chat"])
def test_in_a_group_the_group_macro_names_every_member_in_either_completion_api(
        store, alice, settings, use_stub, api):
    """{{group}} and {{charIfNotGroup}} are the members' names in a group, as SillyTavern's
    getGroupValue, whichever API the turn goes through (text completion gave the speaker)."""
    settings.PERSONALAB_COMPLETION_API = api
    settings.PERSONALAB_INSTRUCT_TEMPLATE = "chatml"
    english(store)
    card = {**CARD, "data": {**CARD["data"],
                             "scenario": "{{group}} camp out; ask {{charIfNotGroup}}."}}
    instance_id = group_create(store, alice, card)
    use_stub.script(Reply("Mira here."), Reply("Rook here."))
    group_turn(store, instance_id)
    sent = use_stub.requests[-1]
    prompt = sent["prompt"] if api == "text" else str(sent["messages"])
    assert "Mira, Rook camp out; ask Mira, Rook." in prompt
