"""The check page before a chat import proposes a character for each of the file's speakers,
matched by name and changeable one speaker a line; Cancel deletes the waiting file, and one
nobody comes back for is deleted after PENDING_KEEP_SECONDS."""

from __future__ import annotations

import json
import os
import re
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.import_export.import_check import PENDING_KEEP_SECONDS
from chat.models import Instance
from library.character_services import character_save

pytestmark = pytest.mark.django_db(transaction=True)


def _group_chat(*speakers: str) -> bytes:
    def line(name: str, is_user: bool, text: str) -> dict:
        return {"name": name, "is_user": is_user, "is_system": False,
                "send_date": "2024-03-05T14:03:00.000Z", "mes": text, "extra": {}}

    records = [{"user_name": "Ann", "character_name": speakers[0], "chat_metadata": {}},
               line("Ann", True, "Who is at the door?")]
    records += [line(name, False, f"{name} steps in from the rain.") for name in speakers]
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def _made(store, alice, name: str) -> str:
    return character_save(store, data={"name": name, "base_persona": f"{name}, a traveller.",
                                       "greeting": "", "visibility": "private"},
                          character_id=None, user=alice)


def _library_upload(client, data: bytes):
    return client.post("/chats/import", {"file": SimpleUploadedFile("party.jsonl", data),
                                         "next": "/library/"})


def _rows(text: str) -> list[tuple[str, str]]:
    """(speaker, the character selected for it) per row of the check page."""
    rows = re.findall(r'<label class="import-check-speaker"[^>]*>([^<]*)</label>.*?<select[^>]*>'
                      r'(.*?)</select>', text, re.DOTALL)
    selected = [re.search(r'<option value="([^"]*)"[^>]* selected>', options)
                for _, options in rows]
    return [(speaker, found.group(1) if found else "")
            for (speaker, _), found in zip(rows, selected, strict=True)]


def _token(text: str) -> str:
    return re.search(r'name="token" value="([0-9a-f]{32})"', text).group(1)


def _waiting(store) -> list[str]:
    return sorted(p.name for p in (store.root / "pending_imports").glob("*/*"))


def test_a_group_chat_from_the_library_proposes_each_speaker_by_name(alice_client, alice, store):
    ann, bob = _made(store, alice, "Ann Lee"), _made(store, alice, "Bob")
    before = Instance.objects.count()
    response = _library_upload(alice_client, _group_chat("bob", "Stranger", "Ann  Lee"))
    text = response.content.decode()
    assert response.status_code == 200
    assert "Who plays whom" in text and 'data-testid="import-check-warning"' not in text
    assert _rows(text) == [("bob", bob), ("Stranger", ""), ("Ann  Lee", ann)]
    assert Instance.objects.count() == before
    response = alice_client.post("/chats/import", {
        "token": _token(text), "confirmed": "1", "next": "/library/",
        "character_ids": [bob, "", ann]}, follow=True)
    instance_id = response.redirect_chain[-1][0].strip("/").split("/")[-1]
    members = [p["character_id"] for p in store.instance_state_read(instance_id)["participants"]]
    assert members == [bob, ann]
    assert _waiting(store) == []


def test_a_speaker_nobody_is_named_after_gets_the_character_picked_on_its_page(
        alice_client, alice, store):
    mira = _made(store, alice, "Mira")
    text = alice_client.post("/chats/import", {
        "character_id": mira, "file": SimpleUploadedFile("c.jsonl", _group_chat("Megumin")),
        "next": f"/library/characters/{mira}/"}).content.decode()
    assert "This chat&#x27;s replies are by Megumin, but you picked Mira." in text
    assert _rows(text) == [("Megumin", mira)]


def test_leaving_every_speaker_out_asks_again_and_keeps_the_file(alice_client, alice, store):
    _made(store, alice, "Bob")
    token = _token(_library_upload(alice_client, _group_chat("Bob")).content.decode())
    before = Instance.objects.count()
    response = alice_client.post("/chats/import", {"token": token, "confirmed": "1",
                                                   "character_ids": [""], "next": "/library/"})
    assert response.status_code == 400
    assert "Pick at least one character for this chat." in response.content.decode()
    assert Instance.objects.count() == before
    assert len(_waiting(store)) == 2


def test_cancel_deletes_the_waiting_file(alice_client, alice, store):
    _made(store, alice, "Bob")
    token = _token(_library_upload(alice_client, _group_chat("Bob")).content.decode())
    assert len(_waiting(store)) == 2  # the file and its name
    response = alice_client.post("/chats/import/cancel", {"token": token, "next": "/library/"})
    assert response.status_code == 302 and response["Location"] == "/library/"
    assert _waiting(store) == []


def test_a_file_left_waiting_is_deleted_whoever_imports_next(alice_client, client, alice, bob,
                                                              store):
    _made(store, alice, "Bob")
    _library_upload(alice_client, _group_chat("Bob"))
    old = time.time() - PENDING_KEEP_SECONDS - 60
    for path in (store.root / "pending_imports").glob("*/*"):
        os.utime(path, (old, old))
    client.force_login(bob)
    client.post("/chats/import", {"file": SimpleUploadedFile("x.jsonl", _group_chat("Zed")),
                                  "next": "/library/"})
    assert len(_waiting(store)) == 2, "alice's old file is still there, or bob's is gone"


def test_rest_check_proposes_a_character_for_each_speaker(client, alice, store):
    from chat.models import ApiToken

    bob = _made(store, alice, "Bob")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    response = client.post("/api/v1/instances/import/check",
                           {"file": SimpleUploadedFile("c.jsonl", _group_chat("Bob", "Zed"))},
                           **auth)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["warnings"] == []
    assert body["proposed"] == [{"speaker": "Bob", "character_id": bob, "name": "Bob"},
                                {"speaker": "Zed", "character_id": None, "name": None}]


def test_a_speaker_is_never_proposed_another_accounts_shared_character(client, alice, bob,
                                                                      store):
    # bob's shared "Zed" was proposed for alice's speaker Zed: one click and his card (and his
    # later edits of it) played in her chat.
    from chat.models import ApiToken

    character_save(store, data={"name": "Zed", "base_persona": "", "greeting": "",
                                "visibility": "shared"}, character_id=None, user=bob)
    response = client.post("/api/v1/instances/import/check",
                           {"file": SimpleUploadedFile("c.jsonl", _group_chat("Zed"))},
                           HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert response.json()["proposed"] == [{"speaker": "Zed", "character_id": None,
                                            "name": None}]
    client.force_login(alice)
    assert _rows(_library_upload(client, _group_chat("Zed")).content.decode()) == [("Zed", "")]
