"""Agnai's own character JSON (its "Agnaistic" download): imported through the real upload,
played through a real turn (the stub server records what the model received), exported as a
card that carries Agnai's persona back."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.services.instances import instance_create
from library.card_formats.cards import card_parse
from tests.library.card_turns import card_turn_run, english_set

pytestmark = pytest.mark.django_db(transaction=True)

SECRET_NOTE = "Made for the Saltmere campaign; rate if you liked her."


def agnai_character(**changes) -> dict:
    """A character as Agnai's download ("Agnaistic" output, JSON) writes it: the stored object
    without its _id."""
    character = {
        "kind": "character",
        "userId": "b3f1c2d4-9a7e-4c1b-8f00-5e6d7c8b9a01",
        "name": "Kaelen",
        "description": SECRET_NOTE,
        "appearance": "tall, silver hair, grey cloak",
        "avatar": "/assets/6a1e8f0b-3c2d-4e5f-9a8b-7c6d5e4f3a2b.png",
        "culture": "en-us",
        "persona": {"kind": "wpp", "attributes": {
            "species": ["elf"],
            "mind": ["wary", "loyal", "dry humour"],
            "likes": ["rain", "old maps"],
        }},
        "greeting": "*Kaelen looks up from the map.* You're late, {{user}}.",
        "scenario": "{{user}} meets {{char}} at the harbor before the storm.",
        "sampleChat": "<START>\n{{user}}: Where to?\n{{char}}: North, past the lighthouse.",
        "alternateGreetings": ["*The lantern gutters.* Quiet, {{user}}."],
        "characterBook": {
            "kind": "memory", "name": "Saltmere", "description": "", "userId": "b3f1c2d4",
            "entries": [{"name": "Lighthouse", "entry": "The lighthouse has been dark for "
                         "nine winters.", "keywords": ["lighthouse"], "priority": 10,
                         "weight": 5, "enabled": True}]},
        "systemPrompt": "You are {{char}}, a ranger. {{original}}",
        "postHistoryInstructions": "Keep replies under 80 words.",
        "insert": {"depth": 2, "prompt": "Kaelen is hiding a wound."},
        "creator": "saltmere_author",
        "characterVersion": "1.2",
        "tags": ["fantasy", "ranger"],
        "extensions": {},
        "voice": {"service": "webspeechsynthesis", "voiceId": "en-GB"},
        "voiceDisabled": False,
        "favorite": True,
        "createdAt": "2024-03-02T18:22:41.512Z",
        "updatedAt": "2024-03-09T10:01:05.004Z",
    }
    character.update(changes)
    return character


def _upload(client, auth, doc: dict):
    return client.post("/api/v1/characters/import",
                       {"file": SimpleUploadedFile("Kaelen.json", json.dumps(doc).encode(),
                                                   "application/json")}, **auth)


@pytest.fixture
def auth(alice):
    from chat.models import ApiToken
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


def test_an_agnai_character_imports_with_every_field_where_agnai_uses_it(
        client, auth, store, alice, use_stub):
    english_set(store)
    response = _upload(client, auth, agnai_character())
    assert response.status_code == 201, response.content
    character_id = response.json()["character_id"]
    definition = store.character_read(character_id)
    assert definition["name"] == "Kaelen"
    assert ('[character("Kaelen") {\nspecies("elf")\nmind("wary" + "loyal" + "dry humour")\n'
            'likes("rain" + "old maps")\n}]') in definition["base_persona"]
    assert definition["tags"] == ["fantasy", "ranger"]
    assert len(definition["lorebook_ids"]) == 1

    instance_id = instance_create(store, owner=alice, character_id=character_id)
    greeting = store.session_read(instance_id, "sess_001").lines[0]
    assert greeting["content"].startswith("*Kaelen looks up from the map.*")
    assert [a["content"] for a in greeting["alternatives"]] == [
        "*The lantern gutters.* Quiet, {{user}}."]
    trace_id = card_turn_run(store, instance_id, "Is the lighthouse lit tonight?")
    sent = use_stub.requests[-1]["messages"]
    system = sent[0]["content"]
    assert system.startswith("You are Kaelen, a ranger.")
    assert 'species("elf")' in system and "Ann meets Kaelen at the harbor" in system
    # Example dialogue goes as SillyTavern sends it: each turn a named system message.
    examples = [(m.get("name"), m["content"]) for m in sent
                if m.get("name", "").startswith("example_")]
    assert examples[:2] == [("example_user", "Where to?"),
                            ("example_assistant", "North, past the lighthouse.")]
    text = json.dumps(sent)
    assert "dark for nine winters" in text  # the memory book's entry fired on its keyword
    assert "Kaelen is hiding a wound." in text
    # Agnai's insert is SillyTavern's Character's Note, at the depth Agnai gave it.
    assert store.trace_read(instance_id, trace_id)["card_fields"]["depth_prompt"] == \
        "depth 2, role system"
    assert sent[-1]["content"].endswith("Keep replies under 80 words.")
    assert SECRET_NOTE not in text and "silver hair" not in text


def test_an_agnai_character_exports_as_a_card_agnai_reads_back_with_its_persona(
        client, auth, store):
    character_id = _upload(client, auth, agnai_character()).json()["character_id"]
    card = client.get(f"/api/v1/characters/{character_id}/card.json?spec=v2", **auth).json()
    assert card["spec"] == "chara_card_v2"
    assert "kind" not in card and "persona" not in card  # Agnai would take it for its own file
    data = card["data"]
    assert data["first_mes"].startswith("*Kaelen looks up")
    assert data["creator_notes"] == SECRET_NOTE and data["creator"] == "saltmere_author"
    assert data["system_prompt"] == "You are {{char}}, a ranger. {{original}}"
    assert data["post_history_instructions"] == "Keep replies under 80 words."
    assert data["extensions"]["depth_prompt"] == {"prompt": "Kaelen is hiding a wound.",
                                                  "depth": 2, "role": "system"}
    # Agnai's card reader takes extensions.agnai.persona when the description is still the
    # one it would write from it.
    assert data["extensions"]["agnai"]["persona"] == agnai_character()["persona"]
    assert data["description"].startswith('[character("Kaelen") {')
    assert data["character_book"]["entries"][0]["keys"] == ["lighthouse"]


@pytest.mark.parametrize("persona, text", [
    ({"kind": "sbf", "attributes": {"species": ["elf"], "mind": ["wary", "loyal"]}},
     '[ character: "Kaelen"; species: "elf"; mind: "wary", "loyal" ]'),
    ({"kind": "boostyle", "attributes": {"species": ["elf"], "mind": ["wary", "loyal"]}},
     "Kaelen + elf + wary + loyal"),
    ({"kind": "text", "attributes": {"text": ["A ranger who keeps the coast road."]}},
     "A ranger who keeps the coast road."),
    ({"kind": "attributes", "attributes": {"species": ["elf"], "mind": ["wary", "loyal"]}},
     "species: elf\nmind: wary, loyal"),
])
def test_each_agnai_persona_kind_is_written_as_agnai_writes_it(persona, text):
    raw = agnai_character(persona=persona, kind=None)  # found by its fields, not its kind
    card = card_parse(json.dumps(raw).encode(), "Kaelen.json")
    assert card["data"]["description"] == text
    assert card["data"]["first_mes"].startswith("*Kaelen looks up")


def test_a_broken_agnai_persona_is_a_400_naming_it_and_nothing_is_made(client, auth, store):
    before = len(store.character_ids())
    response = _upload(client, auth, agnai_character(
        persona={"kind": "wpp", "attributes": {"mind": [{"deep": "object"}]}}))
    assert response.status_code == 400
    assert "persona.attributes.mind" in response.json()["error"]["fields"]
    response = _upload(client, auth, agnai_character(greeting={"text": "hi"}))
    assert response.status_code == 400
    assert "greeting" in response.json()["error"]["fields"]
    assert len(store.character_ids()) == before


def test_an_agnai_character_uploaded_as_a_chat_is_refused_saying_what_it_is(client, auth,
                                                                            instance):
    response = client.post(f"/api/v1/instances/{instance}/import_chat", {
        "file": SimpleUploadedFile("Kaelen.json", json.dumps(agnai_character()).encode())},
        **auth)
    assert response.status_code == 400
    assert "Agnai character" in response.json()["error"]["message"]
