"""A recalled line reaches the prompt with its macros filled in, as the conversation's lines do:
a greeting is kept in the file as written (`{{user}}`, comments), and recall read it raw."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from tests.memory.memory_turns import scripted_turn_run, trace_recalled, window_newest_keep

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_recalled_greeting_has_its_macros_filled_in(store, greeted, memory_on,
                                                      use_stub):
    window_newest_keep(store, 1)
    for text in ("The weather turned.", "We walked to the pier.", "The gulls were loud."):
        scripted_turn_run(store, greeted, text, stub=use_stub)
    scripted_turn_run(store, greeted,
                      "Do you remember the ruined mall where you first said hello to me?",
                      stub=use_stub)
    system = json.dumps(use_stub.requests[-1]["messages"][0]["content"], ensure_ascii=False)
    assert "Hello Mira, I am Alserqi." in system
    assert "{{user}}" not in system and "{{char}}" not in system


CODE_LINE = ("The vault code is {{roll:d100000}}, and the guard's name is "
             "{{random::Ash::Birch::Cedar::Elm::Fir::Hazel::Larch::Oak::Pine::Yew}}.")


def test_a_line_the_prompt_shows_with_random_macros_is_not_recalled_beside_it(
        store, alice, instance, memory_on, use_stub):
    """The prompt fills a stored line's {{roll}}/{{random}} with its own seed (turn and time);
    recall filled it with another, did not find it in the prompt and sent it again."""
    with store.instance_lock(instance):
        for turn in range(1, 14):
            said = (CODE_LINE if turn == 1 else f"Small talk about the weather, part {turn}.")
            for role, text in (("user", f"Tell me something, part {turn}."), ("assistant", said)):
                store.session_append(instance, "sess_001", {
                    "role": role, "content": text, "turn": turn,
                    "timestamp": f"2025-10-16T10:{turn:02d}:00Z"})
    call_command("reindex", "--memory")

    result = scripted_turn_run(store, instance, "Do you remember the vault code and the guard?",
                               stub=use_stub)

    sent = "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])
    assert sent.count("The vault code is") == 1  # in the conversation, not recalled again
    assert not [text for text in trace_recalled(store, instance, result) if "vault code" in text]
