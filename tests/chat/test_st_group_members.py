"""A group chat as SillyTavern tells its members apart: every member line of an export names
the member's avatar file (`original_avatar`, and `force_avatar` for its picture), and every
member line of an imported SillyTavern group chat is attributed, its first greeting too."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.import_export.st_avatars import st_avatar_files
from chat.services.instances import instance_create
from tests.group_turns import session_lines, turn_said
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

GREETED = [
    {"user_name": "You", "character_name": "unused", "create_date": "2024-01-01@12h00m00s",
     "chat_metadata": {}},
    {"name": "Alserqi", "is_user": False, "is_system": False,
     "send_date": "January 1, 2024 12:00pm", "mes": "ST Alserqi greeting",
     "original_avatar": "Alserqi.png", "extra": {}},
    {"name": "Brenna", "is_user": False, "is_system": False,
     "send_date": "January 1, 2024 12:00pm", "mes": "ST Brenna greeting",
     "original_avatar": "Brenna.png", "extra": {}},
    {"name": "You", "is_user": True, "is_system": False, "send_date": "January 1, 2024 12:01pm",
     "mes": "Hello both", "extra": {}},
    {"name": "brenna", "is_user": False, "is_system": False,
     "send_date": "January 1, 2024 12:02pm", "mes": "Brenna answers", "extra": {}},
]


@pytest.fixture
def trio(store, alice, character, brenna, shared_brenna):
    """Alserqi and two characters named Brenna, each answering every round."""
    return instance_create(store, owner=alice, character_ids=[character, brenna, shared_brenna],
                           reply_order="everyone")


def _exported(client, store, instance_id):
    session_id = store.instance_state_read(instance_id)["current_session_id"]
    response = client.get(f"/api/v1/instances/{instance_id}/sessions/{session_id}/export"
                          "?format=jsonl")
    assert response.status_code == 200
    return [json.loads(line) for line in response.content.decode("utf-8").splitlines()][1:]


async def test_each_members_reply_names_its_own_avatar_file_as_sillytavern_would(
        alice_client, store, trio, character, brenna, shared_brenna, use_stub):
    use_stub.script(Reply("Alserqi here."), Reply("Brenna here."), Reply("Other Brenna here."))
    await turn_said(store, trio, "Who is there?")

    records = await sync_to_async(_exported)(alice_client, store, trio)

    said = [(r["mes"], r.get("original_avatar"), r.get("force_avatar"))
            for r in records if not r["is_user"]]
    assert said[-3:] == [
        ("Alserqi here.", "Alserqi.png", "/thumbnail?type=avatar&file=Alserqi.png"),
        ("Brenna here.", "Brenna.png", "/thumbnail?type=avatar&file=Brenna.png"),
        ("Other Brenna here.", "Brenna1.png", "/thumbnail?type=avatar&file=Brenna1.png")]
    assert [r.get("original_avatar") for r in records if r["is_user"]] == [None]


def test_an_imported_reply_keeps_the_avatar_it_came_with(alice_client, store, alice, character,
                                                        brenna):
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [
        *GREETED[:2], {**GREETED[2], "original_avatar": "Brenna (2).png"}]).encode("utf-8")
    response = alice_client.post("/api/v1/instances/import", {
        "file": SimpleUploadedFile("group.jsonl", body),
        "character_ids": f"{character},{brenna}"})
    assert response.status_code == 201, response.json()

    records = _exported(alice_client, store, response.json()["instance_id"])

    assert [(r["original_avatar"], r["force_avatar"]) for r in records] == [
        ("Alserqi.png", "/thumbnail?type=avatar&file=Alserqi.png"),
        ("Brenna (2).png", "/thumbnail?type=avatar&file=Brenna%20(2).png")]


def test_a_new_chat_imported_from_a_group_file_attributes_every_member_line(
        alice_client, store, character, brenna):
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in GREETED).encode("utf-8")
    response = alice_client.post("/api/v1/instances/import", {
        "file": SimpleUploadedFile("group.jsonl", body),
        "character_ids": f"{character},{brenna}"})
    assert response.status_code == 201, response.json()
    instance_id = response.json()["instance_id"]

    replies = [(line.get("speaker"), line["content"])
               for line in session_lines(store, instance_id) if line.get("role") == "assistant"]
    assert replies == [(character, "ST Alserqi greeting"), (brenna, "ST Brenna greeting"),
                       (brenna, "Brenna answers")]


def test_an_avatar_file_name_is_cleaned_and_numbered_as_sillytavern_does():
    assert st_avatar_files(["Mira", "mira", 'A/B: "C"?. ', "con", "Mira"],
                           taken=["Mira.png"]) == [
        "Mira1.png", "mira2.png", "AB C.png", "character.png", "Mira3.png"]
