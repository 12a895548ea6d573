"""Starting a scene with several characters straight from the home page and from a character's
page (issue 15): tick two or more characters, pick a background and who answers, start."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages

from library.character_services import character_save

pytestmark = pytest.mark.django_db


def test_the_home_page_starts_a_scene_with_the_characters_ticked(alice_client, store, character,
                                                                 shared_brenna, background):
    home = alice_client.get("/").content.decode()
    assert 'data-testid="start-group"' in home and 'name="character_ids"' in home

    response = alice_client.post("/instances/new?group=1", {
        "character_ids": [character, shared_brenna], "background_id": background,
        "reply_order": "everyone", "next": "/"})

    assert response.status_code == 302
    instance_id = response.url.rstrip("/").rsplit("/", 1)[1]
    state = store.instance_state_read(instance_id)
    assert [p["character_id"] for p in state["participants"]] == [character, shared_brenna]
    assert state["background_id"] == background and state["reply_order"] == "everyone"
    assert alice_client.get(response.url).status_code == 200


def test_the_characters_answer_in_the_order_they_were_ticked(alice_client, store, character,
                                                            shared_brenna, background):
    """The page's script sends the tick order; a garbled or partial one still starts the scene,
    the characters it does not name after those it does."""
    for order, expected in ((f"{shared_brenna},{character}", [shared_brenna, character]),
                            (f"x,{shared_brenna},,{shared_brenna}", [shared_brenna, character]),
                            ("", [character, shared_brenna])):
        response = alice_client.post("/instances/new?group=1", {
            "character_ids": [character, shared_brenna], "order": order, "reply_order": "list"})
        instance_id = response.url.rstrip("/").rsplit("/", 1)[1]
        state = store.instance_state_read(instance_id)
        assert [p["character_id"] for p in state["participants"]] == expected


def test_the_character_page_starts_a_scene_with_its_character_first(alice_client, store,
                                                                     character, shared_brenna):
    page = alice_client.get(f"/library/characters/{shared_brenna}/").content.decode()
    # above the editor: after a card's import it sat under the whole form
    assert page.index('data-testid="character-start"') < page.index('id="character-form"')
    assert f'name="first" value="{shared_brenna}"' in page

    response = alice_client.post("/instances/new?group=1", {
        "character_ids": [character, shared_brenna], "first": shared_brenna, "reply_order": "list"})

    instance_id = response.url.rstrip("/").rsplit("/", 1)[1]
    state = store.instance_state_read(instance_id)
    assert state["character_id"] == shared_brenna
    assert [p["character_id"] for p in state["participants"]] == [shared_brenna, character]


def test_nothing_ticked_or_a_bad_order_says_why_and_starts_nothing(alice_client, store, character,
                                                                   shared_brenna):
    for form in ({"next": f"/library/characters/{shared_brenna}/"},
                 {"character_ids": [character, shared_brenna], "reply_order": "loudest",
                  "next": f"/library/characters/{shared_brenna}/"}):
        response = alice_client.post("/instances/new?group=1", form)
        assert response.status_code == 302 and response.url == form["next"]
        said = " ".join(str(m) for m in get_messages(response.wsgi_request))
        assert "character" in said or "reply_order" in said
    assert store.instance_ids() == []


def test_another_accounts_private_character_cannot_join(alice_client, bob, store, character):
    secret = character_save(store, user=bob, character_id=None, data={
        "name": "Bob's secret", "base_persona": "x", "visibility": "private"})

    response = alice_client.post("/instances/new?group=1", {
        "character_ids": [character, secret], "next": "https://evil.example/"})

    assert response.status_code == 302 and response.url == "/"  # never an outside address
    assert store.instance_ids() == []
