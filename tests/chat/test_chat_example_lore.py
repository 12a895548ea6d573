"""Lore at the top / bottom of the example messages (SillyTavern's "before / after example
messages", em_top / em_bottom) through real turns against the stub, which records what the
model received. As SillyTavern 1.12.6 sends them: example dialogues of their own before / after
the card's (Chat Completion: each after its "[Example Chat]" line, as named turns; an entry
without a speaker's line sends nothing; the top entries in the reverse of their order), and in
text completion inside the story string's examples. The examples section's heading stays in the
system text before them. The card and its book are written here from the documented V3 format
(character_book entry `extensions.position`: 5 top, 6 bottom)."""

from __future__ import annotations

import pytest

from tests.text_turns import english_turn_sent, text_turn_prompt

pytestmark = pytest.mark.django_db(transaction=True)


def _entry(uid: int, content: str, position: int, order: int = 100) -> dict:
    return {"id": uid, "keys": [], "content": content, "enabled": True, "constant": True,
            "insertion_order": order, "extensions": {"position": position}}


CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "A field medic.", "personality": "", "scenario": "",
    "first_mes": "Hold still.", "alternate_greetings": [],
    "mes_example": "<START>\n{{user}}: Does it hurt?\n{{char}}: Only when you talk.",
    "system_prompt": "", "post_history_instructions": "", "tags": [], "extensions": {},
    "character_book": {"name": "Clinic", "entries": [
        _entry(1, "{{user}}: Is it far?\n{{char}}: [TOP-FIRST] Two days.", 5, order=10),
        _entry(2, "{{char}}: [TOP-SECOND] Bring a lamp.", 5, order=20),
        _entry(3, "[PLAIN] Mira once served on a hospital ship.", 5),
        _entry(4, "{{char}}: [BOTTOM] Water first.", 6)]}}}


def test_example_lore_is_sent_as_example_dialogues(store, alice, use_stub):
    sent = english_turn_sent(store, alice, CARD, use_stub)
    start = sent.index({"role": "system", "content": "[Example Chat]"})
    assert sent[start:start + 9] == [
        {"role": "system", "content": "[Example Chat]"},
        {"role": "system", "content": "[TOP-SECOND] Bring a lamp.", "name": "example_assistant"},
        {"role": "system", "content": "[Example Chat]"},
        {"role": "system", "content": "Is it far?", "name": "example_user"},
        {"role": "system", "content": "[TOP-FIRST] Two days.", "name": "example_assistant"},
        {"role": "system", "content": "[Example Chat]"},
        {"role": "system", "content": "Does it hurt?", "name": "example_user"},
        {"role": "system", "content": "Only when you talk.", "name": "example_assistant"},
        {"role": "system", "content": "[Example Chat]"}]
    assert sent[start + 9] == {"role": "system", "content": "[BOTTOM] Water first.",
                               "name": "example_assistant"}
    # No speaker's line: nothing sent, as in SillyTavern.
    assert "[PLAIN]" not in str(sent)
    # The section's heading stays at the end of the system text before the dialogues.
    assert sent[start - 1]["content"].endswith("=== Example dialogues ===")


def test_text_completion_puts_example_lore_in_the_examples(store, alice, use_stub, settings):
    prompt = text_turn_prompt(store, alice, CARD, use_stub, settings)
    found = [prompt.index(marker) for marker in ("[TOP-SECOND]", "[TOP-FIRST]", "Does it hurt?",
                                                 "[BOTTOM]")]
    assert found == sorted(found)
