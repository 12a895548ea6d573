"""Issue 29, the "Low" findings, written as the attacks: a 3,000-entry book, a 62 KB CHARX that
unpacks to 60 MB, CHARX member paths that cannot all be written, and probing another account's
private ids through create."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from library.card_formats.charx import CharxError, charx_read

pytestmark = pytest.mark.django_db

CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "A medic.", "first_mes": "Hold still.",
    "character_book": {"name": "Mira's world", "entries": [
        {"keys": ["tower"], "content": "The tower is flooded.", "enabled": True,
         "insertion_order": 5, "extensions": {}}]}}}


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _charx(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("card.json", json.dumps(CARD))
        for name, body in members.items():
            archive.writestr(name, body)
    return buffer.getvalue()


def _import(client, data: bytes, name: str = "mira.charx"):
    return client.post("/api/v1/characters/import",
                       {"file": SimpleUploadedFile(name, data, "application/zip")})


def _bytes_under(folder) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _nothing_imported(store, data_dir) -> None:
    assert store.character_ids() == [] and store.lorebook_ids() == []
    from library.models import Character, Lorebook

    assert not Character.objects.exists() and not Lorebook.objects.exists()
    leftovers = [p for p in (data_dir / "characters").rglob("*")] if (
        data_dir / "characters").exists() else []
    assert leftovers == []


def _book(entries: int) -> dict:
    return {"name": "Huge", "entries": [
        {"keys": [f"k{i}"], "content": f"entry {i}", "vectorized": True} for i in range(entries)]}


def test_a_3000_entry_lorebook_is_refused_at_save_and_at_import(alice_client, store):
    created = alice_client.post("/api/v1/lorebooks", json.dumps(_book(3000)),
                                content_type="application/json")
    assert created.status_code == 422
    assert "at most 1000" in created.json()["error"]["message"]
    file = SimpleUploadedFile("huge.json", json.dumps(_book(3000)).encode(), "application/json")
    assert alice_client.post("/api/v1/lorebooks/import", {"file": file}).status_code == 422
    card = {**CARD, "data": {**CARD["data"], "character_book": _book(3000)}}
    imported = alice_client.post("/api/v1/characters/import", {
        "file": SimpleUploadedFile("c.json", json.dumps(card).encode(), "application/json")})
    assert imported.status_code == 422
    assert store.lorebook_ids() == [] and store.character_ids() == []


def test_a_62_kb_zero_bomb_charx_is_refused_with_nothing_written(alice_client, store, data_dir):
    bomb = _charx({f"assets/other/zeros{i}.bin": b"\0" * (15 * 2**20) for i in range(4)})
    assert len(bomb) < 100_000
    response = _import(alice_client, bomb)
    assert response.status_code == 400
    assert "unpacks to more than" in response.json()["error"]["message"]
    _nothing_imported(store, data_dir)
    assert _bytes_under(data_dir) < 2**20


def test_a_charx_listing_thousands_of_files_is_refused_before_the_list_is_read():
    # zipfile read a list of 110,000 empty members (9 MB) whole, 1.3 s of CPU, before they were
    # counted; the size its end record gives refuses it first. 511 long names still read.
    many = _charx({f"assets/other/{i:05}": b"" for i in range(12_000)})
    with pytest.raises(CharxError, match="lists more files than the 512 that are read"):
        charx_read(many)
    long_names = _charx({f"assets/other/{'n' * 100}/{i:03}{'m' * 100}.txt": b"x"
                         for i in range(511)})
    assert len(charx_read(long_names).assets) == 511


@pytest.mark.parametrize("members, said", [
    ({"assets/other/a": b"file", "assets/other/a/b.png": b"inside"}, "both a file and a folder"),
    ({"assets/other/A.png": b"one", "assets/other/a.png": b"two"}, "twice"),
    ({"assets/" + "/".join(["p" * 100] * 12) + "/x.png": b"deep"}, "too long"),
])
def test_charx_member_paths_that_cannot_all_be_written_leave_no_half_character(
        alice_client, store, data_dir, members, said):
    response = _import(alice_client, _charx(members))
    assert response.status_code == 400
    assert said in response.json()["error"]["message"]
    _nothing_imported(store, data_dir)


def test_a_charx_that_fails_while_being_written_leaves_no_trace(alice_client, store, data_dir,
                                                                 monkeypatch):
    from library.card_formats import card_import

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(card_import, "avatar_write", disk_full)
    icon = {"assets/icon/images/main.png": b"\x89PNG\r\n\x1a\n" + b"\0" * 64}
    card = {**CARD, "data": {**CARD["data"], "assets": [
        {"type": "icon", "name": "main", "ext": "png",
         "uri": "embeded://assets/icon/images/main.png"}]}}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("card.json", json.dumps(card))
        for name, body in icon.items():
            archive.writestr(name, body)
    monkeypatch.setattr(card_import, "image_kind", lambda image: "png")
    response = _import(alice_client, buffer.getvalue())
    assert response.status_code == 400
    assert "No space left" in response.json()["error"]["message"]
    _nothing_imported(store, data_dir)
    assert not any((data_dir / "tmp").rglob("*")) if (data_dir / "tmp").exists() else True


KINDS = [("/api/v1/personas", "persona_id", {"name": "Secret", "visibility": "private"}),
         ("/api/v1/lorebooks", "lorebook_id", {"name": "Secret", "entries": [],
                                               "visibility": "private"}),
         ("/api/v1/characters", "character_id", {"name": "Secret", "visibility": "private"}),
         ("/api/v1/backgrounds", "background_id", {"name": "Secret",
                                                   "visibility": "private"})]


@pytest.mark.parametrize("url, key, body", KINDS)
def test_creating_another_accounts_private_id_reveals_nothing(store, alice, bob, url, key, body):
    alice_client, bob_client = _client(alice), _client(bob)
    mine = alice_client.post(url, json.dumps({**body, key: "secret_plan"}),
                             content_type="application/json")
    assert mine.status_code == 201 and mine.json()[key] == "secret_plan"

    probe = bob_client.post(url, json.dumps({**body, key: "secret_plan"}),
                            content_type="application/json")
    assert probe.status_code == 201
    assert probe.json()[key] != "secret_plan"
    assert "secret_plan" in probe.json()[key]  # the id asked for, made free with a suffix
    never = bob_client.post(url, json.dumps({**body, key: "never_used"}),
                            content_type="application/json")
    assert never.status_code == 201 and never.json()[key] == "never_used"

    again = alice_client.post(url, json.dumps({**body, key: "secret_plan"}),
                              content_type="application/json")
    assert again.status_code == 409  # create never overwrites: the owner still hears so


@pytest.mark.django_db(transaction=True)
def test_one_export_more_than_the_accounts_slots_is_refused_with_a_sentence(
        client, alice, instance, store, settings):
    from personalab.lib.busy import busy_slot

    client.force_login(alice)
    session_id = store.instance_state_read(instance)["current_session_id"]
    url = f"/api/v1/instances/{instance}/sessions/{session_id}/export?format=jsonl"
    settings.PERSONALAB_EXPORTS_PER_ACCOUNT = 2
    with busy_slot(store.root / "busy", account="alice", action="export", slots=2, what="x"), \
            busy_slot(store.root / "busy", account="alice", action="export", slots=2, what="x"):
        refused = client.get(url)
        assert refused.status_code == 429
        assert "already have 2 exports running" in refused.json()["error"]["message"]
        with busy_slot(store.root / "busy", account="bob", action="export", slots=2, what="x"):
            pass  # another account's slots are its own
    assert client.get(url).status_code == 200  # a slot given back is free again


def test_a_turn_scores_at_most_the_capped_number_of_vectorized_entries():
    """3,000 vectorized entries once held the instance lock for 8 minutes on their first turn."""
    import numpy as np

    from library.lore.vectors import content_hash, vector_scorer

    asked: list[str] = []

    def ready(texts):
        asked.extend(texts)
        return {content_hash(text): np.ones(4, dtype=np.float32) / 2 for text in texts}

    entries = [{"lorebook_id": "big", "uid": n, "content": f"entry {n}", "vectorized": True}
               for n in range(3000)]
    notes: list[str] = []
    scores = vector_scorer(["a dragon"], embed_queries=lambda texts: np.ones((1, 4)) / 2,
                           vectors_ready=ready, max_entries=200, notes=notes)(entries)
    assert len(scores) == 200
    assert len(asked) == 200  # the first 200 entries, no more
    assert notes == [("lorebook big: 3000 vectorized entries, only the first 200 are compared "
                      "with the chat (PERSONALAB_LORE_VECTOR_ENTRIES_MAX)")]
