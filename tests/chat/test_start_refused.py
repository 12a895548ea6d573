"""A refused chat start (a limit, a choice the server will not take) comes back on the page the
form was on with the refusal and what the player chose: the character, the background, the
ticked members and their order, who answers, the name they typed (library/start_kept.py)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from chat.models import Instance
from library.background_services import background_save

pytestmark = pytest.mark.django_db


def _selected(page: str, select_id: str) -> list[str]:
    select = page[page.index(f'id="{select_id}"'):]
    return re.findall(r'<option value="([^"]*)"[^>]* selected>', select[:select.index("</select>")])


@pytest.fixture
def second_background(store, alice) -> str:
    return background_save(store, user=alice, data={"name": "Harbour", "visibility": "private"})


def test_a_start_over_the_limit_comes_back_with_the_choices_and_the_refusal(
        alice_client, store, alice, character, brenna, background, second_background, settings):
    settings.PERSONALAB_INSTANCES_PER_ACCOUNT = 1
    alice_client.post("/instances/new", {"character_id": character})
    refused = alice_client.post("/instances/new", {
        "character_id": brenna, "background_id": second_background, "player_name": "Kit"},
        HTTP_REFERER="http://testserver/", follow=True)
    page = refused.content.decode()
    assert Instance.objects.filter(owner=alice).count() == 1
    assert '<li class="error">You have 1 chats' in page.replace("\n", " ")
    assert _selected(page, "start-character") == [brenna]
    assert _selected(page, "start-background") == [second_background]
    assert 'id="start-player-name"' in page and 'value="Kit"' in page
    # read once: the page opened again is the form as new
    again = alice_client.get("/").content.decode()
    assert _selected(again, "start-character") == [] and 'value="Kit"' not in again


def test_a_refused_scene_comes_back_with_who_was_ticked_and_who_answers(
        alice_client, store, alice, character, brenna, second_background, settings):
    settings.PERSONALAB_INSTANCES_PER_ACCOUNT = 1
    alice_client.post("/instances/new", {"character_id": character})
    refused = alice_client.post("/instances/new?group=1", {
        "character_ids": [brenna, character], "order": f"{brenna},{character}",
        "background_id": second_background, "reply_order": "manual", "player_name": "Kit"},
        HTTP_REFERER="http://testserver/", follow=True)
    page = refused.content.decode()
    ticked = re.findall(r'name="character_ids" value="([^"]+)" checked', page)
    assert sorted(ticked) == sorted([character, brenna])
    assert _selected(page, "group-background") == [second_background]
    assert 'value="manual" selected' in page
    assert f'name="order" value="{brenna},{character}"' in page
    assert 'id="group-player-name"' in page and 'value="Kit"' in page
    assert _selected(page, "start-character") == []  # the other form stays as new


def test_a_scene_refused_on_the_characters_page_opens_its_start_with_the_ticks(
        alice_client, store, alice, character, brenna, second_background, settings):
    settings.PERSONALAB_INSTANCES_PER_ACCOUNT = 1
    alice_client.post("/instances/new", {"character_id": character})
    editor = reverse("character_edit", args=[character])
    refused = alice_client.post("/instances/new?group=1", {
        "first": character, "character_ids": [brenna], "background_id": second_background},
        HTTP_REFERER=f"http://testserver{editor}", follow=True)
    page = refused.content.decode()
    assert refused.redirect_chain[-1][0].endswith(editor)
    assert re.search(r'<details class="card" data-testid="character-start"[^>]* open>', page)
    ticked = re.findall(r'name="character_ids" value="([^"]+)" checked', page)
    assert sorted(ticked) == sorted([character, brenna])
    assert _selected(page, "group-background") == [second_background]
