"""Narrator / system note lines (an imported chat's narrator line) are edited, hidden and deleted
like any other message: the same services, page actions and REST endpoints, the session file
changed with a backup, delete with undo."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.history_manager import base as history_base
from chat.models import ApiToken

pytestmark = pytest.mark.django_db

NARRATION = "A storm rolls in over the harbor."


@pytest.fixture
def narrated(alice_client, instance, store) -> tuple[str, str]:
    """An imported SillyTavern chat with a narrator line between two messages."""
    records = [{"user_name": "Ann", "character_name": "Alserqi", "create_date": "2024-01-01",
                "chat_metadata": {}},
               {"name": "Ann", "is_user": True, "mes": "Hello.", "send_date": "2024-01-01T10:00"},
               {"name": "Narrator", "is_user": False, "is_system": True, "mes": NARRATION,
                "send_date": "2024-01-01T10:00:02", "extra": {"type": "narrator"}},
               {"name": "Alserqi", "is_user": False, "mes": "Hm.",
                "send_date": "2024-01-01T10:00:05"}]
    body = "\n".join(json.dumps(r) for r in records).encode()
    response = alice_client.post(f"/instances/{instance}/import_chat",
                                 {"file": SimpleUploadedFile("chat.jsonl", body)})
    assert response.status_code in (200, 302)
    session_id = store.instance_state_read(instance)["current_session_id"]
    return instance, session_id


def _note(store, instance_id: str, session_id: str) -> tuple[int, dict]:
    lines = store.session_read(instance_id, session_id).lines
    index = next(i for i, line in enumerate(lines) if line.get("type") == "note")
    return index, lines[index]


def _backups(store, instance_id) -> list:
    folder = store.instance_dir(instance_id) / "sessions" / "history"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_the_chat_page_gives_a_narrator_line_edit_hide_and_delete(alice_client, narrated):
    instance_id, _ = narrated
    page = alice_client.get(f"/instances/{instance_id}/").content.decode()
    article = page[page.index('class="msg summary note'):]
    article = article[:article.index("</article>")]
    assert NARRATION in article
    for action in ('data-action="edit"', 'data-action="hide"', 'data-action="delete"'):
        assert action in article


def _page_change(client, store, instance_id, session_id, **body):
    """As the chat page does: the change through the REST API with the login session, then
    the message rendered again."""
    index, line = _note(store, instance_id, session_id)
    changed = client.put(f"/api/v1/instances/{instance_id}/sessions/{session_id}/messages/{index}",
                         {"fingerprint": history_base.line_fingerprint(line), **body},
                         content_type="application/json")
    assert changed.status_code == 200
    return client.get(f"/instances/{instance_id}/messages/line",
                      {"session": session_id, "index": index})


def test_a_narrator_line_is_edited_hidden_and_deleted_with_undo_on_the_page(
        alice_client, narrated, store):
    instance_id, session_id = narrated
    response = _page_change(alice_client, store, instance_id, session_id,
                            text="The storm has passed.")
    assert response.status_code == 200 and "The storm has passed." in response.content.decode()
    index, line = _note(store, instance_id, session_id)
    assert line["content"] == "The storm has passed." and line["edited"]["original"] == NARRATION
    assert line["name"] == "Narrator"  # still the narrator's line
    assert _backups(store, instance_id)  # the file before the edit is kept

    response = _page_change(alice_client, store, instance_id, session_id, hidden=True)
    assert response.status_code == 200 and "hidden-from-model" in response.content.decode()
    assert _note(store, instance_id, session_id)[1]["hidden"] is True
    exported = alice_client.get(f"/api/v1/instances/{instance_id}/sessions/{session_id}/export"
                                "?format=jsonl").content.decode().splitlines()
    narrator = next(json.loads(r) for r in exported if "storm" in r)
    assert narrator["is_system"] is True
    _page_change(alice_client, store, instance_id, session_id, hidden=False)
    assert "hidden" not in _note(store, instance_id, session_id)[1]

    index, line = _note(store, instance_id, session_id)
    response = alice_client.delete(f"/api/v1/instances/{instance_id}/sessions/{session_id}"
                                   f"/messages/{index}?fingerprint={history_base.line_fingerprint(line)}")
    assert response.status_code == 200
    lines = store.session_read(instance_id, session_id).lines
    assert [line.get("content") for line in lines] == ["Hello.", "Hm."]
    undone = alice_client.post(f"/api/v1/instances/{instance_id}/history/undo",
                               {"token": response.json()["undo_token"]},
                               content_type="application/json")
    assert undone.status_code == 200
    assert _note(store, instance_id, session_id)[1]["content"] == "The storm has passed."


def test_rest_lists_a_narrator_line_and_changes_it_like_any_message(client, alice, narrated,
                                                                     store):
    instance_id, session_id = narrated
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    base = f"/api/v1/instances/{instance_id}/sessions/{session_id}/messages"
    rows = client.get(base, **auth).json()["rows"]
    row = next(r for r in rows if r["role"] == "note")
    assert row["content"] == NARRATION

    response = client.put(f"{base}/{row['index']}", json.dumps(
        {"fingerprint": row["fingerprint"], "text": "Thunder.", "hidden": True}),
        content_type="application/json", **auth)
    assert response.status_code == 200 and response.json()["undo_token"]
    line = _note(store, instance_id, session_id)[1]
    assert line["content"] == "Thunder." and line["hidden"] is True

    fingerprint = history_base.line_fingerprint(line)
    response = client.delete(f"{base}/{row['index']}?fingerprint={fingerprint}", **auth)
    assert response.status_code == 200 and response.json()["deleted"]["content"] == "Thunder."
    assert all(line.get("type") != "note"
               for line in store.session_read(instance_id, session_id).lines)
    undo = client.post(f"/api/v1/instances/{instance_id}/history/undo",
                       json.dumps({"token": response.json()["undo_token"]}),
                       content_type="application/json", **auth)
    assert undo.status_code == 200
    assert _note(store, instance_id, session_id)[1]["content"] == "Thunder."


def test_a_summary_still_cannot_be_hidden(alice_client, instance, store):
    session_id = store.instance_state_read(instance)["current_session_id"]
    store.session_append(instance, session_id, {"type": "summary", "content": "Earlier."})
    lines = store.session_read(instance, session_id).lines
    index = next(i for i, line in enumerate(lines) if line.get("type") == "summary")
    response = alice_client.put(
        f"/api/v1/instances/{instance}/sessions/{session_id}/messages/{index}",
        {"fingerprint": history_base.line_fingerprint(lines[index]), "hidden": True},
        content_type="application/json")
    assert response.status_code == 400
