"""Pickers that stay small: another account's shared characters are not listed whole on every
page (bob may share 5,000), the rest are found by typing through GET /api/v1/characters/choices
(and, without the page's script, the page's own search field), labelled as a picker of every
character would label them; what is typed is matched as text."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from library import character_labels as label_rules
from library import character_picker
from library.character_services import character_save
from library.selectors import characters_visible_to
from tests.rest_client import bearer_auth

pytestmark = pytest.mark.django_db

CHOICES = "/api/v1/characters/choices"


def _made(store, user, name: str, visibility: str = "shared") -> str:
    return character_save(store, user=user, character_id=None, data={
        "name": name, "base_persona": f"{name}, as {user.username} wrote.", "greeting": "",
        "visibility": visibility})


def _options(page: str) -> dict[str, str]:
    """{id: label} of the start form's character select."""
    select = page[page.index('id="start-character"'):]
    select = select[:select.index("</select>")]
    return {value: html.unescape(label.strip()) for value, label in re.findall(
        r'<option value="([^"]+)"[^>]*>([^<]*)</option>', select)}


def _ticks(page: str) -> list[str]:
    return re.findall(r'name="character_ids" value="([^"]*)"', page)


@pytest.fixture
def few_offered(monkeypatch):
    monkeypatch.setattr(character_picker, "OTHERS_OFFERED", 3)


@pytest.fixture
def bobs(store, bob) -> list[str]:
    """Six shared characters of bob's, the last made the newest."""
    return [_made(store, bob, f"Troll {n}") for n in range(6)]


def test_the_home_page_offers_her_own_and_only_a_few_of_bobs_shared_ones(
        alice_client, store, alice, character, bobs, few_offered):
    page = alice_client.get("/").content.decode()
    offered = _options(page)
    assert character in offered  # her own, always
    assert [i for i in bobs if i in offered] == bobs[-3:]  # the newest three of bob's six
    assert set(_ticks(page)) == set(offered)
    # the rest are found by typing: the picker's script asks the REST route, and without a
    # script the page's own search field does
    assert f'data-find-url="{CHOICES}"' in page and 'data-testid="character-find"' in page


def test_a_chat_with_an_older_shared_character_keeps_it_offered(
        alice_client, store, alice, bobs, few_offered):
    response = alice_client.post("/instances/new", {"character_id": bobs[0]})
    assert response.status_code == 302
    offered = _options(alice_client.get("/").content.decode())
    assert bobs[0] in offered and len([i for i in bobs if i in offered]) == 3


def test_the_editor_offers_a_bounded_list_and_its_own_character(
        alice_client, store, alice, character, bobs, few_offered):
    page = alice_client.get(reverse("character_edit", args=[bobs[0]])).content.decode()
    ticks = _ticks(page)
    assert bobs[0] in ticks and character in ticks  # the page's own, and hers
    assert len([i for i in bobs if i in ticks]) == 3


def test_no_page_grows_with_bobs_shared_characters(alice_client, store, alice, character, bob,
                                                   few_offered):
    sizes = []
    for count in (3, 12):
        while len(characters_visible_to(user=bob).filter(owner=bob)) < count:
            _made(store, bob, "Alserqi")
        page = alice_client.get("/").content.decode()
        editor = alice_client.get(reverse("character_edit", args=[character])).content.decode()
        sizes.append((len(_options(page)), len(_ticks(editor))))
    assert sizes[0] == sizes[1] == (4, 4)


def test_search_finds_a_shared_namesake_labelled_as_a_whole_picker_would(
        client, store, alice, bob, character, bobs):
    mine = _made(store, alice, "Troll 0", visibility="private")
    answer = client.get(CHOICES, {"q": "troll 0"}, **bearer_auth(alice))
    assert answer.status_code == 200
    found = {c["character_id"]: c for c in answer.json()["characters"]}
    assert set(found) == {mine, bobs[0]}
    assert found[bobs[0]]["label"] == "Troll 0 · by bob" and found[bobs[0]]["owner"] == "bob"
    assert found[mine]["label"].startswith("Troll 0 · yours")
    everything = label_rules.character_labels(
        characters_visible_to(user=alice).values_list("character_id", "name"), user=alice)
    assert {i: c["label"] for i, c in found.items()} == {i: everything[i] for i in found}


def test_a_crowd_of_namesakes_is_numbered_as_a_whole_picker_numbers_it(
        client, store, alice, bob, monkeypatch):
    monkeypatch.setattr(label_rules, "HINTED_SAME_NAMES", 2)
    made = [_made(store, user, "Mira") for user in (alice, bob, bob, bob)]
    answer = client.get(CHOICES, {"q": "mira", "limit": 2}, **bearer_auth(alice)).json()
    assert answer["more"] is True and len(answer["characters"]) == 2
    everything = label_rules.character_labels(
        characters_visible_to(user=alice).values_list("character_id", "name"), user=alice)
    assert sorted(everything[i] for i in made) == [
        "Mira · by bob 1", "Mira · by bob 2", "Mira · by bob 3", "Mira · yours"]
    every = client.get(CHOICES, {"q": "mira"}, **bearer_auth(alice)).json()["characters"]
    assert {c["character_id"]: c["label"] for c in every} == {i: everything[i] for i in made}


def test_another_accounts_private_characters_are_never_found(client, store, alice, bob, staff):
    hidden = _made(store, bob, "Secret Troll", visibility="private")
    for text in ("secret", "troll", "secret troll"):
        answer = client.get(CHOICES, {"q": text}, **bearer_auth(alice)).json()
        assert answer == {"characters": [], "more": False}
    client.force_login(alice)
    assert hidden not in client.get("/", {"find": "secret"}).content.decode()
    staff_found = client.get(CHOICES, {"q": "secret"}, **bearer_auth(staff)).json()
    assert [c["character_id"] for c in staff_found["characters"]] == [hidden]


@pytest.mark.parametrize("text", ["%", "_", "%%", ".*", "(a+)+$", "[", "\\", "' OR 1=1 --"])
def test_what_is_typed_is_matched_as_text(client, store, alice, bob, character, text):
    _made(store, bob, "Plain")
    literal = _made(store, bob, f"Odd {text} name")
    answer = client.get(CHOICES, {"q": text}, **bearer_auth(alice))
    assert answer.status_code == 200
    assert [c["character_id"] for c in answer.json()["characters"]] == [literal]


def test_a_search_too_long_is_refused_with_a_sentence(client, alice, alice_client, character):
    answer = client.get(CHOICES, {"q": "a" * 10_000}, **bearer_auth(alice))
    assert answer.status_code == 400
    assert "at most 100 characters" in answer.json()["error"]["message"]
    words = client.get(CHOICES, {"q": "a " * 9}, **bearer_auth(alice))
    assert words.status_code == 400 and "words" in words.json()["error"]["message"]
    assert client.get(CHOICES, {"q": "   "}, **bearer_auth(alice)).json()["characters"] == []
    page = alice_client.get("/", {"find": "a" * 10_000})
    assert page.status_code == 200 and 'data-testid="character-find-error"' in page.content.decode()


@pytest.mark.parametrize("text", ["\0", "Plain\0", "\0%"])
def test_a_nul_is_refused_not_read_as_the_patterns_end(client, alice, alice_client, store, bob,
                                                       text):
    # Eighth red-team pass: SQLite's LIKE stopped at the NUL, so "\0" found every character
    # the account sees (and PostgreSQL answers such a query with an error: a 500).
    _made(store, bob, "Plain")
    answer = client.get(CHOICES, {"q": text}, **bearer_auth(alice))
    assert answer.status_code == 400
    assert "NUL" in answer.json()["error"]["message"]
    page = alice_client.get("/", {"find": text}).content.decode()
    assert 'data-testid="character-find-error"' in page and "NUL" in page


def test_without_the_script_the_page_finds_her_a_shared_character_and_she_plays_it(
        alice_client, store, alice, character, bobs, few_offered):
    assert bobs[0] not in _options(alice_client.get("/").content.decode())
    page = alice_client.get("/", {"find": "troll 0"}).content.decode()
    offered = _options(page)
    assert next(iter(offered)) == bobs[0] and offered[bobs[0]] == "Troll 0"
    response = alice_client.post("/instances/new", {"character_id": bobs[0]})
    instance_id = response["Location"].rstrip("/").rsplit("/", 1)[-1]
    assert store.instance_state_read(instance_id)["character_id"] == bobs[0]


def test_the_route_is_in_the_openapi_schema(client, alice):
    schema = client.get("/api/v1/openapi.json", **bearer_auth(alice)).json()
    route = schema["paths"]["/api/v1/characters/choices"]["get"]
    assert {p["name"] for p in route["parameters"]} == {"q", "limit"}
    answer = route["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    shape = schema["components"]["schemas"][answer.rsplit("/", 1)[-1]]
    assert set(shape["properties"]) == {"characters", "more"}


def _member_options(page: str) -> list[str]:
    select = page[page.index('id="member-add"'):]
    return re.findall(r'<option value="([^"]+)"', select[:select.index("</select>")])


def test_without_the_script_the_members_card_finds_a_shared_character_to_add(
        alice_client, store, alice, instance, bobs, few_offered):
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert bobs[0] not in _member_options(page) and 'data-testid="character-find"' in page
    page = alice_client.get(f"/instances/{instance}/", {"find": "troll 0"}).content.decode()
    assert _member_options(page)[0] == bobs[0]
    assert re.search(r'id="members-card"[^>]* open>', page)  # the card shows what was found
    added = alice_client.post(f"/instances/{instance}/members",
                              {"action": "add", "character_id": bobs[0]})
    assert added.status_code == 200
    members = store.instance_state_read(instance)["participants"]
    assert bobs[0] in [m["character_id"] for m in members]


def _import_picks(page: str) -> list[list[str]]:
    """Per speaker row of the import check page: its options, the selected one first."""
    rows = []
    for options in re.findall(r'data-testid="import-check-character"[^>]*>(.*?)</select>', page,
                              re.DOTALL):
        chosen = re.findall(r'<option value="([^"]*)"[^>]* selected>', options) or [""]
        rows.append(chosen + re.findall(r'<option value="([^"]*)"', options))
    return rows


def test_without_the_script_the_import_check_finds_a_shared_character_and_keeps_the_picks(
        alice_client, store, alice, character, bobs, few_offered):
    lines = [{"user_name": "Ann", "character_name": "Nobody", "chat_metadata": {}},
             {"name": "Ann", "is_user": True, "mes": "Hello?", "send_date": "2024-03-05"},
             {"name": "Nobody", "is_user": False, "mes": "Hi.", "send_date": "2024-03-05"},
             {"name": "Stranger", "is_user": False, "mes": "Hm.", "send_date": "2024-03-05"}]
    upload = SimpleUploadedFile("c.jsonl", "".join(json.dumps(x) + "\n" for x in lines).encode())
    page = alice_client.post("/chats/import", {"file": upload, "next": "/library/"})
    text = page.content.decode()
    assert page.status_code == 200 and 'data-testid="character-find"' in text
    token = re.search(r'name="token" value="([0-9a-f]{32})"', text).group(1)
    assert all(bobs[0] not in row for row in _import_picks(text))
    found = alice_client.post("/chats/import", {
        "token": token, "next": "/library/", "confirmed": "1", "find_go": "1",
        "find": "troll 0", "character_ids": [character, ""], "player_name": "Ann"})
    text = found.content.decode()
    assert found.status_code == 200
    picks = _import_picks(text)
    assert picks[0][0] == character and picks[1][0] == ""  # each speaker's pick, kept
    assert all(row[1:3] == ["", bobs[0]] for row in picks)  # "not in this chat", then found
    assert 'value="Ann"' in text and 'value="troll 0"' in text
    done = alice_client.post("/chats/import", {
        "token": token, "next": "/library/", "confirmed": "1",
        "character_ids": [character, bobs[0]], "player_name": "Ann"})
    assert done.status_code == 302 and "/instances/" in done["Location"]
