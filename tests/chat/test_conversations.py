"""The conversation ledger's indexes: convKey and participant files in the data folder, the DB
rows, reindex, and the REST lists, which only ever show the asking account's conversations."""

from __future__ import annotations

import shutil

import pytest

from chat.groups.conversations import BY_KEY, BY_PARTICIPANT, conv_key, ledger_read
from chat.models import ConversationParticipant
from chat.services.index import reindex_all
from chat.services.instances import instance_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def brenna(store, alice):
    from library.character_services import character_save

    return character_save(store, user=alice, character_id=None, data={
        "name": "Brenna", "base_persona": "机械师。", "visibility": "shared"})


@pytest.fixture
def scenes(store, alice, bob, character, brenna):
    return {"duo": instance_create(store, owner=alice, character_ids=[character, brenna]),
            "solo": instance_create(store, owner=alice, character_id=character),
            "bobs": instance_create(store, owner=bob, character_ids=[brenna, character])}


def test_conv_key_is_the_sorted_ids_joined_by_a_bar():
    assert conv_key(["player:alice", "char_b", "char_a"]) == "char_a|char_b|player:alice"


def test_creating_conversations_writes_both_ledger_files(store, scenes, character, brenna):
    ledger = ledger_read(store)
    duo_key = conv_key([character, brenna, "player:alice"])
    assert (duo_key, scenes["duo"]) in ledger["by_key"]
    assert (conv_key([character, "player:alice"]), scenes["solo"]) in ledger["by_key"]
    assert ("player:bob", scenes["bobs"]) in ledger["by_participant"]
    assert {i for p, i in ledger["by_participant"] if p == brenna} == {scenes["duo"], scenes["bobs"]}


def test_reindex_rebuilds_the_files_and_the_rows(store, scenes):
    before = ledger_read(store)
    shutil.rmtree(store.root / "index")
    ConversationParticipant.objects.all().delete()
    reindex_all(store)
    assert sorted(ledger_read(store)["by_key"]) == sorted(before["by_key"])
    assert sorted(ledger_read(store)["by_participant"]) == sorted(before["by_participant"])
    assert (store.root / "index" / BY_KEY).exists() and (store.root / "index" / BY_PARTICIPANT).exists()
    assert ConversationParticipant.objects.filter(instance_id=scenes["duo"]).count() == 3


def test_rest_finds_the_exact_set_only_in_your_own_conversations(alice_client, scenes, character,
                                                                  brenna):
    response = alice_client.get(f"/api/v1/conversations?participants={brenna},{character}")
    assert response.status_code == 200
    found = response.json()["conversations"]
    assert [c["instance_id"] for c in found] == [scenes["duo"]]  # not bob's, not the solo one
    assert found[0]["participants"] == sorted([character, brenna, "player:alice"])
    solo = alice_client.get(f"/api/v1/conversations?participants={character}").json()
    assert [c["instance_id"] for c in solo["conversations"]] == [scenes["solo"]]
    assert alice_client.get("/api/v1/conversations?participants=,").status_code == 400


def test_rest_lists_a_characters_conversations_never_another_accounts(client, alice, bob, scenes,
                                                                        character, brenna):
    client.force_login(alice)
    mine = client.get(f"/api/v1/participants/{brenna}/conversations").json()["conversations"]
    assert [c["instance_id"] for c in mine] == [scenes["duo"]]
    both = client.get(f"/api/v1/participants/{character}/conversations").json()["conversations"]
    assert {c["instance_id"] for c in both} == {scenes["duo"], scenes["solo"]}
    assert client.get("/api/v1/participants/player:bob/conversations").json() == {
        "conversations": []}
    client.force_login(bob)
    theirs = client.get(f"/api/v1/participants/{character}/conversations").json()
    assert [c["instance_id"] for c in theirs["conversations"]] == [scenes["bobs"]]
