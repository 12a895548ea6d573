"""A chat imported into an instance over REST, as the import-indexing tests do it: `count` lines
of small talk with one fact in them."""

from __future__ import annotations

import json

from django.core.files.uploadedfile import SimpleUploadedFile

GOATS_FACT = "My sister Maribel keeps three goats called Pepper, Anchor and Juniper on her farm."


def st_chat_lines(count: int) -> bytes:
    """A SillyTavern chat of Ann and Bo, `count` lines, the sixth GOATS_FACT."""
    records = [{"user_name": "Ann", "character_name": "Bo", "create_date": "2024-3-5 @14h 02m 09s",
                "chat_metadata": {}}]
    for number in range(count):
        text = (GOATS_FACT if number == 5
                else f"Line {number}: we walked on and talked about the weather.")
        records.append({"name": "Ann" if number % 2 == 0 else "Bo", "is_user": number % 2 == 0,
                        "is_system": False, "send_date": "2024-03-05T14:03:00.000Z",
                        "mes": text, "extra": {}})
    return "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")


def chat_lines_import(client, auth, instance: str, count: int) -> str:
    """That chat imported into `instance` over REST: its session's id."""
    file = SimpleUploadedFile("chat.jsonl", st_chat_lines(count))
    response = client.post(f"/api/v1/instances/{instance}/import_chat", {"file": file}, **auth)
    assert response.status_code == 201, response.content
    return response.json()["session_id"]
