"""A SillyTavern chat imported over REST: its player lines were filled by SillyTavern when
they were sent, so they count as filled here (`macros_filled`, as a line sent here is marked)
and a `{{user}}` or `{{random}}` left in one reaches the model as written, every time."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.models import ApiToken
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

LITERAL = "I wrote {{user}} and {{random::red::blue}} on the <BOT> sign."
CHAT = [{"user_name": "Ann", "character_name": "Alserqi", "create_date": "2025-01-01",
         "chat_metadata": {}},
        {"name": "Ann", "is_user": True, "send_date": "2025-01-01T10:00:00Z", "mes": LITERAL},
        {"name": "Alserqi", "is_user": False, "send_date": "2025-01-01T10:00:05Z",
         "mes": "I see {{user}}."},
        {"name": "Ann", "is_user": True, "send_date": "2025-01-01T10:01:00Z", "mes": "Plain."}]


@pytest.fixture
def auth(alice):
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


def _imported(client, auth, instance) -> str:
    data = "".join(json.dumps(record) + "\n" for record in CHAT).encode()
    response = client.post(f"/api/v1/instances/{instance}/import_chat",
                           {"file": SimpleUploadedFile("chat.jsonl", data)}, **auth)
    assert response.status_code == 201, response.content
    return response.json()["session_id"]


def test_an_imported_sillytavern_player_line_is_sent_as_written(client, auth, store, instance,
                                                                use_stub):
    session_id = _imported(client, auth, instance)
    use_stub.script(Reply("One."), Reply("Two."))
    for query in ("Next.", "Again."):
        answered = client.post("/api/v1/chat", json.dumps({"instance_id": instance,
                                                           "query": query}),
                               content_type="application/json", **auth)
        assert answered.status_code == 200, answered.content
        sent = [m["content"] for m in use_stub.requests[-1]["messages"] if m["role"] == "user"]
        assert LITERAL in sent  # not "I wrote Ann and red on the Alserqi sign."
    lines = [line for line in store.session_read(instance, session_id).lines
             if line.get("role") == "user"]
    # Marked as a line sent here is: only a line with a macro in it carries the mark.
    assert lines[0]["content"] == LITERAL and lines[0]["macros_filled"] is True
    assert "macros_filled" not in lines[1]
