"""A persona's world-info book (SillyTavern 1.12.8's persona lorebook, `getPersonaLore`): linked
on the persona over REST or on its page, scanned in every chat the persona plays, weighed after
the chat's own books and before the character's and the background's."""

from __future__ import annotations

import asyncio

import pytest

from chat.models import ApiToken
from chat.play.context import context_load
from chat.play.lore import WORLD_INFO_BUDGET_PERCENT, lore_for_turn
from chat.play.turn import turn_run
from chat.prompt.window import ContextWindow
from library.character_services import character_save
from library.lore.services import lorebook_save
from library.personas.services import persona_create, persona_update
from personalab.lib.tokens import count_tokens

pytestmark = pytest.mark.django_db(transaction=True)

LORE = "The ferry leaves at dawn."


def _book(store, user, name: str, *, order: int = 100, content: str = LORE) -> str:
    return lorebook_save(store, user=user, data={"name": name, "entries": [
        {"uid": 1, "keys": ["ferry"], "priority": order, "content": content}]})


def _turn(store, instance_id: str, text: str) -> None:
    async def emit(event):
        pass

    asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=emit))


def _sent_text(stub) -> str:
    return "\n".join(m["content"] for m in stub.requests[-1]["messages"])


def test_a_personas_book_fires_in_its_chats_and_unlinking_it_stops_it(
        client, store, alice, instance, use_stub):
    book = _book(store, alice, "Harbor", content="HARBOR-LORE: the ferry leaves at dawn.")
    persona = persona_create(store, owner=alice, data={"name": "Wren", "default": True})
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    url = f"/api/v1/personas/{persona}"
    _turn(store, instance, "When does the ferry go?")
    assert "HARBOR-LORE" not in _sent_text(use_stub)

    answer = client.put(url, {"lorebook_id": book}, content_type="application/json", **auth)
    assert answer.status_code == 200, answer.content
    assert answer.json()["lorebook_id"] == book
    _turn(store, instance, "When does the ferry go?")
    assert "HARBOR-LORE" in _sent_text(use_stub)

    answer = client.put(url, {"lorebook_id": ""}, content_type="application/json", **auth)
    assert answer.json()["lorebook_id"] is None
    _turn(store, instance, "When does the ferry go?")
    assert "HARBOR-LORE" not in _sent_text(use_stub)


def test_another_accounts_private_book_is_refused_naming_the_field(client, store, alice, bob):
    bobs = _book(store, bob, "Secret")
    persona = persona_create(store, owner=alice, data={"name": "Wren"})
    answer = client.put(f"/api/v1/personas/{persona}", {"lorebook_id": bobs},
                        content_type="application/json",
                        HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert answer.status_code == 400, answer.content
    assert "lorebook_id" in answer.content.decode()
    assert "lorebook_id" not in store.persona_read(persona)


def test_persona_lore_of_a_low_order_is_kept_over_the_characters_of_a_high_one(
        store, alice, character, instance):
    persona_book = _book(store, alice, "Persona", order=1)
    character_book = _book(store, alice, "Character", order=900)
    persona = persona_create(store, owner=alice, data={"name": "Wren", "default": True})
    persona_update(store, actor=alice, persona_id=persona, data={"lorebook_id": persona_book})
    character_save(store, data={**store.character_read(character),
                                "lorebook_ids": [character_book]},
                   character_id=character, user=alice)
    budget = count_tokens(f"{LORE}\n") + 1  # room for one entry
    window = ContextWindow(tokens=budget * 100 // WORLD_INFO_BUDGET_PERCENT, reply=1,
                           source="setting")
    with store.instance_lock(instance):
        ctx = context_load(store, instance_id=instance, user_text="When does the ferry go?")
    lore = lore_for_turn(store, ctx, window)
    assert [entry["lorebook_id"] for entry in lore["fired"]] == [persona_book]
    assert [entry["lorebook_id"] for entry in lore["dropped"]] == [character_book]


def test_the_persona_page_links_a_book(alice_client, store, alice):
    book = _book(store, alice, "Harbor")
    persona = persona_create(store, owner=alice, data={"name": "Wren"})
    page = alice_client.get(f"/library/personas/{persona}/")
    assert 'data-testid="persona-lorebook"' in page.content.decode()
    answer = alice_client.post(f"/library/personas/{persona}/", {
        "name": "Wren", "description": "", "visibility": "private", "lorebook_id": book})
    assert answer.status_code == 302, answer.content
    assert store.persona_read(persona)["lorebook_id"] == book


def test_another_account_reading_a_shared_persona_sees_no_link_to_a_private_book(
        client, store, alice, bob):
    book = _book(store, alice, "Diary of Bea")  # private: its id names it
    persona = persona_create(store, owner=alice, data={"name": "Wren", "visibility": "shared"})
    persona_update(store, actor=alice, persona_id=persona, data={"lorebook_id": book})
    for user, shown in ((alice, book), (bob, None)):
        auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}
        assert client.get(f"/api/v1/personas/{persona}", **auth).json()["lorebook_id"] == shown
        listed = client.get("/api/v1/personas", **auth).json()["personas"]
        assert [p["lorebook_id"] for p in listed if p["persona_id"] == persona] == [shown]
