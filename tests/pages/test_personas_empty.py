"""The personas page before the first persona names the player as the chats do ("User", or
the account's full name: docs/decisions/newcomer-name.md)."""

from __future__ import annotations

import pytest

from library.models import Persona


@pytest.mark.django_db
def test_no_personas_yet_names_the_player_as_the_chats_do(alice_client, store, alice):
    page = alice_client.get("/library/personas/").content.decode()
    assert "until you make one, you are “User”." in page
    chinese = alice_client.get("/library/personas/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert "在创建之前，你的名字是“User”。" in chinese.content.decode()


@pytest.mark.django_db
def test_the_first_personas_default_box_is_ticked_and_does_what_it_says(alice_client, store,
                                                                         alice):
    """SillyTavern leaves a new persona not default until its crown is clicked; here the first
    one is made default for the player's ease, so the box shows it ticked and says why, and an
    unticked box is honoured (it was made default anyway)."""
    page = alice_client.get("/library/personas/").content.decode()
    assert 'data-testid="persona-new-default" checked' in page
    assert 'data-testid="persona-first-default"' in page
    chinese = alice_client.get("/library/personas/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert "你的第一个人设已勾选为默认人设" in chinese.content.decode()
    response = alice_client.post("/library/personas/", {"name": "Mira", "visibility": "private"})
    assert response.status_code == 302
    first = Persona.objects.get(name="Mira")
    assert first.is_default is False and store.persona_read(first.persona_id)["default"] is False
    page = alice_client.get("/library/personas/").content.decode()
    assert 'data-testid="persona-new-default">' in page  # not ticked once one exists
    assert 'data-testid="persona-first-default"' not in page
    alice_client.post("/library/personas/", {"name": "Kael", "visibility": "private",
                                            "default": "on"})
    assert Persona.objects.get(name="Kael").is_default is True


@pytest.mark.django_db
def test_rest_makes_the_first_persona_default_unless_told_not_to(client, alice, bob):
    client.force_login(alice)
    made = client.post("/api/v1/personas", {"name": "Mira", "default": False},
                       content_type="application/json")
    assert made.status_code == 201 and made.json()["default"] is False
    client.force_login(bob)
    made = client.post("/api/v1/personas", {"name": "Kael"}, content_type="application/json")
    assert made.status_code == 201 and made.json()["default"] is True
