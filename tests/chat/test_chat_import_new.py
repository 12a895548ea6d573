"""A chat file imported from the library or a character's page becomes a new chat with that
character; a chat whose replies are by someone else is asked about first, naming both (and its
player, when not the persona), and only imported when the author goes on."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.models import ApiToken, Instance
from chat.services.instances import instance_create
from library.character_services import character_save
from library.personas.services import persona_create

pytestmark = pytest.mark.django_db(transaction=True)


def _jsonl(records: list[dict]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def _line(name: str, is_user: bool, text: str) -> dict:
    return {"name": name, "is_user": is_user, "is_system": False,
            "send_date": "2024-03-05T14:03:00.000Z", "mes": text, "extra": {}}


def _chat(speaker: str) -> bytes:
    return _jsonl([{"user_name": "Ann", "character_name": speaker, "chat_metadata": {}},
                   _line(speaker, False, "The lantern swings over the crossroads."),
                   _line("Ann", True, "Which road leads to the ruins?"),
                   _line(speaker, False, "The left one, if you can stand the fog.")])


@pytest.fixture
def seraphina(store, alice):
    return character_save(store, data={"name": "Seraphina", "base_persona": "A forest guardian.",
                                       "greeting": "", "visibility": "private"},
                          character_id=None, user=alice)


@pytest.fixture(autouse=True)
def ann(store, alice):
    """alice plays as Ann, the player the test chats are written with."""
    return persona_create(store, owner=alice, data={"name": "Ann", "description": "A traveller.",
                                                    "default": True})


def _upload(data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile("chat.jsonl", data)


def _page_import(client, character_id: str, data: bytes):
    return client.post("/chats/import", {"character_id": character_id, "file": _upload(data),
                                         "next": f"/library/characters/{character_id}/"},
                       follow=True)


def test_import_from_the_character_page_opens_a_new_chat_holding_the_lines(
        alice_client, seraphina, store):
    page = alice_client.get(f"/library/characters/{seraphina}/").content.decode()
    assert "Import a chat with this character" in page
    assert 'action="/chats/import"' in page
    response = _page_import(alice_client, seraphina, _chat("Seraphina"))
    instance_id = response.redirect_chain[-1][0].strip("/").split("/")[-1]
    row = Instance.objects.get(instance_id=instance_id)
    assert row.character_id == seraphina and row.owner.username == "alice"
    text = response.content.decode()
    assert "The left one, if you can stand the fog." in text
    assert "Imported 3 messages from SillyTavern" in text
    assert 'data-testid="import-warning"' not in text


def test_a_chat_made_with_another_character_is_asked_about_before_anything_is_made(
        alice_client, seraphina):
    before = Instance.objects.count()
    text = _page_import(alice_client, seraphina, _chat("Megumin")).content.decode()
    assert "Check this chat before importing" in text
    assert "This chat&#x27;s replies are by Megumin, but you picked Seraphina." in text
    assert "The left one, if you can stand the fog." not in text
    assert Instance.objects.count() == before
    token = re.search(r'name="token" value="([0-9a-f]{32})"', text).group(1)
    response = alice_client.post("/chats/import", {"token": token, "confirmed": "1",
                                                   "character_ids": [seraphina]}, follow=True)
    text = response.content.decode()
    assert "The left one, if you can stand the fog." in text
    assert ("This chat&#x27;s replies are by Megumin, not Seraphina: they were imported under "
            "their own names, and Seraphina replies from here on.") in text
    assert Instance.objects.count() == before + 1
    again = alice_client.post("/chats/import", {"token": token, "confirmed": "1",
                                                "character_ids": [seraphina]}, follow=True)
    assert "the chat file is no longer waiting: choose it again" in again.content.decode()
    assert Instance.objects.count() == before + 1


def test_picking_the_chats_own_character_on_the_check_page_imports_it(alice_client, alice,
                                                                      seraphina, store):
    megumin = character_save(store, data={"name": "Megumin", "base_persona": "A wizard.",
                                          "greeting": "", "visibility": "private"},
                             character_id=None, user=alice)
    text = _page_import(alice_client, seraphina, _chat("Megumin")).content.decode()
    token = re.search(r'name="token" value="([0-9a-f]{32})"', text).group(1)
    response = alice_client.post("/chats/import", {"token": token, "character_ids": [megumin]},
                                 follow=True)
    instance_id = response.redirect_chain[-1][0].strip("/").split("/")[-1]
    assert Instance.objects.get(instance_id=instance_id).character_id == megumin
    assert 'data-testid="import-warning"' not in response.content.decode()


def test_a_chat_played_under_another_name_than_the_persona_is_imported_without_asking(
        alice_client, seraphina):
    """Most SillyTavern chats were played under a persona this account does not have."""
    data = _jsonl([{"user_name": "Tom", "character_name": "Seraphina", "chat_metadata": {}},
                   _line("Seraphina", False, "Welcome."), _line("Tom", True, "Hello.")])
    before = Instance.objects.count()
    text = _page_import(alice_client, seraphina, data).content.decode()
    assert "Check this chat before importing" not in text
    assert Instance.objects.count() == before + 1


def test_with_another_character_the_check_page_also_names_the_player(alice_client, seraphina):
    data = _jsonl([{"user_name": "Tom", "character_name": "Megumin", "chat_metadata": {}},
                   _line("Megumin", False, "Welcome."), _line("Tom", True, "Hello.")])
    before = Instance.objects.count()
    text = _page_import(alice_client, seraphina, data).content.decode()
    assert "This chat&#x27;s replies are by Megumin, but you picked Seraphina." in text
    assert "In this chat you are Tom, but your persona is Ann." in text
    assert Instance.objects.count() == before


def test_another_accounts_waiting_file_cannot_be_imported(alice_client, client, bob, seraphina):
    text = _page_import(alice_client, seraphina, _chat("Megumin")).content.decode()
    token = re.search(r'name="token" value="([0-9a-f]{32})"', text).group(1)
    client.force_login(bob)
    before = Instance.objects.count()
    text = client.post("/chats/import", {"token": token, "confirmed": "1",
                                         "character_ids": [seraphina]}, follow=True
                       ).content.decode()
    assert "The chat was not imported" in text
    assert Instance.objects.count() == before


WHICH_FILES = "Choose a chat exported by SillyTavern (.jsonl), Agnai or RisuAI (.json)."


def test_a_bad_file_makes_no_chat_and_says_why(alice_client, seraphina):
    before = Instance.objects.count()
    text = _page_import(alice_client, seraphina, b"not a chat at all").content.decode()
    assert "The chat was not imported" in text and WHICH_FILES in text
    # the library's form (no character picked yet): back to the library, saying which files are
    response = alice_client.post("/chats/import", {
        "file": SimpleUploadedFile("notes.jsonl", b"my shopping list\n"), "next": "/library/"},
        follow=True)
    assert [url for url, _ in response.redirect_chain] == ["/library/"]
    assert WHICH_FILES in response.content.decode()
    assert Instance.objects.count() == before


@pytest.mark.parametrize("path", ["/chats/import", "/chats/import/cancel"])
def test_a_reloaded_import_check_page_says_what_to_do(alice_client, seraphina, path):
    """A phone's browser restoring the tab of the check page (an answer to a POST) asks for it
    again with a GET: the player lands on the library's chat import, open, told why."""
    response = alice_client.get(path, follow=True)
    assert response.redirect_chain == [("/library/?import=chat#library-chat-import", 302)]
    page = response.content.decode()
    assert "This check page cannot come back after a reload: choose the chat file again." in page
    assert 'data-testid="chat-import-box" open>' in page  # unfolded
    form = page[page.index('id="library-chat-import"'):]
    assert '<input type="file" name="file"' in form[:form.index("</form>")]


def test_the_library_page_imports_a_chat_with_the_characters_picked(alice_client, seraphina,
                                                                    character, store):
    page = alice_client.get("/library/").content.decode()
    assert 'id="library-chat-import"' in page
    response = alice_client.post("/chats/import", {
        "character_ids": [character, seraphina], "file": _upload(_chat("Seraphina"))},
        follow=True)
    instance_id = response.redirect_chain[-1][0].strip("/").split("/")[-1]
    members = [p["character_id"] for p in store.instance_state_read(instance_id)["participants"]]
    assert members == [character, seraphina]
    assert "The left one, if you can stand the fog." in response.content.decode()


def test_rest_import_makes_a_new_chat_and_answers_the_warnings(client, alice, seraphina, store):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    response = client.post("/api/v1/instances/import",
                           {"character_id": seraphina, "file": _upload(_chat("Megumin"))}, **auth)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["warnings"] == [("This chat's replies are by Megumin, not Seraphina: they were "
                                "imported under their own names, and Seraphina replies from "
                                "here on.")]
    assert Instance.objects.get(instance_id=body["instance_id"]).character_id == seraphina
    lines = store.session_read(body["instance_id"], body["session_id"]).lines
    assert [line["content"] for line in lines if line.get("role") == "assistant"][-1] == \
        "The left one, if you can stand the fog."


def test_rest_import_names_the_missing_character(client, alice):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    response = client.post("/api/v1/instances/import", {"file": _upload(_chat("Megumin"))},
                           **auth)
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"character_id":
                                                  "name the character this chat is with"}


def test_someone_elses_private_character_is_refused(client, bob, seraphina):
    client.force_login(bob)
    before = Instance.objects.count()
    text = _page_import(client, seraphina, _chat("Seraphina")).content.decode()
    assert "The chat was not imported" in text
    assert Instance.objects.count() == before


def test_a_refused_delete_names_the_chats_not_their_ids(alice_client, alice, seraphina, store):
    named = instance_create(store, owner=alice, character_id=seraphina)
    state = store.instance_state_read(named)
    store.instance_state_write(named, {**state, "name": "Forest walk"})
    unnamed = instance_create(store, owner=alice, character_id=seraphina)
    started = store.instance_state_read(unnamed)["created_at"][:10]
    text = alice_client.post(f"/library/characters/{seraphina}/delete",
                             follow=True).content.decode()
    assert ("Character Seraphina is used by these chats: &quot;Forest walk&quot; with Seraphina; "
            f"the chat with Seraphina started {started}; delete those chats first (an archived "
            "chat still plays it).") in text
    assert named not in text and unnamed not in text


def test_a_refused_delete_reads_in_chinese_on_the_page_and_through_the_api(
        client, alice_client, alice, seraphina, store):
    named = instance_create(store, owner=alice, character_id=seraphina)
    store.instance_state_write(named, {**store.instance_state_read(named), "name": "Forest walk"})
    unnamed = instance_create(store, owner=alice, character_id=seraphina)
    started = store.instance_state_read(unnamed)["created_at"][:10]
    chinese = ("角色 Seraphina 仍被这些对话使用：“Forest walk”（与 Seraphina）；与 Seraphina 的对话"
               f"（{started} 开始）。请先删除这些对话（已归档的对话仍在使用它）。")
    text = alice_client.post(f"/library/characters/{seraphina}/delete", follow=True,
                             HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert chinese in text
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    refused = client.delete(f"/api/v1/characters/{seraphina}", HTTP_ACCEPT_LANGUAGE="zh-hans",
                            **auth)
    assert refused.status_code == 409 and refused.json()["error"]["message"] == chinese
    english = client.delete(f"/api/v1/characters/{seraphina}", HTTP_ACCEPT_LANGUAGE="en", **auth)
    assert english.json()["error"]["message"].startswith(
        'Character Seraphina is used by these chats: "Forest walk" with Seraphina; ')


def test_a_refused_background_delete_names_the_chat_too(alice_client, instance, background,
                                                        store):
    started = store.instance_state_read(instance)["created_at"][:10]
    text = alice_client.post(f"/library/backgrounds/{background}/delete",
                             follow=True).content.decode()
    assert ("Background 废土复仇记 is used by these chats: the chat with Alserqi started "
            f"{started}; switch those chats to another background first.") in text
    assert instance not in text


def test_an_imported_chat_is_the_new_chats_only_session_with_no_greeting_session_beside_it(
        alice_client, alice, store):
    """The character greets (a new chat's sess_001 holds the greeting); the import replaces it."""
    greeter = character_save(store, data={"name": "Mira", "base_persona": "An innkeeper.",
                                          "greeting": "Welcome in, traveller.",
                                          "visibility": "private"},
                             character_id=None, user=alice)
    response = _page_import(alice_client, greeter, _chat("Mira"))
    instance_id = response.redirect_chain[-1][0].strip("/").split("/")[-1]
    state = store.instance_state_read(instance_id)
    assert store.session_ids(instance_id) == [state["current_session_id"]] == ["sess_001"]
    read = store.session_read(instance_id, "sess_001")
    assert read.metadata["continued_from"] is None
    first = next(line for line in read.lines if line.get("role"))
    assert first["content"] == "The lantern swings over the crossroads."
    assert len(alice_client.get(f"/api/v1/instances/{instance_id}/sessions").json()["sessions"]) == 1
    assert "Welcome in, traveller." not in response.content.decode()



def test_rest_check_names_the_mismatch_and_makes_nothing(client, alice, seraphina):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    before = Instance.objects.count()
    response = client.post("/api/v1/instances/import/check",
                           {"character_id": seraphina, "file": _upload(_chat("Megumin"))}, **auth)
    assert response.status_code == 200, response.content
    assert response.json()["warnings"] == [
        "This chat's replies are by Megumin, but you picked Seraphina."]
    assert Instance.objects.count() == before


def test_the_check_page_speaks_chinese(alice_client, seraphina):
    alice_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/library/"})
    text = _page_import(alice_client, seraphina, _chat("Megumin")).content.decode()
    assert "导入前请检查这段对话" in text
    assert "这段对话的回复来自 Megumin，但你选择的是 Seraphina。" in text
    assert "仍然导入" in text


@pytest.mark.parametrize("data, said", [
    (b"", "文件是空的"),
    (b'{"spec": "chara_card_v2", "data": {"name": "Mira"}}', "这个文件是角色卡，不是对话"),
    (b"\xff\xfe not text", "文件不是 UTF-8 文本（第 0 字节）"),
    (b'{"mes":"a","x":[' + b"{}," * 500_000 + b'{}]}\n{"mes":"b"}', "文件中的值超过 1,000,000 个"),
    (b'{"messages":[' + b"{}," * 100_000 + b"{}]}", "文件中的消息超过 100,000 条"),
])
def test_a_refused_chat_file_is_said_in_chinese_on_a_chinese_page(alice_client, seraphina, data,
                                                                  said):
    alice_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/library/"})
    text = _page_import(alice_client, seraphina, data).content.decode()
    assert said in text
    assert "the file is" not in text and "this file is" not in text


def test_a_chat_file_refused_into_an_existing_chat_is_said_in_chinese(alice_client, alice, store,
                                                                      seraphina):
    instance_id = instance_create(store, owner=alice, character_id=seraphina)
    alice_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/library/"})
    page = alice_client.post(f"/instances/{instance_id}/import_chat", {
        "file": SimpleUploadedFile("x.json", b'{"type": "risuAllChats"}')}, follow=True)
    assert "这个文件是 RisuAI 导出的某个角色的全部对话" in page.content.decode()
