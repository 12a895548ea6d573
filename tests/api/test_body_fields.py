"""A REST body never loses a field without a word: a field no endpoint stores is a 400 naming it,
while a client may send back what GET answered (ids, owner, keys added to the file by hand)."""

from __future__ import annotations

import json

import pytest


def _error(response, status=400):
    assert response.status_code == status, response.content
    return response.json()["error"]


def test_an_unknown_field_on_a_character_change_is_refused_naming_it_and_nothing_changes(
        as_alice, character, store):
    before = store.character_read(character)
    error = _error(as_alice("put", f"/api/v1/characters/{character}",
                            {"greeting": "Hello.", "mood": "grim"}))
    assert error["code"] == "unknown_field" and set(error["fields"]) == {"mood"}
    assert "mood" in error["message"]
    assert store.character_read(character) == before


def test_a_character_sent_back_as_get_shows_it_saves_the_change(as_alice, character, store):
    shown = as_alice("get", f"/api/v1/characters/{character}").json()
    assert {"character_id", "owner"} <= set(shown)
    response = as_alice("put", f"/api/v1/characters/{character}",
                        {**shown, "greeting": "Who goes there?"})
    assert response.status_code == 200, response.content
    assert store.character_read(character)["greeting"] == "Who goes there?"


@pytest.mark.parametrize("field, value", [("owner", "bob"), ("character_id", "char_other")])
def test_a_changed_owner_or_id_of_a_character_is_refused_as_read_only(
        as_alice, character, store, field, value):
    shown = as_alice("get", f"/api/v1/characters/{character}").json()
    error = _error(as_alice("put", f"/api/v1/characters/{character}",
                            {**shown, "greeting": "changed", field: value}))
    assert error["code"] == "read_only_field" and set(error["fields"]) == {field}
    assert store.character_read(character)["greeting"] == ""
    assert store.character_read(character)["owner"] == "alice"


def test_a_key_an_author_added_to_the_file_is_shown_and_may_come_back_unchanged(
        as_alice, character, store, data_dir):
    path = data_dir / "characters" / character / "definition.json"
    path.write_text(json.dumps({**store.character_read(character), "mood": "grim"}),
                    encoding="utf-8")
    shown = as_alice("get", f"/api/v1/characters/{character}").json()
    assert shown["mood"] == "grim"
    assert as_alice("put", f"/api/v1/characters/{character}",
                    {**shown, "greeting": "Hm."}).status_code == 200
    assert store.character_read(character)["mood"] == "grim"
    error = _error(as_alice("put", f"/api/v1/characters/{character}", {"mood": "cheerful"}))
    assert error["code"] == "read_only_field" and set(error["fields"]) == {"mood"}
    assert store.character_read(character)["mood"] == "grim"


@pytest.mark.parametrize("kind", ["characters", "backgrounds"])
def test_creating_with_an_unknown_field_is_refused_and_creates_nothing(as_alice, store, kind):
    error = _error(as_alice("post", f"/api/v1/{kind}", {"name": "Mira", "colour": "red"}))
    assert error["code"] == "unknown_field" and set(error["fields"]) == {"colour"}
    assert as_alice("get", f"/api/v1/{kind}").json()[kind] == []


def test_a_background_sent_back_as_get_shows_it_saves_and_an_unknown_field_is_refused(
        as_alice, background, store):
    shown = as_alice("get", f"/api/v1/backgrounds/{background}").json()
    response = as_alice("put", f"/api/v1/backgrounds/{background}",
                        {**shown, "world_setting": "2088."})
    assert response.status_code == 200, response.content
    assert store.background_read(background)["world_setting"] == "2088."
    error = _error(as_alice("put", f"/api/v1/backgrounds/{background}",
                            {"world_setting": "2089.", "era": "future"}))
    assert error["code"] == "unknown_field" and set(error["fields"]) == {"era"}
    assert store.background_read(background)["world_setting"] == "2088."


def test_a_persona_refuses_unknown_fields_and_takes_back_what_get_showed(as_alice, store):
    error = _error(as_alice("post", "/api/v1/personas", {"name": "Kai", "age": 30}))
    assert error["code"] == "unknown_field" and set(error["fields"]) == {"age"}
    assert as_alice("get", "/api/v1/personas").json()["personas"] == []
    shown = as_alice("post", "/api/v1/personas", {"name": "Kai"}).json()
    response = as_alice("put", f"/api/v1/personas/{shown['persona_id']}",
                        {**shown, "description": "a courier"})
    assert response.status_code == 200, response.content
    assert store.persona_read(shown["persona_id"])["description"] == "a courier"
    error = _error(as_alice("put", f"/api/v1/personas/{shown['persona_id']}",
                            {"description": "a thief", "age": 30}))
    assert error["code"] == "unknown_field" and set(error["fields"]) == {"age"}
    assert store.persona_read(shown["persona_id"])["description"] == "a courier"


def test_an_instance_refuses_unknown_fields_and_takes_back_what_get_showed(
        as_alice, instance, character, store):
    error = _error(as_alice("put", f"/api/v1/instances/{instance}", {"name": "Run", "nmae": "x"}))
    assert error["code"] == "unknown_field" and set(error["fields"]) == {"nmae"}
    assert store.instance_state_read(instance).get("name", "") == ""
    shown = as_alice("get", f"/api/v1/instances/{instance}").json()
    response = as_alice("put", f"/api/v1/instances/{instance}", {**shown, "name": "Run"})
    assert response.status_code == 200, response.content
    assert response.json()["name"] == "Run"
    error = _error(as_alice("put", f"/api/v1/instances/{instance}", {"owner": "bob"}))
    assert error["code"] == "read_only_field" and set(error["fields"]) == {"owner"}
    error = _error(as_alice("post", "/api/v1/instances",
                            {"character_id": character, "background": "x"}))
    assert error["code"] == "unknown_field" and set(error["fields"]) == {"background"}


def test_generation_defaults_refuse_a_field_beside_generation(as_alice):
    error = _error(as_alice("put", "/api/v1/generation",
                            {"generation": {"temperature": 0.5}, "temprature": 0.7}))
    assert error["code"] == "unknown_field" and set(error["fields"]) == {"temprature"}
    assert as_alice("get", "/api/v1/generation").json()["generation"] == {}


def test_a_lorebook_keeps_unknown_keys_but_refuses_a_changed_owner(as_alice, store):
    created = as_alice("post", "/api/v1/lorebooks", {"name": "Lore", "entries": [],
                                                     "era": "future"})
    assert created.status_code == 201, created.content
    shown = created.json()
    assert as_alice("get", f"/api/v1/lorebooks/{shown['lorebook_id']}").json()["era"] == "future"
    response = as_alice("put", f"/api/v1/lorebooks/{shown['lorebook_id']}",
                        {**shown, "description": "old"})
    assert response.status_code == 200, response.content
    error = _error(as_alice("put", f"/api/v1/lorebooks/{shown['lorebook_id']}",
                            {**shown, "owner": "bob"}))
    assert error["code"] == "read_only_field" and set(error["fields"]) == {"owner"}
    assert store.lorebook_read(shown["lorebook_id"])["owner"] == "alice"
    error = _error(as_alice("post", "/api/v1/lorebooks", {"name": "Mine", "owner": "bob"}))
    assert error["code"] == "unknown_field" and set(error["fields"]) == {"owner"}


def test_a_misspelt_setting_of_a_chat_is_refused_naming_it_and_changes_nothing(
        as_alice, instance, character):
    base = f"/api/v1/instances/{instance}"
    note = {"text": "Rain all day.", "depth": 2, "frequency": 1, "role": "system"}
    assert as_alice("put", f"{base}/authors_note", note).status_code == 200
    shown = as_alice("get", f"{base}/authors_note").json()
    assert as_alice("put", f"{base}/authors_note", shown).status_code == 200
    error = _error(as_alice("put", f"{base}/authors_note", {"text": "Snow.", "dpeth": 9}))
    assert error["code"] == "unknown_field" and set(error["fields"]) == {"dpeth"}
    assert as_alice("get", f"{base}/authors_note").json() == note
    error = _error(as_alice("put", f"/api/v1/instances/{instance}/members/{character}",
                            {"talkativenes": 0.9}))
    assert error["code"] == "unknown_field" and set(error["fields"]) == {"talkativenes"}
    error = _error(as_alice("put", f"{base}/pinned", {"text": "Never lie.", "scope": "all"}))
    assert error["code"] == "unknown_field" and set(error["fields"]) == {"scope"}
    assert as_alice("get", f"{base}/pinned").json()["override"] == ""
