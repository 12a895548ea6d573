"""SillyTavern names a character by its avatar file ("Seraphina1" for a second "Seraphina",
"default_Seraphina" for its own), and exports a card named after that file: the import keeps
the file's name, so a book's character filter and settings.json's charLore find the character
by it (SillyTavern's `getCharaFilename`)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.models import ApiToken
from chat.play.context import context_load
from chat.play.lore import lore_for_turn
from chat.prompt.window import ContextWindow
from chat.prompt.world_info import lore_speaker
from chat.services.instance_settings import instance_update
from chat.services.instances import instance_create
from library.card_formats.card_import import character_import_card
from library.character_books import character_books_from_settings
from library.character_services import character_save
from library.item_copy import item_copy
from library.lore.character_filter import character_filter_reason
from library.lore.services import lorebook_save

pytestmark = pytest.mark.django_db


def _card(name: str) -> bytes:
    return json.dumps({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": name, "description": "", "first_mes": "Hello."}}).encode()


def test_a_filter_naming_the_avatar_file_lets_its_character_through(store, alice):
    character_id = character_import_card(store, data=_card("Seraphina"),
                                         filename="default_Seraphina.json", user=alice)
    speaker = lore_speaker(store.character_read(character_id), character_id,
                           player=alice.username, lorebooks=[])
    only = {"character_filter": {"names": ["default_Seraphina"], "tags": [], "isExclude": False}}
    assert character_filter_reason(only, speaker) == ""
    only["character_filter"]["isExclude"] = True
    assert character_filter_reason(only, speaker).startswith("character filter: not for")


def _sera_shared(store, alice) -> str:
    """alice's card imported from "Seraphina3.png" (its st_avatar), shared."""
    character_id = character_import_card(store, data=_card("Sera"),
                                         filename="Seraphina3.png", user=alice)
    character_save(store, data={"visibility": "shared", "name": "Sera"},
                   character_id=character_id, user=alice)
    return character_id


def test_another_accounts_character_is_named_by_its_file_only_in_its_authors_books(
        store, alice, bob):
    # bob's own book with a filter naming a guess of alice's card file told him, in his
    # prompt inspector, whether the guess was right (the file's name is kept from him).
    character_id = _sera_shared(store, alice)
    hers = store.lorebook_read(lorebook_save(store, user=alice, data={
        "name": "Sera's world", "visibility": "shared", "entries": []}))
    his = store.lorebook_read(lorebook_save(store, user=bob, data={"name": "Guesses",
                                                                   "entries": []}))
    character = store.character_read(character_id)
    guess = {"character_filter": {"names": ["Seraphina3"], "tags": [], "isExclude": False}}
    by_name = {"character_filter": {"names": ["Sera"], "tags": [], "isExclude": False}}
    for_bob = lore_speaker(character, character_id, player=bob.username, lorebooks=[hers, his])
    assert character_filter_reason({**guess, "lorebook_id": his["lorebook_id"]}, for_bob)
    assert character_filter_reason({**guess, "lorebook_id": hers["lorebook_id"]}, for_bob) == ""
    assert character_filter_reason({**by_name, "lorebook_id": his["lorebook_id"]}, for_bob) == ""
    # In alice's own chats every book of hers names it by its file, as SillyTavern does.
    for_alice = lore_speaker(character, character_id, player=alice.username, lorebooks=[hers])
    assert character_filter_reason({**guess, "lorebook_id": "lore_any"}, for_alice) == ""


def test_a_turn_of_bobs_fires_his_guess_of_alices_file_name_in_no_book_of_his(store, alice, bob):
    # The same through a turn: the filter is judged against the chat's owner, not the author.
    character_id = character_import_card(store, data=_card("Sera"),
                                         filename="Seraphina3.png", user=alice)
    only = {"keys": ["ferry"], "content": "The ferry leaves at dawn.",
            "character_filter": {"names": ["Seraphina3"], "tags": [], "isExclude": False}}
    hers = lorebook_save(store, user=alice, data={"name": "Hers", "visibility": "shared",
                                                  "entries": [{"uid": 1, **only}]})
    character_save(store, data={"visibility": "shared", "name": "Sera",
                                "lorebook_ids": [hers]}, character_id=character_id, user=alice)
    his = lorebook_save(store, user=bob, data={"name": "Guesses", "entries": [{"uid": 1, **only}]})
    fired = {}
    for owner in (bob, alice):
        chat = instance_create(store, owner=owner, character_id=character_id)
        instance_update(store, user=owner, instance_id=chat, lorebook_ids=[his]
                        if owner == bob else [])
        with store.instance_lock(chat):
            ctx = context_load(store, instance_id=chat, user_text="When does the ferry go?")
        lore = lore_for_turn(store, ctx, ContextWindow(tokens=8000, reply=1, source="setting"))
        fired[owner.username] = sorted(entry["lorebook_id"] for entry in lore["fired"])
    assert fired == {"bob": [hers], "alice": [hers]}


def test_charlore_finds_the_numbered_file_by_the_card_it_came_in(client, store, alice):
    # "Pia1.png" was refused as which of two "Pia"s it meant could not be told by name.
    book = lorebook_save(store, user=alice, data={"name": "Harbour", "entries": []})
    character_save(store, data={"name": "Pia", "base_persona": "", "greeting": ""},
                   character_id=None, user=alice)
    second = character_import_card(store, data=_card("Pia"), filename="Pia1.json", user=alice)
    data = json.dumps({"world_info": {"charLore": [
        {"name": "Pia1.png", "extraBooks": ["Harbour"]}]}}).encode()
    answer = client.post("/api/v1/world_info/character_books/import",
                         {"file": SimpleUploadedFile("settings.json", data)},
                         HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert answer.status_code == 200, answer.content
    assert answer.json()["refused"] == []
    assert answer.json()["linked"] == [{"character_id": second, "name": "Pia",
                                        "lorebook_ids": [book]}]


def test_a_filter_naming_pia_does_not_mean_the_card_that_came_in_pia1():
    # SillyTavern lists a second "Pia" as "Pia1": its filter "Pia" is the first one's file, so
    # the entry never fired for the second there, and did here by the shared name.
    speaker = {"name": "Pia", "id": "c2", "tags": [], "avatar": "Pia1"}
    only = {"character_filter": {"names": ["Pia"], "tags": [], "isExclude": False}}
    assert character_filter_reason(only, speaker).startswith("character filter: only for")
    only["character_filter"]["names"] = ["Pia1"]
    assert character_filter_reason(only, speaker) == ""
    plain = {"name": "Pia", "id": "c1", "tags": [], "avatar": "Pia_v2"}
    only["character_filter"]["names"] = ["Pia"]
    assert character_filter_reason(only, plain) == ""  # not SillyTavern's numbering: by name


def test_a_charlore_import_reads_each_of_the_accounts_characters_once_not_at_every_upload(
        store, alice, monkeypatch):
    # Every upload read every character file of the account whole to find its st_avatar (5,000
    # characters of 1 MB: about 15 s of CPU each time); now once while the file is the same.
    ids = [character_import_card(store, data=_card(f"C{n}"), filename=f"C{n}.png.json",
                                 user=alice) for n in range(3)]
    book = lorebook_save(store, user=alice, data={"name": "Harbour", "entries": []})
    data = json.dumps({"world_info": {"charLore": [
        {"name": "C1.png", "extraBooks": ["Harbour"]}]}}).encode()
    assert character_books_from_settings(store, user=alice, data=data)["linked"][0][
        "lorebook_ids"] == [book]
    character_books_from_settings(store, user=alice, data=data)  # C1's file was written
    reads, read_bytes = [], Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda path: (
        reads.append(path.name) if path.name == "definition.json" else None) or read_bytes(path))
    again = character_books_from_settings(store, user=alice, data=data)
    assert again["linked"] == [{"character_id": ids[1], "name": "C1", "lorebook_ids": [book]}]
    assert not reads and store.character_read(ids[1])["lorebook_ids"] == [book]


def test_a_shared_characters_card_file_name_reaches_its_owner_alone(client, store, alice, bob,
                                                                     as_alice, as_bob):
    # The import keeps the file's name ("bea_diary_private"): GET, the list, a copy and the
    # card downloads showed it to every account that could read the shared character.
    character_id = character_import_card(store, data=_card("Bea"),
                                         filename="bea_diary_private.png.json", user=alice)
    character_save(store, data={"visibility": "shared", "name": "Bea"},
                   character_id=character_id, user=alice)
    assert as_alice("get", f"/api/v1/characters/{character_id}").json()[
        "st_avatar"] == "bea_diary_private.png"
    assert "st_avatar" not in as_bob("get", f"/api/v1/characters/{character_id}").json()
    listed = as_bob("get", "/api/v1/characters").json()["characters"]
    assert [c for c in listed if c["character_id"] == character_id][0].keys() >= {"name"}
    assert "bea_diary" not in json.dumps(listed)
    # Sent back, it is a field bob was never shown (no telling a right guess from a wrong one).
    guess = as_bob("put", f"/api/v1/characters/{character_id}",
                   {"st_avatar": "bea_diary_private.png"})
    assert guess.json()["error"]["code"] == "unknown_field"
    copied = as_bob("post", f"/api/v1/characters/{character_id}/copy").json()["character_id"]
    assert "st_avatar" not in store.character_read(copied)
    for fmt in ("json", "png", "charx"):
        body = as_bob("get", f"/api/v1/characters/{character_id}/card.{fmt}").content
        assert b"bea_diary" not in body, fmt
    client.force_login(bob)
    assert b"bea_diary" not in client.get(f"/library/characters/{character_id}/").content


def test_charlore_links_only_the_importers_own_books_and_lists_the_others(client, store, alice,
                                                                         bob):
    # bob's shared "Harbour" was linked into alice's character: his text in her chats.
    bobs = lorebook_save(store, user=bob, data={"name": "Harbour", "visibility": "shared",
                                                "entries": []})
    character_save(store, data={"name": "Pia", "base_persona": "", "greeting": ""},
                   character_id=None, user=alice)
    data = json.dumps({"world_info": {"charLore": [
        {"name": "Pia.png", "extraBooks": ["Harbour"]}]}}).encode()
    answer = character_books_from_settings(store, user=alice, data=data)
    assert answer["missing_books"] == ["Harbour"]
    assert bobs not in answer["linked"][0]["lorebook_ids"]


def test_where_a_shared_copy_came_from_reaches_its_owner_alone(store, alice, as_alice, as_bob):
    # A copy of alice's private character, renamed and shared, named its source to bob.
    private = character_save(store, data={"name": "Diary of Bea", "visibility": "private"},
                             character_id=None, user=alice)
    copied = as_alice("post", f"/api/v1/characters/{private}/copy").json()["character_id"]
    as_alice("put", f"/api/v1/characters/{copied}", {"visibility": "shared", "name": "Bea"})
    assert as_alice("get", f"/api/v1/characters/{copied}").json()["copied_from"] == private
    assert "copied_from" not in as_bob("get", f"/api/v1/characters/{copied}").json()


def test_a_copys_id_tells_nothing_of_a_private_source(store, alice, bob, staff, as_alice,
                                                      as_bob):
    # The copy's id was its source's name's slug: alice's copy of her private "Diary of Bea",
    # renamed "Bea" and shared, showed bob `char_diary_of_bea_2` (the private name, and that
    # its id was taken); staff's copy of her private book the same.
    private = character_save(store, data={"name": "Diary of Bea", "visibility": "private"},
                             character_id=None, user=alice)
    copied = as_alice("post", f"/api/v1/characters/{private}/copy").json()["character_id"]
    as_alice("put", f"/api/v1/characters/{copied}", {"visibility": "shared", "name": "Bea"})
    assert "diary" not in copied and copied.startswith("char_")
    assert as_bob("get", f"/api/v1/characters/{copied}").status_code == 200
    book = lorebook_save(store, user=alice, data={"name": "Secret plans", "entries": []})
    assert "secret" not in item_copy(store, user=staff, kind="lorebook", item_id=book)
    # A shared source's name was every reader's to see: its copy's id stays readable.
    assert as_bob("post", f"/api/v1/characters/{copied}/copy").json()[
        "character_id"].startswith("char_bea")


def test_a_guess_of_where_a_shared_background_came_from_is_an_unknown_field(store, alice,
                                                                           as_alice, as_bob):
    # Sent back in a PUT, a right guess was a 403 (unchanged, then not bob's to save) and a
    # wrong one a 400 read_only_field.
    private = as_alice("post", "/api/v1/backgrounds", {"name": "Affair",
                                                       "visibility": "private"}).json()
    copied = as_alice("post", f"/api/v1/backgrounds/{private['background_id']}/copy").json()
    as_alice("put", f"/api/v1/backgrounds/{copied['background_id']}", {"visibility": "shared"})
    guess = as_bob("put", f"/api/v1/backgrounds/{copied['background_id']}",
                   {"copied_from": private["background_id"]})
    assert guess.json()["error"]["code"] == "unknown_field"
    assert "copied_from" not in as_bob("get",
                                       f"/api/v1/backgrounds/{copied['background_id']}").json()


def test_the_seen_fingerprint_does_not_let_a_reader_test_guesses_of_what_is_kept_from_them(
        store, alice, as_bob):
    # `seen` was the SHA-256 of the whole file: bob added a guess of the hidden st_avatar (or a
    # private book's id) to what GET showed him and compared, offline, as often as he liked.
    character_id = _sera_shared(store, alice)
    shown = as_bob("get", f"/api/v1/characters/{character_id}").json()
    seen = shown.pop("seen")
    shown.pop("regex_scripts_allowed")
    guessed = json.dumps({**shown, "st_avatar": "Seraphina3"}, sort_keys=True, default=str)
    assert hashlib.sha256(guessed.encode()).hexdigest()[:16] != seen
