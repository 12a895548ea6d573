"""Recall in a group of three leaves out every line the speaker's prompt already holds, whoever
said it (the player's and the other members' lines are there as "Name: …"), and hides no line
the prompt does not hold (chat/prompt/recall_section.py recall_unshown)."""

from __future__ import annotations

import asyncio

import pytest
from django.core.management import call_command

from chat.services.instances import instance_create
from library.character_services import character_save
from tests.group_turns import turn_said
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

ASKED = "Where does the vault open, do you remember?"
FACT = [("user", "Listen, all of you: the vault opens under the old mill."),
        ("Alserqi", "The vault under the old mill. I will remember the mill."),
        ("Brenna", "The mill vault, noted. Old mill, under the wheel."),
        ("Cato", "Under the old mill. The vault. Fine.")]
GREETING = "Evening, {{user}}. I am {{char}}, and I guard the vault under the old mill."
SMALL_TALK = ["The tea is cold again.", "The roof leaks in the north room.",
              "Birds are loud this morning.", "Rain is coming from the west.",
              "My cousin sent a letter.", "The market was loud today."]


@pytest.fixture
def trio(store, alice, character, brenna, background):
    cato = character_save(store, user=alice, character_id=None, data={
        "name": "Cato", "base_persona": "A quiet guard.", "visibility": "private",
        "greeting": GREETING})
    group = instance_create(store, owner=alice, character_ids=[character, brenna, cato],
                            background_id=background, reply_order="everyone")
    members = {"Alserqi": character, "Brenna": brenna, "Cato": cato}
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    rounds = [FACT] + [[("user", said)] + [(name, f"{name} nods: {said.lower()}")
                                           for name in members] for said in SMALL_TALK]
    turn = 0
    with store.instance_lock(group):
        for lines in rounds:  # each reply of a round is a turn of its own, as in play
            for number, (who, text) in enumerate(lines):
                turn += number != 1
                said = ({"role": "user", "name": "Alice"} if who == "user" else
                        {"role": "assistant", "speaker": members[who], "name": who})
                store.session_append(group, "sess_001", {
                    **said, "content": text, "turn": turn,
                    "timestamp": f"2025-10-16T10:{turn:02d}:00Z"})
    call_command("reindex", "--memory")
    return group


def _recalled(store, group, use_stub) -> dict[str, list[str]]:
    use_stub.script(Reply("Under the mill."), Reply("The mill."), Reply("Mill."))
    results = asyncio.run(turn_said(store, group, ASKED))
    return {result.speaker: [hit["text"] for hit in store.trace_read(
        group, result.trace_id)["retrievals"]["hits"]] for result in results}


def test_no_member_recalls_a_line_its_prompt_holds_whoever_said_it(store, trio, memory_on,
                                                                   use_stub):
    recalled = _recalled(store, trio, use_stub)  # the whole chat fits the prompt

    assert len(recalled) == 3
    for speaker, texts in recalled.items():
        assert not set(texts) & {text for _, text in FACT}, speaker
        assert not [text for text in texts if "guard the vault" in text], speaker


def test_every_members_line_the_prompt_left_out_is_recalled_alike(store, trio, memory_on,
                                                                  use_stub):
    config = store.config_read()
    config["preferences"]["conversation_load_all"] = False
    store.config_write(config)
    store.module_write("history", {**store.module_read("history"), "trim_max_messages": 4})

    recalled = _recalled(store, trio, use_stub)

    assert len(recalled) == 3
    for speaker, texts in recalled.items():
        assert {text for _, text in FACT} <= set(texts), speaker
