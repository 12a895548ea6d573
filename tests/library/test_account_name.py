"""What a player without a persona is called (docs/decisions/newcomer-name.md): the full name
the account was given, else "User" as in SillyTavern, never the login ("admin" in the demo);
and the name asked when they start a chat, which becomes their first persona and `{{user}}`."""

from __future__ import annotations

import json
import re
import threading

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.utils.html import escape

from chat.models import Instance
from chat.services.instances import instance_create
from library.character_services import character_save
from library.models import Persona
from library.personas import services
from library.selectors import persona_effective


def test_without_a_persona_the_player_is_user_or_their_full_name_never_their_login(store, alice):
    assert persona_effective(store, owner="alice", persona_id=None)["name"] == "User"
    alice.first_name, alice.last_name = "Alice", "Liddell"
    alice.save()
    assert persona_effective(store, owner="alice", persona_id=None)["name"] == "Alice Liddell"
    # A chat without an owner keeps the placeholder; a name the admin set still wins.
    assert persona_effective(store, owner=None, persona_id=None)["name"] == "User"
    store.module_write("prompt", {"user_name": "Traveller"})
    assert persona_effective(store, owner="alice", persona_id=None)["name"] == "Traveller"


def _greeting_card(store) -> str:
    return character_save(store, data={"name": "Mira", "base_persona": "A guide.",
                                       "greeting": "Welcome, {{user}}.", "visibility": "shared"},
                          character_id=None)


def test_a_newcomers_first_chat_asks_their_name_and_the_card_calls_them_by_it(
        alice_client, store, alice):
    card = _greeting_card(store)
    home = alice_client.get("/").content.decode()
    assert 'name="player_name"' in home and "Your name in the story" in home
    started = alice_client.post("/instances/new", {"character_id": card, "player_name": " Kit "})
    assert started.status_code == 302
    persona = Persona.objects.get(owner=alice)
    assert persona.name == "Kit" and persona.is_default
    chat = alice_client.get(started["Location"]).content.decode()
    assert "Welcome, Kit." in chat
    # asked once: with a persona made, the start form no longer asks
    assert 'name="player_name"' not in alice_client.get("/").content.decode()
    again = alice_client.post("/instances/new", {"character_id": card, "player_name": "Other"})
    assert again.status_code == 302 and Persona.objects.filter(owner=alice).count() == 1


def test_a_newcomer_who_leaves_the_name_empty_is_user_and_is_asked_again(alice_client, store,
                                                                         alice):
    card = _greeting_card(store)
    chinese = alice_client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "你在故事中的名字" in chinese
    started = alice_client.post("/instances/new", {"character_id": card, "player_name": "  "})
    chat = alice_client.get(started["Location"]).content.decode()
    assert "Welcome, User." in chat and "Welcome, alice." not in chat
    assert not Persona.objects.filter(owner=alice).exists()
    assert 'name="player_name"' in alice_client.get("/").content.decode()


def test_a_name_too_long_is_refused_and_starts_no_chat(alice_client, store, alice):
    card = _greeting_card(store)
    refused = alice_client.post("/instances/new", {"character_id": card, "player_name": "K" * 201},
                                follow=True)
    assert not Persona.objects.filter(owner=alice).exists()
    assert escape("Start a chat") in refused.content.decode()
    assert not Instance.objects.filter(owner=alice).exists()
    # which name is too long, said as the field says it (seventh red-team pass: "name is
    # longer than 200 characters" beside a character picker named none)
    assert "Your name in the story is longer than 200 characters" in refused.content.decode()
    chinese = alice_client.post("/instances/new", {"character_id": card,
                                                   "player_name": "K" * 201},
                                follow=True, HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert "你在故事中的名字超过了 200 个字符" in chinese.content.decode()


def test_markup_in_the_name_asked_is_text_wherever_it_is_shown(alice_client, store, alice,
                                                               client, bob):
    """Seventh red-team pass: the name becomes a persona and `{{user}}`; markup in it is text
    on the chat page (the greeting that names it included), the home page and the personas
    page, and a refused start (bob asking for alice's private card) makes no persona."""
    card = _greeting_card(store)
    hostile = '<img src=x onerror="alert(1)">'
    started = alice_client.post("/instances/new", {"character_id": card, "player_name": hostile})
    assert started.status_code == 302
    for url in (started["Location"], "/", "/personas/"):
        page = alice_client.get(url).content.decode()
        assert "<img src=x" not in page, url
    assert escape(hostile) in alice_client.get(started["Location"]).content.decode()
    private = character_save(store, data={"name": "Bea", "base_persona": "Hers.",
                                          "greeting": "Hi."}, character_id=None, user=alice)
    client.force_login(bob)
    refused = client.post("/instances/new", {"character_id": private, "player_name": "Rob"})
    assert refused.status_code in (302, 404)
    assert not Persona.objects.filter(owner=bob).exists()


def test_the_start_form_with_a_name_needs_its_csrf_token(store, alice):
    """Seventh red-team pass: another site's form posting a name to alice's session (a persona
    she did not make, every chat calling her by it) is refused."""
    card = _greeting_card(store)
    forged = Client(enforce_csrf_checks=True)
    forged.force_login(alice)
    refused = forged.post("/instances/new", {"character_id": card, "player_name": "Pwned"})
    assert refused.status_code == 403
    assert not Persona.objects.filter(owner=alice).exists()


@pytest.mark.django_db(transaction=True)
def test_two_start_forms_at_once_make_one_persona(store, alice, monkeypatch):
    """Seventh red-team pass: two tabs' start forms sent at once each found no persona and each
    made one (two personas, either the default). The look and the create are one step now."""
    made = []
    claim = services.persona_id_claim

    def claim_while_the_other_tab_sends(store, **kwargs):
        if not made:
            made.append("other")
            other = threading.Thread(target=_named_in_thread, args=(store, alice, "Bea"))
            other.start()
            other.join(0.5)  # it makes its persona now, unless it waits for this one
            made.append(other)
        return claim(store, **kwargs)

    monkeypatch.setattr(services, "persona_id_claim", claim_while_the_other_tab_sends)
    services.persona_first_named(store, owner=alice, name="Ann")
    made[1].join(5)
    assert list(Persona.objects.filter(owner=alice).values_list("name", flat=True)) == ["Ann"]


def _named_in_thread(store, owner, name: str) -> None:
    try:
        services.persona_first_named(store, owner=owner, name=name)
    finally:
        connection.close()


def test_a_library_tile_and_a_characters_page_ask_a_newcomers_name_as_the_home_page_does(
        alice_client, store, alice):
    """Every place a chat starts asks it while there is no persona: the library's tiles share
    one form (each Chat button sends its character) and the character page's start form."""
    card = _greeting_card(store)
    library = alice_client.get("/library/").content.decode()
    tiles = library[library.index('id="tile-start"'):]
    assert 'name="player_name"' in tiles[:tiles.index("</form>")]
    assert f'form="tile-start" name="character_id" value="{card}"' in library
    page = alice_client.get(f"/library/characters/{card}/").content.decode()
    start = page[page.index('data-testid="start-group"'):]
    assert 'name="player_name"' in start[:start.index("</form>")]
    started = alice_client.post("/instances/new", {"character_id": card, "player_name": "Kit"})
    assert "Welcome, Kit." in alice_client.get(started["Location"]).content.decode()
    assert 'name="player_name"' not in alice_client.get("/library/").content.decode()
    assert 'name="player_name"' not in alice_client.get(
        f"/library/characters/{card}/").content.decode()


def _st_chat(player: str, character: str) -> bytes:
    lines = [{"user_name": player, "character_name": character, "chat_metadata": {}},
             {"name": character, "is_user": False, "is_system": False, "mes": "Back again?",
              "send_date": "2024-03-05T14:03:00.000Z", "extra": {}},
             {"name": player, "is_user": True, "is_system": False, "mes": "The storm passed.",
              "send_date": "2024-03-05T14:04:00.000Z", "extra": {}}]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def test_a_newcomers_chat_import_asks_their_name_offering_the_files_player(alice_client, store,
                                                                          alice):
    """From a character's page a matching file was imported at once, and the newcomer's new
    lines were "User"'s beside the file's "Rook": now the check page asks, offering Rook."""
    card = _greeting_card(store)
    sent = alice_client.post("/chats/import", {
        "character_id": card, "next": f"/library/characters/{card}/",
        "file": SimpleUploadedFile("storm.jsonl", _st_chat("Rook", "Mira"))})
    text = sent.content.decode()
    assert sent.status_code == 200 and 'data-testid="import-check"' in text
    assert not Instance.objects.filter(owner=alice).exists()
    assert re.search(r'name="player_name"[^>]* value="Rook"', text)
    token = re.search(r'name="token" value="([0-9a-f]{32})"', text).group(1)
    done = alice_client.post("/chats/import", {"token": token, "confirmed": "1",
                                               "character_ids": [card], "player_name": "Rook"})
    assert done.status_code == 302
    persona = Persona.objects.get(owner=alice)
    assert persona.name == "Rook" and persona.is_default
    chat = alice_client.get(done["Location"]).content.decode()
    assert 'data-testid="play-as"' not in chat  # already playing as the file's player
    # a file whose player is only "User" names nobody: nothing to offer, no page to ask on
    plain = alice_client.post("/chats/import", {
        "character_id": card, "file": SimpleUploadedFile("plain.jsonl", _st_chat("User", "Mira"))})
    assert plain.status_code == 302 and Persona.objects.filter(owner=alice).count() == 1
    # with a persona the same import goes straight through
    again = alice_client.post("/chats/import", {
        "character_id": card, "file": SimpleUploadedFile("storm.jsonl", _st_chat("Rook", "Mira"))})
    assert again.status_code == 302 and Instance.objects.filter(owner=alice).count() == 3


def test_a_newcomers_refused_chat_import_takes_back_the_name_it_made(alice_client, store, alice,
                                                                    settings):
    """The import's name makes the persona before the chat: a chat the limit refuses leaves
    none, and the name is asked again, as a refused start from the home page does."""
    card = _greeting_card(store)
    sent = alice_client.post("/chats/import", {
        "character_id": card, "file": SimpleUploadedFile("storm.jsonl", _st_chat("Rook", "Mira"))})
    token = re.search(r'name="token" value="([0-9a-f]{32})"', sent.content.decode()).group(1)
    instance_create(store, owner=alice, character_id=card)
    settings.PERSONALAB_INSTANCES_PER_ACCOUNT = 1
    refused = alice_client.post("/chats/import", {"token": token, "confirmed": "1",
                                                  "character_ids": [card], "player_name": "Rook"})
    assert refused.status_code == 302
    assert not Persona.objects.filter(owner=alice).exists()
    assert Instance.objects.filter(owner=alice).count() == 1


def test_a_newcomers_check_page_asks_the_name_instead_of_warning_of_the_persona(
        alice_client, store, alice):
    """The file's replies by another character still warn; "In this chat you are Rook, but
    your persona is User" beside a field offering Rook said the same thing twice, at odds."""
    card = _greeting_card(store)
    text = alice_client.post("/chats/import", {
        "character_id": card,
        "file": SimpleUploadedFile("storm.jsonl", _st_chat("Rook", "Stranger"))}).content.decode()
    assert "but you picked" in text and "but your persona is" not in text
    assert re.search(r'name="player_name"[^>]* value="Rook"', text)


def test_a_players_name_too_long_for_a_persona_is_not_offered(alice_client, store, alice):
    card = _greeting_card(store)
    text = alice_client.post("/chats/import", {
        "character_id": card,
        "file": SimpleUploadedFile("long.jsonl", _st_chat("R" * 300, "Mira"))}).content.decode()
    field = re.search(r'<input[^>]*name="player_name"[^>]*>', text).group(0)
    assert "value=" not in field
