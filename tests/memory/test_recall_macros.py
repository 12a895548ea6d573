"""A recalled line reaches the prompt with its macros filled in, as the conversation's lines do:
a greeting is kept in the file as written (`{{user}}`, comments), and recall read it raw."""

from __future__ import annotations

import json

import pytest

from tests.memory.memory_turns import scripted_turn_run, window_newest_keep

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
