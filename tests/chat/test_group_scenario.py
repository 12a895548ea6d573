"""A story's scenario override (SillyTavern's "Scenario Override", `chat_metadata.scenario`):
it replaces the card's scenario in every member's prompt (script.js getCharacterCardFields:
`chat_metadata['scenario'] || character.scenario`), {{scenario}} included; an imported chat's
override comes with it and goes back out. Through real turns against the stub."""

from __future__ import annotations

import json

import pytest

from tests.text_turns import english, group_create, group_turn, solo_create, turn

pytestmark = pytest.mark.django_db(transaction=True)

CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "A field medic. {{scenario}}", "personality": "",
    "scenario": "[CARD-SCENARIO] {{char}} waits in the clinic.",
    "first_mes": "Hold still.", "alternate_greetings": [], "mes_example": "",
    "system_prompt": "", "post_history_instructions": "", "tags": [], "extensions": {}}}
OVERRIDE = "[OVERRIDE] {{char}} and the others are trapped on a burning ship."


def _scenario_set(alice_client, instance_id, value):
    return alice_client.put(f"/api/v1/instances/{instance_id}", {"scenario_override": value},
                            content_type="application/json")


def test_the_override_replaces_every_members_scenario(alice_client, store, alice, use_stub):
    english(store)
    instance_id = group_create(store, alice, CARD)
    assert _scenario_set(alice_client, instance_id, 7).status_code == 400
    response = _scenario_set(alice_client, instance_id, OVERRIDE)
    assert response.status_code == 200
    assert response.json()["instance_state"]["scenario_override"] == OVERRIDE
    group_turn(store, instance_id)
    mira, rook = (str(use_stub.requests[i]["messages"]) for i in (-2, -1))
    assert "[CARD-SCENARIO]" not in mira + rook
    # each member reads it as itself, in its scenario and in its card's {{scenario}}
    for sent, name in ((mira, "Mira"), (rook, "Rook")):
        assert f"context of the dialogue: [OVERRIDE] {name} and the others" in sent
        assert f"A field medic. [OVERRIDE] {name} and the others" in sent
    # emptied: the cards' own scenarios again
    assert _scenario_set(alice_client, instance_id, "").status_code == 200
    group_turn(store, instance_id)
    assert "[CARD-SCENARIO] Rook waits" in str(use_stub.requests[-1]["messages"])


def _jsonl(records):
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in records).encode()


def test_an_imported_chats_override_plays_on_and_goes_back_out(alice_client, store, alice,
                                                                use_stub):
    from django.core.files.uploadedfile import SimpleUploadedFile

    english(store)
    instance_id = solo_create(store, alice, CARD)
    chat = [{"user_name": "Ann", "character_name": "Mira", "create_date": "2024-5-12 @17h",
             "chat_metadata": {"scenario": OVERRIDE}},
            {"name": "Mira", "is_user": False, "is_system": False, "send_date": "May 12, 2024",
             "mes": "Hold still."}]
    response = alice_client.post(f"/api/v1/instances/{instance_id}/import_chat",
                                 {"file": SimpleUploadedFile("chat.jsonl", _jsonl(chat))})
    assert response.status_code == 201
    assert store.instance_state_read(instance_id)["scenario_override"] == OVERRIDE
    turn(store, instance_id)
    sent = str(use_stub.requests[-1]["messages"])
    assert "[OVERRIDE] Mira and the others" in sent and "[CARD-SCENARIO]" not in sent
    changed = "[CHANGED] A quiet morning."
    assert _scenario_set(alice_client, instance_id, changed).status_code == 200
    session_id = response.json()["session_id"]
    exported = alice_client.get(f"/api/v1/instances/{instance_id}/sessions/{session_id}/export"
                                "?format=jsonl")
    header = json.loads(exported.content.decode().splitlines()[0])
    assert header["chat_metadata"]["scenario"] == changed


def test_a_one_character_chats_drawer_sets_the_override(alice_client, store, alice, use_stub):
    """SillyTavern offers the override for one character's chat too (the chat's "Scenario
    Override"); the drawer had the box in group chats only, so a solo chat needed the API."""
    english(store)
    instance_id = solo_create(store, alice, CARD)
    page = alice_client.get(f"/instances/{instance_id}/").content.decode()
    assert 'data-testid="scenario-override"' in page and 'name="reply_order"' not in page
    url = f"/instances/{instance_id}/members"
    response = alice_client.post(url, {"action": "scenario", "scenario_override": OVERRIDE})
    assert response.status_code == 200
    assert store.instance_state_read(instance_id)["scenario_override"] == OVERRIDE
    turn(store, instance_id)
    sent = str(use_stub.requests[-1]["messages"])
    assert "[OVERRIDE] Mira and the others" in sent and "[CARD-SCENARIO]" not in sent
    refused = alice_client.post(url, {"action": "scenario", "scenario_override": "y" * 20_001})
    assert refused.status_code == 400 and "y" * 20_001 in refused.content.decode()
    assert store.instance_state_read(instance_id)["scenario_override"] == OVERRIDE
    alice_client.post(url, {"action": "scenario", "scenario_override": ""})
    turn(store, instance_id)
    assert "[CARD-SCENARIO] Mira waits" in str(use_stub.requests[-1]["messages"])
