"""Cards, lorebooks and chats through the API and the turn: import, play, export."""

from __future__ import annotations

import json

import pytest

from chat.models import ApiToken
from library.card_formats.cards import card_parse
from tests.png_files import text_chunk, tiny_png
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _card() -> dict:
    return {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        "name": "Mira", "description": "A field medic in a drowned city.", "personality": "calm",
        "scenario": "The flood.", "first_mes": "Hold still, {{user}}.", "mes_example": "",
        "system_prompt": "", "post_history_instructions": "", "alternate_greetings": [],
        "tags": ["medic"], "creator": "someone", "character_version": "2",
        "extensions": {"other_app": {"keep": [1, 2, 3]}},
        "character_book": {"name": "Mira's world", "entries": [
            {"keys": ["维克多"], "content": "维克多是北区的叛徒。", "enabled": True,
             "insertion_order": 10, "extensions": {}},
            {"keys": ["tower"], "content": "The tower is flooded to the fifth floor.",
             "enabled": True, "insertion_order": 5, "extensions": {}},
        ]}}}


@pytest.fixture
def auth(alice):
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


def test_card_imports_with_its_lorebook_plays_and_exports(client, auth, store, use_stub):
    png = tiny_png(text_chunk("ccv3", _card()))
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post("/api/v1/characters/import",
                           {"file": SimpleUploadedFile("mira.png", png, "image/png")}, **auth)
    assert response.status_code == 201
    character_id = response.json()["character_id"]
    definition = store.character_read(character_id)
    assert definition["name"] == "Mira" and definition["lorebook_ids"]

    instance_id = client.post("/api/v1/instances", json.dumps({"character_id": character_id}),
                              content_type="application/json", **auth).json()["instance_id"]
    use_stub.script(Reply("好。"), Reply("ok."))
    client.post("/api/v1/chat", json.dumps({"instance_id": instance_id, "query": "我见到了维克多"}),
                content_type="application/json", **auth)
    sent = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "维克多是北区的叛徒。" in sent and "flooded" not in sent
    trace_id = client.post("/api/v1/chat", json.dumps(
        {"instance_id": instance_id, "query": "Is the tower safe?"}),
        content_type="application/json", **auth).json()["trace_id"]
    assert "flooded to the fifth floor" in json.dumps(use_stub.requests[-1]["messages"])
    trace = store.trace_read(instance_id, trace_id)
    assert any("tower" in entry["reason"] for entry in trace["lore"]["fired"])

    exported = client.get(f"/api/v1/characters/{character_id}/card.png", **auth)
    assert exported["Content-Type"] == "image/png"
    card = card_parse(exported.content)
    assert card["data"]["extensions"]["other_app"] == {"keep": [1, 2, 3]}
    assert len(card["data"]["character_book"]["entries"]) == 2
    as_json = client.get(f"/api/v1/characters/{character_id}/card.json?spec=v2", **auth)
    assert json.loads(as_json.content)["spec"] == "chara_card_v2"


def test_malformed_card_is_a_clear_400(client, auth):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post("/api/v1/characters/import",
                           {"file": SimpleUploadedFile("x.png", b"\x89PNG\r\n\x1a\nbroken")},
                           **auth)
    assert response.status_code == 400 and "PNG" in response.json()["error"]["message"]
    assert client.post("/api/v1/characters/import", {}, **auth).status_code == 400


def test_chat_import_and_export_round_trip(client, auth, instance, store):
    from django.core.files.uploadedfile import SimpleUploadedFile

    lines = [{"user_name": "Ann", "character_name": "Alserqi", "create_date": "2024-01-01",
              "chat_metadata": {}},
             {"name": "Ann", "is_user": True, "mes": "你好", "send_date": "2024-01-01T10:00:00Z"},
             {"name": "Alserqi", "is_user": False, "mes": "嗯。", "send_date":
              "2024-01-01T10:00:05Z"}]
    body = "\n".join(json.dumps(line, ensure_ascii=False) for line in lines).encode()
    response = client.post(f"/api/v1/instances/{instance}/import_chat",
                           {"file": SimpleUploadedFile("chat.jsonl", body)}, **auth)
    assert response.status_code == 201
    session_id = response.json()["session_id"]
    assert store.instance_state_read(instance)["current_session_id"] == session_id
    assert [m["content"] for m in store.session_read(instance, session_id).messages] == [
        "你好", "嗯。"]
    exported = client.get(f"/api/v1/instances/{instance}/sessions/{session_id}/export"
                          "?format=jsonl", **auth)
    rows = [json.loads(line) for line in exported.content.decode().splitlines()]
    assert [r["mes"] for r in rows[1:]] == ["你好", "嗯。"] and rows[1]["is_user"] is True
    markdown = client.get(f"/api/v1/instances/{instance}/sessions/{session_id}/export"
                          "?format=md", **auth).content.decode()
    assert "你好" in markdown and "嗯。" in markdown
    bad = client.post(f"/api/v1/instances/{instance}/import_chat",
                      {"file": SimpleUploadedFile("chat.jsonl", b'{"user_name":"a"}\n{bad')},
                      **auth)
    assert bad.status_code == 400 and "line 2" in bad.json()["error"]["message"]


def test_authors_note_is_woven_at_its_depth(alice_client, instance, store, use_stub):
    import asyncio

    from chat.play.turn import turn_run

    alice_client.post(f"/instances/{instance}/authors_note",
                      {"text": "Keep it tense.", "depth": "0", "frequency": "1"})

    async def emit(event):
        pass

    asyncio.run(turn_run(store, instance_id=instance, user_text="hello", emit=emit))
    messages = use_stub.requests[-1]["messages"]
    assert any("Keep it tense." in m["content"] for m in messages[1:])
