"""Lossless character editing: the web editor keeps every field it does not show, a save with
no change leaves the definition file as it was, and limits are generous with named refusals. A
new character's editor opens on the sections a newcomer fills first."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from library.card_formats.card_import import character_import_card
from library.card_formats.export import character_export_card
from tests.library.browser_forms import character_form_submitted
from tests.library.card_samples import big_card

pytestmark = pytest.mark.django_db


def test_a_save_with_no_change_leaves_the_definition_and_the_card_as_they_were(
        alice_client, alice, store):
    card = big_card()
    character_id = character_import_card(store, user=alice, data=json.dumps(card).encode(),
                                         filename="mira.json")
    path = store.character_dir(character_id) / "definition.json"
    before = json.loads(path.read_text(encoding="utf-8"))
    url = reverse("character_edit", args=[character_id])

    page = alice_client.get(url)
    assert "Made by hand." in page.content.decode()  # creator's notes shown to the player
    response = alice_client.post(url, character_form_submitted(page.content.decode()))
    assert response.status_code == 302

    assert json.loads(path.read_text(encoding="utf-8")) == before
    exported = json.loads(character_export_card(store, character_id=character_id, fmt="json",
                                                spec="v3"))
    assert exported["data"] == card["data"] and exported["x_other_app"] == {"rating": 5}
    assert len(exported["data"]["tags"]) == 36 and "sci-fi, noir" in exported["data"]["tags"]


def test_an_edited_card_field_is_saved_and_the_rest_kept(alice_client, alice, store):
    character_id = character_import_card(store, user=alice, data=json.dumps(big_card()).encode(),
                                         filename="mira.json")
    url = reverse("character_edit", args=[character_id])
    submitted = character_form_submitted(alice_client.get(url).content.decode())
    submitted["post_history_instructions"] = ["Stay brief.\r\nNever speak for {{user}}."]
    assert alice_client.post(url, submitted).status_code == 302
    data = store.character_read(character_id)["card"]["data"]
    assert data["post_history_instructions"] == "Stay brief.\nNever speak for {{user}}."
    assert data["extensions"]["other_app"] == {"keep": [1, 2, 3]} and data["nickname"] == "M"


def test_refusals_name_the_field_and_keep_the_file(alice_client, alice, store):
    character_id = character_import_card(store, user=alice, data=json.dumps(big_card()).encode(),
                                         filename="mira.json")
    path = store.character_dir(character_id) / "definition.json"
    before = path.read_bytes()
    url = reverse("character_edit", args=[character_id])
    submitted = character_form_submitted(alice_client.get(url).content.decode())
    too_long = {**submitted, "mes_example": ["x" * 1_000_001]}
    response = alice_client.post(url, too_long)
    assert response.status_code == 400 and "mes_example" in response.content.decode()
    too_many = {**submitted, "tags": ["\n".join(f"t{n}" for n in range(1001))]}
    response = alice_client.post(url, too_many)
    assert response.status_code == 400 and "tags" in response.content.decode()
    assert path.read_bytes() == before


def test_card_import_refusals_name_the_field(client, alice, store):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from chat.models import ApiToken

    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    card = big_card()
    card["data"]["tags"] = 5
    response = client.post("/api/v1/characters/import", {"file": SimpleUploadedFile(
        "bad.json", json.dumps(card).encode(), "application/json")}, **auth)
    assert response.status_code == 400
    error = response.json()["error"]
    assert "tags" in error["message"] and "data.tags" in error["fields"]

    big = big_card()
    big["data"]["name"] = "N" * 201
    response = client.post("/api/v1/characters/import", {"file": SimpleUploadedFile(
        "long.json", json.dumps(big).encode(), "application/json")}, **auth)
    assert response.status_code == 400 and "name" in response.json()["error"]["fields"]


def _greetings(store, character_id):
    return store.character_read(character_id)["card"]["data"]["alternate_greetings"]


def test_alternate_greetings_are_edited_one_box_each_added_removed_and_reordered(
        alice_client, alice, store):
    card = big_card()
    card["data"]["alternate_greetings"] = ["You're awake.", "Again?  ", "Morning, {{user}}."]
    character_id = character_import_card(store, user=alice, data=json.dumps(card).encode(),
                                         filename="mira.json")
    url = reverse("character_edit", args=[character_id])
    submitted = character_form_submitted(alice_client.get(url).content.decode())
    assert submitted["alternate_greetings"] == ["You're awake.", "Again?  ",
                                                "Morning, {{user}}."]
    # Reordered (as the page's arrows do), the first one removed, one added.
    submitted["alternate_greetings"] = ["Morning, {{user}}.", "Again?"]
    submitted["alternate_greeting_new"] = ["Who are you?\r\nSpeak."]
    assert alice_client.post(url, submitted).status_code == 302
    # The unchanged one keeps its stored form (trailing spaces the browser dropped).
    assert _greetings(store, character_id) == ["Morning, {{user}}.", "Again?  ",
                                               "Who are you?\nSpeak."]
    # Emptying a box removes that greeting; the rest of the card is untouched.
    submitted = character_form_submitted(alice_client.get(url).content.decode())
    submitted["alternate_greetings"][0] = ""
    assert alice_client.post(url, submitted).status_code == 302
    assert _greetings(store, character_id) == ["Again?  ", "Who are you?\nSpeak."]
    exported = json.loads(character_export_card(store, character_id=character_id, fmt="json",
                                                spec="v3"))
    assert exported["data"]["alternate_greetings"] == ["Again?  ", "Who are you?\nSpeak."]
    assert exported["data"]["extensions"] == card["data"]["extensions"]


def test_a_character_without_a_card_gets_greetings_and_a_refusal_names_the_field(
        alice_client, alice, store, character):
    url = reverse("character_edit", args=[character])
    submitted = character_form_submitted(alice_client.get(url).content.decode())
    submitted["alternate_greeting_new"] = ["Hello again."]
    assert alice_client.post(url, submitted).status_code == 302
    assert _greetings(store, character) == ["Hello again."]
    from library.character_services import character_save
    from library.errors import LibraryError

    with pytest.raises(LibraryError) as refused:
        character_save(store, data={**store.character_read(character),
                                    "alternate_greetings": "not a list"},
                       character_id=character, user=alice)
    assert refused.value.fields == {"alternate_greetings": "must be a list of text"}


def test_rest_put_replaces_the_alternate_greetings_and_names_the_field_when_refused(
        client, alice, store):
    from chat.models import ApiToken

    card = big_card()
    character_id = character_import_card(store, user=alice, data=json.dumps(card).encode(),
                                         filename="mira.json")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    url = f"/api/v1/characters/{character_id}"
    response = client.put(url, {"alternate_greetings": ["Again?", "New one."]},
                          content_type="application/json", **auth)
    assert response.status_code == 200
    assert _greetings(store, character_id) == ["Again?", "New one."]
    refused = client.put(url, {"alternate_greetings": [1, 2]},
                         content_type="application/json", **auth)
    assert refused.status_code == 400
    assert "alternate_greetings" in refused.json()["error"]["fields"]
    assert _greetings(store, character_id) == ["Again?", "New one."]


class _Sections(HTMLParser):
    """The editor's <details data-section> folds: which are open, and the section of each field."""

    def __init__(self) -> None:
        super().__init__()
        self.open: dict[str, bool] = {}
        self.field_section: dict[str, str] = {}
        self._details: list[str | None] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "details":
            section = attributes.get("data-section")
            self._details.append(section)
            if section:
                self.open[section] = "open" in attributes
        elif tag in ("input", "textarea", "select") and attributes.get("name"):
            inside = [s for s in self._details if s]
            self.field_section.setdefault(attributes["name"], inside[-1] if inside else "")

    def handle_endtag(self, tag):
        if tag == "details" and self._details:
            self._details.pop()


def test_a_new_character_opens_on_basics_and_its_greeting(alice_client):
    """What the author sees first is the server's: Basics and Greetings are open, the example
    dialogues folded (static/card_form.js only reopens what was opened on this page before)."""
    sections = _Sections()
    sections.feed(alice_client.get("/library/characters/new").content.decode())
    assert sections.field_section["name"] == "basics"
    assert sections.field_section["greeting"] == "greetings"
    assert sections.field_section["mes_example"] == "examples"
    assert sections.open["basics"] and sections.open["greetings"]
    assert not sections.open["examples"]


def test_a_refused_new_character_shows_back_everything_typed(alice_client, store):
    """A refusal (talkativeness out of range) shows the form as typed: tags one per line (not one
    letter per line), example dialogues, system prompt and the greeting being added."""
    submitted = character_form_submitted(alice_client.get("/library/characters/new")
                                         .content.decode())
    submitted.update(name=["Mirelle"], tags=["explorer\r\ncartography"], talkativeness=["3"],
                     mes_example=["<START>\n{{char}}: Down."], system_prompt=["Be terse."],
                     alternate_greeting_new=["Who sent you?"])
    response = alice_client.post("/library/characters/new", submitted)
    assert response.status_code == 400
    shown = character_form_submitted(response.content.decode())
    assert shown["tags"] == ["explorer\r\ncartography"]
    assert shown["mes_example"] == ["<START>\r\n{{char}}: Down."]
    assert shown["system_prompt"] == ["Be terse."]
    assert shown["alternate_greetings"] == ["Who sent you?"]
    assert shown["talkativeness"] == ["3"] and store.character_ids() == []


def test_the_fields_a_newcomer_would_not_know_say_what_they_are(alice_client):
    """"Base persona" is SillyTavern's description (a card's personality and scenario join it);
    "Never forget" is sent with every reply. Each box names its help for a screen reader."""
    page = alice_client.get("/library/characters/new").content.decode()
    assert 'aria-describedby="base-persona-help"' in page
    assert "(SillyTavern&#x27;s description)" in page or "(SillyTavern's description)" in page
    assert 'aria-describedby="pinned-prompt-help"' in page and "with every reply" in page
