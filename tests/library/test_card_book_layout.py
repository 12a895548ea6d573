"""A card's embedded book and the player's persona are laid out as SillyTavern 1.12.6 lays them
out with its default prompt order (issue 32, found by bench/st_side_by_side.py): an entry that
leaves the V2 `position` unset goes after the character, entries of the same insertion order read
in reverse of the order they fired in, and the persona sits between the lore before the
character and the character's description.
Cards are built here from the documented V2 format and played through real turns against the
stub server."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.services.instances import instance_create
from library.card_formats.card_import import character_import_card
from library.lore.services import lorebook_save
from library.personas.services import persona_create
from tests.library.lore_turns import lore_turn_run
from tests.rest_client import bearer_auth

pytestmark = pytest.mark.django_db(transaction=True)


def _card(entries: list[dict]) -> bytes:
    return json.dumps({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Amy", "description": "AMY-DESC Amy is a ranger.", "personality": "",
        "scenario": "", "first_mes": "Amy waves.", "mes_example": "", "creator_notes": "",
        "system_prompt": "", "post_history_instructions": "", "alternate_greetings": [],
        "tags": [], "creator": "", "character_version": "", "extensions": {},
        "character_book": {"name": "Amy's book", "entries": entries}}}).encode()


def _entry(uid: int, key: str, content: str, **extra) -> dict:
    return {"id": uid, "keys": [key], "content": content, "enabled": True,
            "insertion_order": 100, "extensions": {}, **extra}


def _play(store, alice, card: bytes, persona_id: str | None = None):
    character_id = character_import_card(store, data=card, filename="amy.json", user=alice)
    return instance_create(store, owner=alice, character_id=character_id, persona_id=persona_id)


async def _system_after_turn(store, instance, stub, text: str) -> str:
    await lore_turn_run(store, instance, text)
    return stub.requests[-1]["messages"][0]["content"]


async def test_an_entry_without_a_position_goes_after_the_character(store, alice, use_stub):
    instance = await sync_to_async(_play)(store, alice, _card([
        _entry(1, "wolves", "UNSET-LORE wolves howl."),
        _entry(2, "wolves", "BEFORE-LORE wolves hunt.", position="before_char")]))
    system = await _system_after_turn(store, instance, use_stub, "I hear wolves.")
    assert system.index("BEFORE-LORE") < system.index("AMY-DESC") < system.index("UNSET-LORE")


async def test_a_chain_of_equal_order_reads_from_its_last_link(store, alice, use_stub):
    instance = await sync_to_async(_play)(store, alice, _card([
        _entry(1, "Eldoria", "ELDORIA-LORE wolves follow Shadowfang."),
        _entry(2, "Shadowfang", "SHADOWFANG-LORE waits in the glade."),
        _entry(3, "glade", "GLADE-LORE is moonlit.")]))
    system = await _system_after_turn(store, instance, use_stub, "Tell me about Eldoria.")
    assert (system.index("GLADE-LORE") < system.index("SHADOWFANG-LORE")
            < system.index("ELDORIA-LORE"))


async def test_the_persona_sits_between_the_lore_before_the_character_and_the_character(
        store, alice, use_stub):
    def setup():
        persona_id = persona_create(store, owner=alice, data={
            "name": "Alex", "description": "PERSONA-TEXT Alex is a cartographer."})
        return _play(store, alice, _card([
            _entry(1, "wolves", "BEFORE-LORE wolves hunt.", position="before_char")]),
            persona_id)

    instance = await sync_to_async(setup)()
    system = await _system_after_turn(store, instance, use_stub, "I hear wolves.")
    assert system.index("BEFORE-LORE") < system.index("PERSONA-TEXT") < system.index("AMY-DESC")


def _linked_card(world: str) -> bytes:
    return json.dumps({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Linky", "description": "A courier.", "first_mes": "Hi.",
        "extensions": {"world": world}}}).encode()


@pytest.mark.django_db
def test_a_card_that_names_its_world_is_linked_to_the_importers_own_book_of_that_name(
        store, alice, bob):
    """SillyTavern links a card to a world-info book by name (`extensions.world`): imported
    without a book of its own, the card is linked to the importer's book of that name; another
    account's book of that name, private or shared, is never linked (a shared one was: anyone
    could name a book after a card's world and write into the importer's chats)."""
    bobs = lorebook_save(store, user=bob, data={"name": "Recur", "visibility": "private",
                                                "entries": []})
    assert store.character_read(character_import_card(
        store, data=_linked_card("Recur"), filename="a.json", user=alice)).get(
            "lorebook_ids") in (None, [])
    shared = lorebook_save(store, user=bob, data={"name": "Harbour", "visibility": "shared",
                                                  "entries": []})
    own = lorebook_save(store, user=alice, data={"name": "Recur", "visibility": "private",
                                                 "entries": []})
    for world, linked in (("Recur", [own]), ("Harbour", None)):
        character_id = character_import_card(store, data=_linked_card(world),
                                             filename="b.json", user=alice)
        assert store.character_read(character_id).get("lorebook_ids") == linked
    assert bobs != own and shared != own


@pytest.mark.django_db
def test_a_card_whose_world_the_importer_has_no_book_of_says_so(client, store, alice, bob):
    lorebook_save(store, user=bob, data={"name": "Harbour", "visibility": "shared",
                                         "entries": []})
    answer = client.post("/api/v1/characters/import",
                         {"file": SimpleUploadedFile("c.json", _linked_card("Harbour"))},
                         **bearer_auth(alice))
    assert answer.status_code == 201, answer.content
    assert answer.json()["warnings"][0].startswith(
        "This card reads the world info book “Harbour”, and you have no book of that name")
    client.force_login(alice)
    client.cookies["django_language"] = "zh-hans"
    page = client.post("/library/cards/upload",
                       {"file": SimpleUploadedFile("c.json", _linked_card("Harbour"))},
                       follow=True)
    assert "这张角色卡使用世界书“Harbour”，但你没有同名的世界书" in page.content.decode()
    own = lorebook_save(store, user=alice, data={"name": "Harbour", "entries": []})
    linked = client.post("/api/v1/characters/import",
                         {"file": SimpleUploadedFile("c.json", _linked_card("Harbour"))},
                         **bearer_auth(alice)).json()
    assert linked["warnings"] == []
    assert store.character_read(linked["character_id"])["lorebook_ids"] == [own]
