"""Chat Completion as SillyTavern 1.12.6 sends it, through real turns against the stub (which
records what the model received): each example dialogue after its "[Example Chat]" line as
system messages named example_user / example_assistant (folded with the speaker's name under
merge / strict post-processing), the group nudge after a group's history (not on Impersonate),
the card's personality and scenario in the prompt manager's wording, and a chat's own
Impersonate instruction. The card is written here from the documented V3 format."""

from __future__ import annotations

import pytest

from chat.play.impersonate import impersonate_plan
from tests.chat.mira_cards import EXAMPLES_CARD
from tests.text_turns import english, group_create, group_turn, solo_create, turn, utility_set

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = [
    {"role": "system", "content": "[Example Chat]"},
    {"role": "system", "content": "Does it hurt?", "name": "example_user"},
    {"role": "system", "content": "Only when you talk.\nMira: *She smiles.*",
     "name": "example_assistant"},
    {"role": "system", "content": "[Example Chat]"},
    {"role": "system", "content": "Above the water.", "name": "example_assistant"}]


def test_each_example_turn_is_its_own_named_message(store, alice, use_stub):
    english(store)
    instance_id = solo_create(store, alice, EXAMPLES_CARD)
    turn(store, instance_id)
    sent = use_stub.requests[-1]["messages"]
    start = sent.index(EXAMPLES[0])
    # A block without a speaker's line sends nothing (nor its "[Example Chat]" line).
    assert sent[start:start + 5] == EXAMPLES
    assert "Does it hurt?" not in sent[0]["content"] and "No speaker here." not in str(sent)
    assert sent.index({"role": "system", "content": "[Start a new Chat]"}) > start + 4


@pytest.mark.parametrize("mode", ["merge", "strict"])
def test_folded_examples_keep_their_speakers_name(store, alice, use_stub, mode):
    english(store)
    store.module_write("llm", {"prompt_processing": mode})
    instance_id = solo_create(store, alice, EXAMPLES_CARD)
    turn(store, instance_id)
    sent = use_stub.requests[-1]["messages"]
    assert not any("name" in m for m in sent)
    system = sent[0]["content"]
    assert system.index("[Example Chat]\n\nAnn: Does it hurt?\n\nMira: Only when you talk.") \
        < system.index("Mira: Above the water.")
    if mode == "strict":
        roles = [m["role"] for m in sent]
        assert roles[0] == "system" and "system" not in roles[1:]


def test_a_group_turn_ends_its_history_with_the_group_nudge(store, alice, use_stub):
    english(store)
    instance_id = group_create(store, alice, EXAMPLES_CARD)
    group_turn(store, instance_id)
    first, second = use_stub.requests[-2]["messages"], use_stub.requests[-1]["messages"]
    assert first[-1] == {"role": "system", "content": "[Write the next reply only as Mira.]"}
    assert second[-1] == {"role": "system", "content": "[Write the next reply only as Rook.]"}
    # Impersonate writes the player's line: no nudge naming a member.
    plan = impersonate_plan(store, instance_id=instance_id)
    assert not any("Write the next reply only" in m["content"] for m in plan.messages)
    utility_set(store, instance_id, group_nudge_prompt="")  # emptied: none sent
    group_turn(store, instance_id, "Again.")
    assert not any("Write the next reply only" in m["content"]
                   for m in use_stub.requests[-1]["messages"])


def test_personality_and_scenario_use_the_prompt_managers_wording(store, alice, use_stub):
    english(store)
    instance_id = solo_create(store, alice, EXAMPLES_CARD)
    turn(store, instance_id)
    system = use_stub.requests[-1]["messages"][0]["content"]
    assert "[Mira's personality: calm]" in system
    assert "[Circumstances and context of the dialogue: A clinic at night.]" in system
    utility_set(store, instance_id, personality_format="{{char}} is {{personality}}.",
             scenario_format="")
    turn(store, instance_id, "Again.")
    system = use_stub.requests[-1]["messages"][0]["content"]
    assert "Mira is calm." in system
    assert "A clinic at night." not in system  # an emptied wording sends none


def test_a_chats_own_impersonation_prompt_is_used(store, alice, use_stub):
    english(store)
    instance_id = solo_create(store, alice, EXAMPLES_CARD)
    utility_set(store, instance_id, impersonation_prompt="[Answer as {{user}} would, to {{char}}.]")
    plan = impersonate_plan(store, instance_id=instance_id)
    assert plan.messages[-1] == {"role": "system", "content": "[Answer as Ann would, to Mira.]"}
    utility_set(store, instance_id, impersonation_prompt="")  # emptied: none sent
    plan = impersonate_plan(store, instance_id=instance_id)
    assert not any("point of view" in m["content"] or "Answer as" in m["content"]
                   for m in plan.messages)
