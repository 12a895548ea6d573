"""An account's books in all its chats (SillyTavern's globally selected world info,
library/lore/global_books.py): every chat the account owns reads them in the global scope,
after its background's books, with no link made; other accounts' chats do not; a book its
author makes private again drops out of the chats of those who chose it; chosen over the REST
API and on the book's page; a deleted book leaves every list."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.models import ApiToken
from chat.play.context import context_load
from chat.play.lore import lore_for_turn
from chat.prompt.window import ContextWindow
from chat.services.instances import instance_create
from library.background_services import background_save
from library.character_services import character_save
from library.lore.global_books import (
    global_lorebook_choose,
    global_lorebook_ids,
    global_lorebooks_set,
)
from library.lore.services import lorebook_remove, lorebook_save

pytestmark = pytest.mark.django_db(transaction=True)

FERRY = "The ferry leaves at dawn."
WINDOW = ContextWindow(tokens=100_000, reply=1, source="setting")


def _book(store, user, *, visibility: str = "private") -> str:
    return lorebook_save(store, user=user, data={"name": "Harbour", "visibility": visibility,
                                                 "entries": [{"uid": 1, "keys": ["ferry"],
                                                              "content": FERRY}]})


def _lore(store, instance_id: str) -> dict:
    with store.instance_lock(instance_id):
        ctx = context_load(store, instance_id=instance_id, user_text="When does the ferry go?")
    return lore_for_turn(store, ctx, WINDOW)


def _fired(lore: dict) -> list[str]:
    return [entry.get("content") for entry in lore["fired"]]


def test_a_book_for_all_chats_fires_in_a_chat_that_links_no_book(store, alice, instance):
    book = _book(store, alice)
    assert _fired(_lore(store, instance)) == []
    assert global_lorebook_choose(store, user=alice, lorebook_id=book, chosen=True) == [book]
    assert _fired(_lore(store, instance)) == [FERRY]
    global_lorebook_choose(store, user=alice, lorebook_id=book, chosen=False)
    assert global_lorebook_ids(store, username="alice") == []
    assert _fired(_lore(store, instance)) == []


def test_another_accounts_chats_do_not_read_it(store, alice, bob, character):
    book = _book(store, alice, visibility="shared")
    global_lorebooks_set(store, user=alice, lorebook_ids=[book])
    bobs = instance_create(store, owner=bob, character_id=character)
    assert _fired(_lore(store, bobs)) == []


def test_a_shared_book_made_private_drops_out_of_the_chats_of_those_who_chose_it(
        store, alice, bob, character):
    book = _book(store, alice, visibility="shared")
    global_lorebooks_set(store, user=bob, lorebook_ids=[book])
    bobs = instance_create(store, owner=bob, character_id=character)
    assert _fired(_lore(store, bobs)) == [FERRY]
    lorebook_save(store, user=alice, lorebook_id=book,
                  data={**store.lorebook_read(book), "visibility": "private"})
    assert _fired(_lore(store, bobs)) == []


def test_a_book_linked_to_the_background_and_chosen_for_all_chats_is_read_once(
        store, alice, instance, background):
    book = _book(store, alice)
    background_save(store, user=alice, background_id=background,
                    data={**store.background_read(background), "lorebook_ids": [book]})
    global_lorebooks_set(store, user=alice, lorebook_ids=[book])
    assert _fired(_lore(store, instance)) == [FERRY]


def test_a_deleted_book_leaves_every_accounts_list(store, alice, bob):
    book = _book(store, alice, visibility="shared")
    global_lorebooks_set(store, user=alice, lorebook_ids=[book])
    global_lorebooks_set(store, user=bob, lorebook_ids=[book])
    lorebook_remove(store, actor=alice, lorebook_id=book)
    assert global_lorebook_ids(store, username="alice") == []
    assert global_lorebook_ids(store, username="bob") == []


def test_the_rest_api_sets_and_reads_the_list_and_names_a_book_you_cannot_read(
        client, store, alice, bob):
    private = _book(store, alice)
    shared = _book(store, alice, visibility="shared")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(bob)}"}

    def put(body):
        return client.put("/api/v1/world_info/global", data=json.dumps(body),
                          content_type="application/json", **auth)

    refused = put({"lorebook_ids": [shared, private]})
    assert refused.status_code == 400
    assert "lorebook_ids" in refused.json()["error"]["fields"]
    assert put({"lorebook_ids": "all"}).status_code == 400
    assert put({"lorebook_ids": [shared], "owner": "alice"}).json()["error"]["code"] == \
        "unknown_field"
    assert client.get("/api/v1/world_info/global", **auth).json() == {"lorebook_ids": []}
    assert put({"lorebook_ids": [shared]}).json() == {"lorebook_ids": [shared]}
    assert client.get("/api/v1/world_info/global", **auth).json() == {"lorebook_ids": [shared]}
    assert put({"lorebook_ids": []}).json() == {"lorebook_ids": []}


def test_the_books_page_turns_it_on_and_off(alice_client, store, alice, bob):
    book = _book(store, alice)
    page = alice_client.get(f"/library/lorebooks/{book}/").content.decode()
    assert "Off: only the chats" in page
    answer = alice_client.post(f"/library/lorebooks/{book}/global", {"chosen": "1"}, follow=True)
    assert "Every chat you own now reads this book." in answer.content.decode()
    assert "On: every chat you own reads this book" in answer.content.decode()
    assert global_lorebook_ids(store, username="alice") == [book]
    assert 'data-testid="in-all-chats"' in alice_client.get("/library/").content.decode()
    alice_client.post(f"/library/lorebooks/{book}/global", {"chosen": "0"})
    assert global_lorebook_ids(store, username="alice") == []
    assert 'data-testid="in-all-chats"' not in alice_client.get("/library/").content.decode()


def test_a_book_you_cannot_read_cannot_be_chosen_on_its_page(client, store, alice, bob):
    book = _book(store, alice)
    client.force_login(bob)
    assert client.post(f"/library/lorebooks/{book}/global", {"chosen": "1"}).status_code == 404
    assert global_lorebook_ids(store, username="bob") == []


def test_the_page_reads_in_chinese(alice_client, store, alice):
    book = _book(store, alice)
    page = alice_client.get(f"/library/lorebooks/{book}/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "在我的所有对话中" in page.content.decode()


def test_the_chat_drawer_says_which_books_every_chat_reads_too(alice_client, store, alice,
                                                              instance):
    book = _book(store, alice)
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert 'data-testid="global-lorebooks"' not in page
    global_lorebooks_set(store, user=alice, lorebook_ids=[book])
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert "Read in all your chats too: Harbour" in page


def _settings_json(*names) -> bytes:
    """SillyTavern's settings.json as it writes it: the selection inside world_info_settings."""
    return json.dumps({"username": "You", "world_info_settings": {
        "world_info": {"globalSelect": list(names)}, "world_info_depth": 2}}).encode()


def _upload(client, auth: dict, data: bytes, **extra):
    return client.post("/api/v1/world_info/global/import",
                       {"file": SimpleUploadedFile("settings.json", data)}, **auth, **extra)


def test_settings_json_chooses_the_books_it_selects_by_name_your_own_only(
        client, store, alice, bob):
    bobs_shared = lorebook_save(store, user=bob, data={"name": "Harbour", "visibility": "shared",
                                                       "entries": []})
    own = _book(store, alice)  # also "Harbour"
    chosen_before = lorebook_save(store, user=alice, data={"name": "Kept", "entries": []})
    global_lorebooks_set(store, user=alice, lorebook_ids=[chosen_before])
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    answer = _upload(client, auth, _settings_json("Harbour", "Elsewhere", "Harbour"))
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"lorebook_ids": [chosen_before, own],
                             "chosen": [{"name": "Harbour", "lorebook_id": own}],
                             "missing": ["Elsewhere"]}
    assert bobs_shared not in global_lorebook_ids(store, username="alice")
    # An older file: the world-info keys at the top, the selection a plain list.
    shared_only = lorebook_save(store, user=bob, data={"name": "Reef", "visibility": "shared",
                                                       "entries": []})
    older = json.dumps({"world_info": ["Reef"], "world_info_budget": 25}).encode()
    # bob's shared book of a name alice selects is not hers: his later edits would reach
    # every chat of hers.
    assert _upload(client, auth, older).json()["missing"] == ["Reef"]
    assert shared_only not in global_lorebook_ids(store, username="alice")


def test_settings_json_without_a_selection_is_refused_by_name_in_the_readers_language(
        client, alice):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    refused = _upload(client, auth, _settings_json())
    assert refused.status_code == 400
    assert refused.json()["error"]["fields"] == {"file": "no global books selected in it"}
    said = _upload(client, auth, _settings_json(), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "没有选中任何全局世界书" in said.json()["error"]["message"]
    assert _upload(client, auth, b"{not json").status_code == 400
    bad = _upload(client, auth, json.dumps({"world_info_settings": {
        "world_info": {"globalSelect": [1, 2]}}}).encode())
    assert bad.json()["error"]["fields"] == {"world_info": "must hold the selected books' names "
                                                          "(globalSelect)"}


def test_the_library_page_imports_the_selection_and_says_what_is_missing(alice_client, store,
                                                                         alice):
    book = _book(store, alice)
    page = alice_client.get("/library/").content.decode()
    assert 'data-testid="world-info-global-import"' in page
    answer = alice_client.post("/library/world-info/global", {
        "file": SimpleUploadedFile("settings.json", _settings_json("Harbour", "Elsewhere"))},
        follow=True, HTTP_ACCEPT_LANGUAGE="zh-hans")
    shown = answer.content.decode()
    assert "你的所有对话现在都会读取：Harbour。" in shown
    assert "不在你的资料库中，所以没有选中：Elsewhere。" in shown
    assert global_lorebook_ids(store, username="alice") == [book]


def test_a_long_list_of_missing_names_is_cut_on_the_page(alice_client):
    names = [f"Book {n}" for n in range(25)]
    answer = alice_client.post("/library/world-info/global", {
        "file": SimpleUploadedFile("settings.json", _settings_json(*names))}, follow=True)
    shown = answer.content.decode()
    assert "Book 19, Book 0" not in shown and "Book 19 and 5 more." in shown


def test_settings_json_links_each_characters_extra_books_to_your_character_of_that_name(
        client, store, alice, character, instance):
    # SillyTavern's "Additional lorebooks" of a character (world_info.charLore, by its avatar
    # file) are that character's lore in every chat with it; they were dropped here.
    own = _book(store, alice)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    data = json.dumps({"world_info_settings": {"world_info": {"globalSelect": [], "charLore": [
        {"name": "Alserqi.png", "extraBooks": ["Harbour", "Elsewhere"]},
        {"name": "Nobody.png", "extraBooks": ["Harbour"]}]}}}).encode()
    answer = client.post("/api/v1/world_info/character_books/import",
                         {"file": SimpleUploadedFile("settings.json", data)}, **auth)
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"linked": [{"character_id": character, "name": "Alserqi",
                                         "lorebook_ids": [own]}],
                             "missing_characters": ["Nobody.png"], "missing_books": ["Elsewhere"],
                             "refused": []}
    assert _fired(_lore(store, instance)) == [FERRY]


def test_settings_json_refuses_a_numbered_file_or_a_name_several_characters_bear(
        client, store, alice, character):
    # SillyTavern files a second character named "Alserqi" as "Alserqi1.png" (getPngName):
    # which of the account's characters that was is not in the file, so it is refused by name,
    # as is "Alserqi.png" once two of yours bear the name; "R2D21.png" is "R2D2"'s copy.
    _book(store, alice)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    charlore = [{"name": f"{name}.png", "extraBooks": ["Harbour"]}
                for name in ("Alserqi1", "Alserqi01", "R2D21", "R2D2")]
    data = json.dumps({"world_info": {"charLore": charlore}}).encode()

    def imported() -> dict:
        answer = client.post("/api/v1/world_info/character_books/import",
                             {"file": SimpleUploadedFile("settings.json", data)}, **auth)
        assert answer.status_code == 200, answer.content
        return answer.json()

    r2d2 = character_save(store, data={"name": "R2D2", "base_persona": "", "greeting": ""},
                          character_id=None, user=alice)
    answer = imported()
    assert [item["character_id"] for item in answer["linked"]] == [r2d2]
    assert answer["missing_characters"] == ["Alserqi01.png"]
    assert [item["file"] for item in answer["refused"]] == ["Alserqi1.png", "R2D21.png"]
    assert "another character named “Alserqi”" in answer["refused"][0]["reason"]
    assert not store.character_read(character).get("lorebook_ids")
    character_save(store, data={"name": "R2D2", "base_persona": "", "greeting": ""},
                   character_id=None, user=alice)
    answer = imported()
    assert answer["linked"] == []
    assert [item["file"] for item in answer["refused"]] == ["Alserqi1.png", "R2D21.png",
                                                            "R2D2.png"]
    assert "Several of your characters are named “R2D2”" in answer["refused"][2]["reason"]


def test_settings_json_linking_more_books_than_a_global_selection_is_refused(
        client, store, alice, character):
    # 200,000 extra book names cost 5 s of CPU in one query, the GIL held against every other
    # request; at most as many books as a file may select for every chat (1,000).
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    charlore = [{"name": "Alserqi.png", "extraBooks": [f"Book {i}" for i in range(700)]},
                {"name": "Other.png", "extraBooks": [f"Book {i}" for i in range(600, 1301)]}]
    data = json.dumps({"world_info": {"charLore": charlore}}).encode()
    answer = client.post("/api/v1/world_info/character_books/import",
                         {"file": SimpleUploadedFile("settings.json", data)}, **auth)
    assert answer.status_code == 400, answer.content
    assert "more than 1000 different books" in answer.json()["error"]["message"]
    assert not store.character_read(character).get("lorebook_ids")


def test_the_library_page_imports_the_characters_extra_books_as_the_api_does(
        alice_client, store, alice, character):
    # The charLore import had only its REST route: no button on any page.
    own = _book(store, alice)
    page = alice_client.get("/library/").content.decode()
    assert ('action="/library/world-info/character-books"' in page
            and 'data-testid="world-info-character-books-import"' in page)
    data = json.dumps({"world_info": {"charLore": [
        {"name": "Alserqi.png", "extraBooks": ["Harbour", "Elsewhere"]},
        {"name": "Nobody.png", "extraBooks": ["Harbour"]}]}}).encode()
    answer = alice_client.post("/library/world-info/character-books", {
        "file": SimpleUploadedFile("settings.json", data)}, follow=True,
        HTTP_ACCEPT_LANGUAGE="zh-hans")
    shown = answer.content.decode()
    assert "已为这些角色关联额外的世界书：Alserqi。" in shown
    assert "不在你的资料库中，所以没有关联：Elsewhere。" in shown and "Nobody.png" in shown
    assert store.character_read(character)["lorebook_ids"] == [own]


def test_the_library_page_lists_at_most_twenty_refused_charlore_files(alice_client, character):
    # Each refused file was a line of its own: 1,000 of them drew a 500 KB page.
    data = json.dumps({"world_info": {"charLore": [
        {"name": f"Alserqi{n}.png", "extraBooks": ["Harbour"]} for n in range(1, 1001)]}}).encode()
    page = alice_client.post("/library/world-info/character-books", {
        "file": SimpleUploadedFile("settings.json", data)}, follow=True).content.decode()
    assert page.count("SillyTavern numbers the file") == 20 and "and 980 more" in page


def test_the_library_page_names_at_most_twenty_characters_the_charlore_file_linked(
        alice_client, store, alice):
    _book(store, alice)
    for n in range(25):
        character_save(store, data={"name": f"Keeper {n}", "base_persona": "", "greeting": ""},
                       user=alice)
    data = json.dumps({"world_info": {"charLore": [
        {"name": f"Keeper {n}.png", "extraBooks": ["Harbour"]} for n in range(25)]}}).encode()
    page = alice_client.post("/library/world-info/character-books", {
        "file": SimpleUploadedFile("settings.json", data)}, follow=True).content.decode()
    said = page[page.index('<ul class="flash">'):].split("</ul>")[0]
    assert "Keeper 19 and 5 more." in said and "Keeper 20" not in said
