"""Going on as a group reads, exports and imports a whole chat: it takes one of the account's
import slots, as an import does, and its export goes through the export workers within the
account's share, so one account's regroups cannot hold the server for the others."""

from __future__ import annotations

import json
import threading

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from chat.import_export import exports
from chat.services.instances import instance_create
from library.character_services import character_save
from personalab.lib.busy import busy_slot

pytestmark = pytest.mark.django_db(transaction=True)


def _group_chat(client: Client, solo: str, members: list[tuple[str, str]]) -> str:
    """A group chat of `members` (character id, name) imported into `solo`; its session id."""
    records = [{"user_name": "You", "character_name": members[0][1], "chat_metadata": {
        "personalab_group": {"members": [{"character_id": c, "name": n} for c, n in members]}}}]
    records += [{"name": n, "is_user": False, "mes": f"{n} here.",
                 "send_date": "2024-5-1 @12h02m"} for _, n in members]
    body = "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")
    response = client.post(f"/api/v1/instances/{solo}/import_chat",
                           {"file": SimpleUploadedFile("group.jsonl", body)})
    assert response.status_code == 201, response.content
    return response.json()["session_id"]


@pytest.fixture
def bob_chat(store, bob, character):
    pell = character_save(store, user=bob, character_id=None, data={
        "name": "Pell", "base_persona": "A ferryman.", "visibility": "private"})
    solo = instance_create(store, owner=bob, character_id=character)
    client = Client()
    client.force_login(bob)
    return client, solo, _group_chat(client, solo, [(character, "Alserqi"), (pell, "Pell")])


def test_a_second_regroup_of_an_account_waits_for_its_import_slot_and_others_go_on(
        alice_client, store, alice, character, brenna, bob_chat, settings, monkeypatch):
    settings.PERSONALAB_IMPORTS_PER_ACCOUNT = 1
    solo = instance_create(store, owner=alice, character_id=character)
    session_id = _group_chat(alice_client, solo, [(character, "Alserqi"), (brenna, "Brenna")])
    apart = exports.session_export_apart
    exporting, go_on, accounts = threading.Event(), threading.Event(), []

    def held(**kwargs):
        accounts.append(kwargs["account"])
        if kwargs["account"] == "alice":
            exporting.set()
            assert go_on.wait(10)
        return apart(**kwargs)

    monkeypatch.setattr(exports, "session_export_apart", held)
    first: list = []
    thread = threading.Thread(target=lambda: first.append(exports.session_regroup_limited(
        alice, instance_id=solo, session_id=session_id)))
    thread.start()
    try:
        assert exporting.wait(10)
        before = set(store.instance_ids())
        second = alice_client.post(f"/api/v1/instances/{solo}/sessions/{session_id}/regroup")
        assert second.status_code == 429, second.content
        assert set(store.instance_ids()) == before  # nothing made for the refused one
        page = alice_client.post(f"/instances/{solo}/regroup", {"session_id": session_id},
                                 follow=True)
        assert "imports running" in page.content.decode()

        bob_client, bob_solo, bob_session = bob_chat
        response = bob_client.post(f"/api/v1/instances/{bob_solo}/sessions/{bob_session}/regroup")
        assert response.status_code == 201, response.content
    finally:
        go_on.set()
        thread.join(10)
    assert first and first[0][0] in store.instance_ids()
    assert accounts == ["alice", "bob"]  # each export within its own account's share
    again = alice_client.post(f"/api/v1/instances/{solo}/sessions/{session_id}/regroup")
    assert again.status_code == 201, again.content


def test_the_chat_pages_import_takes_one_of_the_accounts_import_slots(
        alice_client, store, alice, character, bob_chat, settings):
    """The page's "Import a chat" into this conversation read and wrote the whole file outside
    the import slots the API's import holds (red team, twelfth pass)."""
    settings.PERSONALAB_IMPORTS_PER_ACCOUNT = 1
    solo = instance_create(store, owner=alice, character_id=character)
    body = (json.dumps({"user_name": "You", "character_name": "Alserqi"}) + "\n"
            + json.dumps({"name": "Alserqi", "is_user": False, "mes": "Hello."}) + "\n").encode()
    before = store.instance_state_read(solo)["current_session_id"]
    with busy_slot(store.root / "busy", account="alice", action="import", slots=1, what="x"):
        page = alice_client.post(f"/instances/{solo}/import_chat",
                                 {"file": SimpleUploadedFile("c.jsonl", body)}, follow=True,
                                 HTTP_ACCEPT_LANGUAGE="zh-hans")
        assert "个导入在进行" in page.content.decode()
        assert store.instance_state_read(solo)["current_session_id"] == before
        bob_client, bob_solo, _ = bob_chat
        bobs = store.instance_state_read(bob_solo)["current_session_id"]
        bob_client.post(f"/instances/{bob_solo}/import_chat",
                        {"file": SimpleUploadedFile("c.jsonl", body)})
        assert store.instance_state_read(bob_solo)["current_session_id"] != bobs
    alice_client.post(f"/instances/{solo}/import_chat",
                      {"file": SimpleUploadedFile("c.jsonl", body)})
    assert store.instance_state_read(solo)["current_session_id"] != before
