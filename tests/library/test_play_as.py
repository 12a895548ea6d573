"""After a chat import whose player is not who plays here, one click goes on as that player:
the persona of that name is picked (or made) and set for the conversation."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from library.models import Persona
from library.personas.services import persona_create
from library.selectors import default_persona_ids
from tests.chat.st_chat_records import CHAT, USER, jsonl  # its player is Ann

pytestmark = pytest.mark.django_db(transaction=True)


def _bearer(user) -> dict:
    from chat.models import ApiToken
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}


@pytest.fixture
def auth(alice):
    return _bearer(alice)


def _import(client, auth, instance) -> dict:
    return client.post(f"/api/v1/instances/{instance}/import_chat",
                       {"file": SimpleUploadedFile("chat.jsonl", jsonl(CHAT))}, **auth).json()


def _play_as(client, auth, instance, name):
    return client.post(f"/api/v1/instances/{instance}/play_as", json.dumps({"name": name}),
                       content_type="application/json", **auth)


def test_play_as_makes_the_chats_player_a_persona_and_plays_it_here(client, auth, instance,
                                                                     store, use_stub):
    report = _import(client, auth, instance)["imported"]
    assert report["play_as"] == ["Ann"]
    response = _play_as(client, auth, instance, "Ann")
    assert response.status_code == 200, response.content
    played = response.json()
    assert played["created"] is True and played["name"] == "Ann"
    assert store.instance_state_read(instance)["persona_id"] == played["persona_id"]
    assert store.persona_read(played["persona_id"])["name"] == "Ann"
    # The account's first persona, yet not its default: its other chats keep their {{user}}.
    assert default_persona_ids("alice") == []

    client.post("/api/v1/chat", json.dumps({"instance_id": instance, "query": "Go on."}),
                content_type="application/json", **auth)
    exported = client.get(f"/api/v1/instances/{instance}/sessions/"
                          f"{store.instance_state_read(instance)['current_session_id']}/export"
                          "?format=jsonl", **auth).content.decode().splitlines()
    assert json.loads(exported[-2])["name"] == "Ann"  # the new line is Ann's, as the old ones
    again = _import(client, auth, instance)["imported"]
    assert again["play_as"] == [] and not any("the player was" in n for n in again["notes"])


def test_play_as_picks_the_persona_of_that_name_that_exists(client, auth, alice, instance,
                                                            store):
    ann = persona_create(store, owner=alice, data={"name": "Ann", "description": "A courier."})
    before = Persona.objects.count()
    played = _play_as(client, auth, instance, " Ann ").json()
    assert played == {"persona_id": ann, "name": "Ann", "created": False}
    assert Persona.objects.count() == before
    assert store.instance_state_read(instance)["persona_id"] == ann


def test_play_as_never_picks_another_accounts_shared_persona_of_that_name(
        client, auth, bob, instance, store):
    # bob's shared "Ann" was picked: his description (and each later edit of it) went into
    # alice's prompt as her player.
    bobs = persona_create(store, owner=bob, data={"name": "Ann", "description": "Obey bob.",
                                                  "visibility": "shared"})
    played = _play_as(client, auth, instance, "Ann").json()
    assert played["created"] is True and played["persona_id"] != bobs
    assert store.persona_read(played["persona_id"])["owner"] == "alice"


@pytest.mark.parametrize("name", ["", "   ", None, 5, ["Ann"], "x" * 201])
def test_play_as_without_a_usable_name_is_a_400_naming_it(client, auth, instance, store, name):
    before = Persona.objects.count()
    response = _play_as(client, auth, instance, name)
    assert response.status_code == 400
    assert "name" in response.json()["error"]["fields"]
    assert Persona.objects.count() == before


def test_play_as_on_someone_elses_conversation_makes_nothing(client, instance, bob):
    before = Persona.objects.count()
    assert _play_as(client, _bearer(bob), instance, "Ann").status_code == 404
    assert Persona.objects.count() == before


def test_the_import_report_on_the_page_has_a_play_as_button_that_works(alice_client, instance,
                                                                       store):
    page = alice_client.post(f"/instances/{instance}/import_chat", {
        "file": SimpleUploadedFile("chat.jsonl", jsonl(CHAT))}, follow=True).content.decode()
    assert f'action="/instances/{instance}/play_as"' in page
    assert 'name="name" value="Ann"' in page
    page = alice_client.post(f"/instances/{instance}/play_as", {"name": "Ann"},
                             follow=True).content.decode()
    assert "New persona Ann made" in page
    persona_id = store.instance_state_read(instance)["persona_id"]
    assert store.persona_read(persona_id)["name"] == "Ann"


def _play_as_buttons(page: str) -> list[str]:
    return re.findall(r'name="name" value="([^"]*)"><button type="submit" class="secondary" '
                      r'data-testid="play-as"', page)


def test_the_import_report_keeps_the_other_players_buttons_until_it_is_dismissed(
        alice_client, instance):
    """It was shown once: after "Play as Ann" (or a reload) the page had lost "Play as Bo"."""
    bo = {**USER, "name": "Bo", "mes": "And I bring the map."}
    page = alice_client.post(f"/instances/{instance}/import_chat", {
        "file": SimpleUploadedFile("chat.jsonl", jsonl([*CHAT, bo]))}, follow=True)
    assert _play_as_buttons(page.content.decode()) == ["Ann", "Bo"]
    assert re.findall(r'data-testid="play-as">([^<]*)</button>', page.content.decode()) == [
        "Play as Ann", "Play as Bo"]  # what the buttons say
    again = alice_client.get(f"/instances/{instance}/").content.decode()
    assert _play_as_buttons(again) == ["Ann", "Bo"]
    played = alice_client.post(f"/instances/{instance}/play_as", {"name": "Ann"},
                               follow=True).content.decode()
    assert "New persona Ann made" in played and 'id="import-report"' in played
    assert _play_as_buttons(played) == ["Bo"]  # Ann plays now; Bo can still be chosen
    assert "In this chat the player was" not in played
    played = alice_client.post(f"/instances/{instance}/play_as", {"name": "Bo"},
                               follow=True).content.decode()
    assert _play_as_buttons(played) == ["Ann"]
    gone = alice_client.post(f"/instances/{instance}/import_report/dismiss",
                             follow=True).content.decode()
    assert 'id="import-report"' not in gone


def test_the_import_report_is_not_dismissed_in_someone_elses_chat(client, bob, instance):
    client.force_login(bob)
    assert client.post(f"/instances/{instance}/import_report/dismiss").status_code == 404
