"""RisuAI's chat export ("Export chat" → JSON: {"type": "risuChat", "ver": 2, "data": chat,
"folders"}) imports as a chat into a story, through the real upload; RisuAI's other files
uploaded as a chat are refused saying what they are."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from memory.authors_note import authors_note_read

pytestmark = pytest.mark.django_db(transaction=True)

T0 = 1_718_000_000_000  # 2024-06-10T06:13:20Z, RisuAI writes epoch milliseconds


def risu_chat(**changes) -> dict:
    chat = {
        "message": [
            {"role": "user", "data": "The fog is thick tonight.", "chatId": "0f3c9a1e-1",
             "time": T0},
            {"role": "char", "data": "*She lifts the lantern.* Stay close to the rail.",
             "chatId": "0f3c9a1e-2", "time": T0 + 60_000,
             "generationInfo": {"model": "claude-3-5-sonnet", "generationId": "g-1",
                                "inputTokens": 812, "outputTokens": 41, "maxContext": 16000},
             "promptInfo": {"promptName": "Default", "promptToggles": [], "promptText": []}},
            {"role": "user", "data": "(ooc: skip this one)", "chatId": "0f3c9a1e-3",
             "time": T0 + 120_000, "disabled": True},
            {"role": "user", "data": "Do you hear the bell?", "chatId": "0f3c9a1e-4",
             "time": T0 + 180_000},
            {"role": "char", "data": "It rings for the drowned.", "chatId": "0f3c9a1e-5",
             "time": T0 + 240_000},
        ],
        "note": "[Weather: heavy fog; the bell rings every hour]",
        "name": "Harbor night",
        "localLore": [],
        "fmIndex": -1,
        "id": "5b1d3f7e-9c2a-4e61-8a0f-2d4c6b8e1a3f",
        "lastDate": T0 + 240_000,
        "scriptstate": {},
        "modules": [],
    }
    chat.update(changes)
    return {"type": "risuChat", "ver": 2, "data": chat, "folders": []}


@pytest.fixture
def auth(alice):
    from chat.models import ApiToken
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


def _upload(client, auth, instance, doc) -> object:
    return client.post(f"/api/v1/instances/{instance}/import_chat",
                       {"file": SimpleUploadedFile("Mira_2024-06-10_chat.json",
                                                   json.dumps(doc).encode())}, **auth)


def test_a_risuai_chat_imports_with_roles_times_and_its_note(client, auth, instance, store):
    response = _upload(client, auth, instance, risu_chat())
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["imported"]["source"] == "risuai"
    lines = store.session_read(instance, body["session_id"]).lines
    said = [(line["role"], line["turn"], line["content"][:20], bool(line.get("hidden")))
            for line in lines]
    assert said == [("user", 1, "The fog is thick ton", False),
                    ("assistant", 1, "*She lifts the lante", False),
                    ("user", 2, "(ooc: skip this one)", True),
                    ("user", 3, "Do you hear the bell", False),
                    ("assistant", 3, "It rings for the dro", False)]
    assert lines[0]["timestamp"] == "2024-06-10T06:13:20Z"
    assert lines[4]["timestamp"] == "2024-06-10T06:17:20Z"
    # RisuAI's note goes after the last message by default: depth 0.
    assert authors_note_read(store, instance_id=instance)["text"] == \
        "[Weather: heavy fog; the bell rings every hour]"
    assert authors_note_read(store, instance_id=instance)["depth"] == 0
    assert any("Author's note" in note for note in body["imported"]["notes"])

    exported = client.get(f"/api/v1/instances/{instance}/sessions/{body['session_id']}/export"
                          "?format=jsonl", **auth).content.decode()
    header, *records = [json.loads(line) for line in exported.splitlines()]
    assert header["chat_metadata"]["note_prompt"].startswith("[Weather: heavy fog")
    assert [r["is_user"] for r in records] == [True, False, True, True, False]
    assert records[2]["is_system"] is True  # hidden in SillyTavern's terms


def test_a_risuai_chat_is_played_on_with_the_hidden_line_left_out(client, auth, instance,
                                                                   store, use_stub):
    _upload(client, auth, instance, risu_chat())
    client.post("/api/v1/chat", json.dumps({"instance_id": instance, "query": "Walk on."}),
                content_type="application/json", **auth)
    sent = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "It rings for the drowned." in sent and "skip this one" not in sent
    assert "heavy fog" in sent


def test_everything_before_a_risuai_cut_is_hidden(client, auth, instance, store):
    doc = risu_chat()
    doc["data"]["message"][3]["disabled"] = "allBefore"
    body = _upload(client, auth, instance, doc).json()
    lines = store.session_read(instance, body["session_id"]).lines
    assert [bool(line.get("hidden")) for line in lines] == [True, True, True, False, False]


def test_the_page_says_the_chat_came_from_risuai(alice_client, instance):
    response = alice_client.post(f"/instances/{instance}/import_chat", {
        "file": SimpleUploadedFile("chat.json", json.dumps(risu_chat()).encode())}, follow=True)
    assert "from RisuAI" in response.content.decode()


@pytest.mark.parametrize("doc, said", [
    ({"type": "risuAllChats", "ver": 2, "data": [risu_chat()["data"]]},
     "RisuAI's export of all chats"),
    ({"type": "risu", "ver": 1, "data": [{"key": "bell", "content": "It rings."}]},
     "lorebook"),
    ({"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "Mira"}},
     "character card"),
    (risu_chat(message="not a list"), "no 'data.message' list"),
    (risu_chat(message=[{"role": "char", "data": ""}]), "no message with text"),
])
def test_other_risuai_files_are_refused_saying_what_they_are(client, auth, instance, store,
                                                             doc, said):
    before = store.session_ids(instance) if hasattr(store, "session_ids") else None
    response = _upload(client, auth, instance, doc)
    assert response.status_code == 400
    error = response.json()["error"]
    assert said in error["message"] and "file" in error["fields"]
    if before is not None:
        assert store.session_ids(instance) == before


def test_a_risuai_chat_uploaded_as_a_card_is_refused_saying_what_it_is(client, auth):
    response = client.post("/api/v1/characters/import", {
        "file": SimpleUploadedFile("chat.json", json.dumps(risu_chat()).encode())}, **auth)
    assert response.status_code == 400
    assert "RisuAI chat" in response.json()["error"]["message"]


@pytest.mark.parametrize("fm_index, shown", [(-1, "The lighthouse is dark."),
                                             (1, "Late again, {{user}}?"), (7, None)])
def test_a_risuai_chat_starts_with_the_greeting_it_was_played_from(client, auth, alice, store,
                                                                   fm_index, shown):
    from chat.services.instances import instance_create
    from library.card_formats.card_import import character_import_card

    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        "name": "Mira", "description": "A keeper.", "first_mes": "The lighthouse is dark.",
        "alternate_greetings": ["Fog again.", "Late again, {{user}}?"]}}
    character_id = character_import_card(store, data=json.dumps(card).encode(),
                                         filename="mira.json", user=alice)
    instance = instance_create(store, owner=alice, character_id=character_id)
    body = _upload(client, auth, instance, risu_chat(fmIndex=fm_index)).json()
    lines = store.session_read(instance, body["session_id"]).lines
    first = lines[0]
    assert first["greeting"] is True and first["turn"] == 0 and first["role"] == "assistant"
    # an index past the card's greetings shows its first message, as a new chat would
    assert first["content"] == (shown or "The lighthouse is dark.")
    versions = sorted([first["content"], *(a["content"] for a in first["alternatives"])])
    assert versions == sorted(["The lighthouse is dark.", "Fog again.", "Late again, {{user}}?"])
    assert first["timestamp"] == lines[1]["timestamp"] == "2024-06-10T06:13:20Z"
    assert [line["role"] for line in lines[1:3]] == ["user", "assistant"]
    assert any("first message" in note for note in body["imported"]["notes"])
