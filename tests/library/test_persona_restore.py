"""SillyTavern's personas restored here: its persona manager's "Backup" file or its
settings.json, over REST (POST /api/v1/personas/import) and from the personas page."""

from __future__ import annotations

import json
import threading
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from chat.models import ApiToken
from library.lore.services import lorebook_save
from library.models import Persona
from library.personas import restore
from library.personas.services import persona_create

pytestmark = pytest.mark.django_db(transaction=True)

# As SillyTavern 1.12.6 writes it (public/scripts/personas.js onBackupPersonas): personas by
# avatar file name, each descriptor with its position (0 prompt, 2/3 the author's note's top /
# bottom, 4 at a depth, 9 none), depth and role (0 system, 1 user, 2 assistant).
BACKUP = {
    "personas": {"user-default.png": "Wren", "1714000000000-Ash.png": "Ash",
                 "1714000000001-Kit.png": "Kit"},
    "persona_descriptions": {
        "user-default.png": {"description": "{{user}} is a cartographer.", "position": 0,
                             "depth": 2, "role": 0},
        "1714000000000-Ash.png": {"description": "A retired pilot.", "position": 4,
                                  "depth": 3, "role": 1, "lorebook": ""},
        "1714000000001-Kit.png": {"description": "Kit never lies.", "position": 2,
                                  "depth": 2, "role": 0},
    },
    "default_persona": "1714000000000-Ash.png",
}


def _upload(client, user, body: bytes, name="personas_20261201.json"):
    return client.post("/api/v1/personas/import",
                       {"file": SimpleUploadedFile(name, body, "application/json")},
                       HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(user)}")


def test_a_backup_restores_each_persona_with_its_placement_and_default(client, store, alice):
    answer = _upload(client, alice, json.dumps(BACKUP).encode())
    assert answer.status_code == 201, answer.content
    made = {p["name"]: p for p in answer.json()["created"]}
    assert list(made) == ["Wren", "Ash", "Kit"]
    assert made["Wren"]["description"] == "{{user}} is a cartographer."
    assert (made["Ash"]["description_position"], made["Ash"]["description_depth"],
            made["Ash"]["description_role"]) == ("depth", 3, "user")
    assert made["Kit"]["description_position"] == "an_top"
    assert answer.json()["default_persona_id"] == made["Ash"]["persona_id"]
    assert [p.name for p in Persona.objects.filter(owner=alice, is_default=True)] == ["Ash"]
    assert all(p["visibility"] == "private" and p["owner"] == "alice" for p in made.values())


def test_settings_json_is_read_and_a_name_already_yours_is_skipped(client, store, alice, bob):
    persona_create(store, owner=alice, data={"name": "Kit", "description": "Mine already."})
    persona_create(store, owner=bob, data={"name": "Wren", "description": "Bob's own."})
    settings_json = {"firstRun": False, "power_user": {**BACKUP, "default_persona": None},
                     "main_api": "openai"}
    answer = _upload(client, alice, json.dumps(settings_json).encode(), name="settings.json")
    assert answer.status_code == 201, answer.content
    assert [p["name"] for p in answer.json()["created"]] == ["Wren", "Ash"]  # bob's Wren: his
    assert answer.json()["skipped"] == [
        {"name": "Kit", "reason": "you already have a persona of this name"}]
    kept = Persona.objects.get(owner=alice, name="Kit")
    assert store.persona_read(kept.persona_id)["description"] == "Mine already."
    assert Persona.objects.filter(owner=bob).count() == 1


@pytest.mark.parametrize("body, words", [
    (b"{not json", "not JSON"),
    (json.dumps({"characters": []}).encode(), "it has no “personas”"),
    (json.dumps({"personas": {f"{n}.png": f"P{n}" for n in range(1001)},
                 "persona_descriptions": {}}).encode(), "1001 personas"),
])
def test_a_file_that_is_not_a_backup_is_refused_and_makes_nothing(client, store, alice,
                                                                  body, words):
    answer = _upload(client, alice, body)
    assert answer.status_code == 400 and words in answer.json()["error"]["message"]
    assert not Persona.objects.filter(owner=alice).exists()


def test_one_description_over_the_limit_refuses_the_whole_file(client, store, alice):
    backup = json.loads(json.dumps(BACKUP))
    backup["persona_descriptions"]["1714000000001-Kit.png"]["description"] = "x" * 100_001
    answer = _upload(client, alice, json.dumps(backup).encode())
    assert answer.status_code == 400 and "Kit" in answer.json()["error"]["message"]
    assert not Persona.objects.filter(owner=alice).exists()


def test_the_personas_page_restores_a_backup_and_says_so_in_chinese(client, store, alice):
    client.force_login(alice)
    client.cookies["django_language"] = "zh-hans"
    page = client.get("/library/personas/").content.decode()
    assert 'action="/library/personas/restore"' in page and "恢复人设" in page
    done = client.post("/library/personas/restore", {"file": SimpleUploadedFile(
        "personas.json", json.dumps(BACKUP).encode())}, follow=True).content.decode()
    assert "已恢复 3 个人设。" in done
    again = client.post("/library/personas/restore", {"file": SimpleUploadedFile(
        "personas.json", json.dumps(BACKUP).encode())}, follow=True).content.decode()
    assert "已跳过“Ash”：你已有同名的人设。" in again
    refused = client.post("/library/personas/restore", {"file": SimpleUploadedFile(
        "personas.json", b'{"power_user": {}}')}, follow=True).content.decode()
    assert "这不是 SillyTavern 的人设备份" in refused
    assert Persona.objects.filter(owner=alice).count() == 3


def test_an_unnamed_personas_long_key_is_named_shortly_among_the_skipped(client, store, alice):
    keys = ["k" * 9000 + str(n) for n in range(3)]
    answer = _upload(client, alice, json.dumps({"personas": {key: "" for key in keys}}).encode())
    assert answer.status_code == 201, answer.content
    skipped = answer.json()["skipped"]
    assert len(skipped) == 3 and all(
        len(row["name"]) == 200 and row["name"].endswith("…") for row in skipped)
    client.force_login(alice)
    page = client.post("/library/personas/restore", {"file": SimpleUploadedFile(
        "personas.json", json.dumps({"personas": {key: "" for key in keys}}).encode())},
        follow=True).content.decode()
    assert page.count("k" * 199 + "…") == 3 and "k" * 201 not in page


def test_one_file_restored_twice_at_once_makes_each_persona_once(store, alice, monkeypatch):
    # Each restore read the names the account had before the other wrote: every persona twice.
    def slow_create(*args, **kwargs):
        time.sleep(0.05)  # a loaded machine's pause between reading the names and writing
        return persona_create(*args, **kwargs)

    monkeypatch.setattr(restore, "persona_create", slow_create)
    answers = []

    def restore_once():
        try:
            answers.append(restore.personas_restore(store, owner=alice,
                                                    data=json.dumps(BACKUP).encode()))
        finally:
            connection.close()

    threads = [threading.Thread(target=restore_once) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(Persona.objects.filter(owner=alice).values_list("name", flat=True)) == [
        "Ash", "Kit", "Wren"]
    assert sorted(len(answer.skipped) for answer in answers) == [0, 3]


def test_a_personas_lorebook_is_linked_by_name_and_a_missing_one_is_listed(
        client, store, alice, bob):
    mine = lorebook_save(store, user=alice, data={"name": "Harbor", "entries": []})
    lorebook_save(store, user=bob, data={"name": "Harbor", "entries": []})  # private to bob
    lorebook_save(store, user=bob, data={"name": "Atlas", "visibility": "shared",
                                         "entries": []})  # shared, yet not alice's
    settings_json = {"power_user": {
        **BACKUP, "user_avatar": "1714000000001-Kit.png",
        "persona_descriptions": {**BACKUP["persona_descriptions"], "1714000000000-Ash.png": {
            **BACKUP["persona_descriptions"]["1714000000000-Ash.png"], "lorebook": "Harbor"},
            "user-default.png": {**BACKUP["persona_descriptions"]["user-default.png"],
                                 "lorebook": "Atlas"}},
        # Kit's descriptor predates the field: the persona in use reads the settings' own key.
        "persona_description_lorebook": "Harbor"}}
    answer = _upload(client, alice, json.dumps(settings_json).encode(), name="settings.json")
    assert answer.status_code == 201, answer.content
    made = {p["name"]: p for p in answer.json()["created"]}
    assert made["Ash"]["lorebook_id"] == mine and made["Kit"]["lorebook_id"] == mine
    assert made["Wren"]["lorebook_id"] is None
    assert answer.json()["books_missing"] == [{"name": "Wren", "lorebook": "Atlas"}]


def test_the_restore_page_says_which_book_to_import_in_chinese(client, store, alice):
    client.force_login(alice)
    client.cookies["django_language"] = "zh-hans"
    backup = {**BACKUP, "persona_descriptions": {**BACKUP["persona_descriptions"],
              "1714000000000-Ash.png": {"description": "A pilot.", "lorebook": "Atlas"}}}
    done = client.post("/library/personas/restore", {"file": SimpleUploadedFile(
        "personas.json", json.dumps(backup).encode())}, follow=True).content.decode()
    assert "“Ash”使用世界书“Atlas”，但你尚未导入它" in done
