"""A Chat Completion preset's prompt in the user or assistant role arrives as its own message
in that role where the preset puts it (among the character's sections, or after the history),
as SillyTavern 1.12.6 sends it (bench/st_parity_items.py, item 4); a system one stays in the
system text. A real turn against the stub, which records the messages."""

from __future__ import annotations

import pytest

from chat.services.instances import instance_create
from tests.chat.st_presets import st_preset
from tests.library.card_turns import card_turn_run, english_set, mira_card, mira_import
from tests.rest_client import bearer_auth

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_presets_user_and_assistant_prompts_keep_their_roles(store, alice, client, use_stub):
    preset = st_preset()
    preset["prompts"] += [
        {"identifier": "d1", "name": "Style", "role": "user", "content": "Short paragraphs.",
         "system_prompt": False, "marker": False},
        {"identifier": "d2", "name": "Ack", "role": "assistant", "content": "Understood.",
         "system_prompt": False, "marker": False}]
    order = preset["prompt_order"][1]["order"]
    order.insert(1, {"identifier": "d1", "enabled": True})  # after main, before the character
    order.insert(order.index({"identifier": "c7a2", "enabled": True}),
                 {"identifier": "d2", "enabled": True})  # right after chatHistory
    english_set(store)
    instance_id = instance_create(store, owner=alice, character_id=mira_import(store, mira_card()))
    response = client.post(f"/api/v1/instances/{instance_id}/generation/preset", preset,
                           content_type="application/json", **bearer_auth(alice))
    assert response.status_code == 200, response.content
    card_turn_run(store, instance_id, "Who are you?")
    sent = [(m["role"], m["content"]) for m in use_stub.requests[-1]["messages"]]
    assert sent[0][0] == "system" and sent[0][1].startswith("Write Mira's next reply")
    assert sent[1] == ("user", "Short paragraphs.")
    assert sent[2][0] == "system" and "A field medic" in sent[2][1]
    assert "Short paragraphs." not in sent[0][1] + sent[2][1]
    assert sent[-4:] == [("user", "Who are you?"), ("assistant", "Understood."),
                         ("system", "Remember the storm."),
                         ("system", "Reply in two paragraphs at most.")]
