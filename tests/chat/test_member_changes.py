"""Member changes are journaled like other history edits (issue 15): joining, leaving (the first
member handing the story over included), muting; nothing is lost when a process dies half way,
the history manager and REST show the journal, and the conversation indexes follow every change
and come back the same from `reindex`."""

from __future__ import annotations

import shutil

import pytest
from django.core.management import call_command

from chat.groups.conversations import ledger_read
from chat.models import ConversationParticipant, Instance
from chat.services.index import reindex_all
from chat.services.instances import instance_create
from chat.services.members import (
    instance_member_add,
    instance_member_change,
    instance_member_move,
    instance_member_remove,
)
from personalab.lib.errors import Invalid
from personalab.lib.membership import member_changes_read
from personalab.lib.participants import conv_key, member_state_read, member_state_write

pytestmark = pytest.mark.django_db


def _indexes(store, instance_id):
    ledger = ledger_read(store)
    return {"key": [k for k, i in ledger["by_key"] if i == instance_id],
            "participants": sorted(p for p, i in ledger["by_participant"] if i == instance_id),
            "rows": sorted(ConversationParticipant.objects.filter(instance_id=instance_id)
                           .values_list("participant_id", "conv_key"))}


def test_create_add_mute_remove_are_journaled_and_the_indexes_follow_and_reindex_agrees(
        store, alice, character, shared_brenna):
    instance = instance_create(store, owner=alice, character_id=character)
    instance_member_add(store, user=alice, instance_id=instance, character_id=shared_brenna)
    both = conv_key(["player:alice", character, shared_brenna])
    assert _indexes(store, instance)["key"] == [both]

    instance_member_change(store, user=alice, instance_id=instance, character_id=shared_brenna,
                           muted=True)
    instance_member_remove(store, user=alice, instance_id=instance, character_id=character)

    journal = member_changes_read(store, instance)
    assert [(r["action"], r["character_id"]) for r in journal] == [
        ("add", shared_brenna), ("change", shared_brenna), ("remove", character)]
    assert journal[1]["changes"] == {"muted": True}
    assert journal[2]["character_id_before"] == character
    assert journal[2]["character_id_after"] == shared_brenna
    assert [p["character_id"] for p in journal[2]["participants_before"]] == [
        character, shared_brenna]
    after = _indexes(store, instance)
    alone = conv_key(["player:alice", shared_brenna])
    assert after["key"] == [alone]
    # the character who left took part: the participant index still lists the conversation
    assert after["participants"] == sorted(["player:alice", character, shared_brenna])
    assert {key for _, key in after["rows"]} == {alone}

    shutil.rmtree(store.root / "index")
    ConversationParticipant.objects.all().delete()
    call_command("reindex")
    assert _indexes(store, instance) == after


def test_the_character_who_left_still_lists_the_conversation_over_rest(as_alice, store, alice,
                                                                       character, shared_brenna):
    instance = instance_create(store, owner=alice, character_ids=[character, shared_brenna])
    instance_member_remove(store, user=alice, instance_id=instance, character_id=shared_brenna)
    listed = as_alice("get", f"/api/v1/participants/{shared_brenna}/conversations").json()
    assert instance in [c["instance_id"] for c in listed["conversations"]]
    exact = as_alice("get", f"/api/v1/conversations?participants={character}").json()
    assert [c["instance_id"] for c in exact["conversations"]] == [instance]


def test_a_hand_over_killed_half_way_is_finished_and_loses_no_state(store, alice, character,
                                                                     shared_brenna, monkeypatch):
    instance = instance_create(store, owner=alice, character_ids=[character, shared_brenna])
    store.character_state_write(instance, {"base_persona": "A", "evolved_persona": "Alserqi grown"})
    state = store.instance_state_read(instance)
    member_state_write(store, instance, state, shared_brenna, {
        **member_state_read(store, instance, state, shared_brenna),
        "evolved_persona": "Brenna grown"})

    real_write = store.instance_state_write

    def killed(*args, **kwargs):
        raise OSError("killed")
    monkeypatch.setattr(store, "instance_state_write", killed)
    with pytest.raises(OSError):
        instance_member_remove(store, user=alice, instance_id=instance, character_id=character)
    monkeypatch.setattr(store, "instance_state_write", real_write)
    # the state files moved, the instance file did not: the journal's pending change finishes it
    assert store.instance_state_read(instance)["character_id"] == character

    counts = reindex_all(store)

    assert counts["member_changes_recovered"] == 1
    state = store.instance_state_read(instance)
    assert state["character_id"] == shared_brenna
    assert [p["character_id"] for p in state["participants"]] == [shared_brenna]
    assert store.character_state_read(instance)["evolved_persona"] == "Brenna grown"
    kept = store.instance_dir(instance) / f"character_states/{character}.json"
    assert "Alserqi grown" in kept.read_text(encoding="utf-8")
    assert [r["action"] for r in member_changes_read(store, instance)] == ["remove"]
    assert not (store.memory_dir(instance) / "member_change_pending.json").exists()


def test_the_history_manager_and_rest_show_who_joined_and_left(as_alice, alice_client, store,
                                                               alice, character, shared_brenna):
    instance = instance_create(store, owner=alice, character_id=character)
    instance_member_add(store, user=alice, instance_id=instance, character_id=shared_brenna)
    instance_member_remove(store, user=alice, instance_id=instance, character_id=character)

    page = alice_client.get(f"/instances/{instance}/history/").content.decode()
    assert 'data-testid="member-changes"' in page
    assert "<bdi>Brenna</bdi> joined" in page
    assert "left" in page and "<bdi>Brenna</bdi> became the story" in page

    changes = as_alice("get", f"/api/v1/instances/{instance}/members/changes").json()["changes"]
    assert [(c["action"], c["name"]) for c in changes] == [("remove", "Alserqi"),
                                                          ("add", "Brenna")]


def test_saving_a_member_unchanged_journals_nothing(store, alice, character, shared_brenna):
    instance = instance_create(store, owner=alice, character_ids=[character, shared_brenna])
    instance_member_change(store, user=alice, instance_id=instance, character_id=shared_brenna,
                           muted=False)
    assert member_changes_read(store, instance) == []


def test_moving_a_member_to_the_top_hands_it_the_story_and_each_keeps_its_own_state(
        store, alice, character, shared_brenna):
    instance = instance_create(store, owner=alice, character_id=character)
    instance_member_add(store, user=alice, instance_id=instance, character_id=shared_brenna)
    state = store.instance_state_read(instance)
    member_state_write(store, instance, state, character,
                       {"base_persona": "first", "evolved_persona": "grew as the first"})
    member_state_write(store, instance, state, shared_brenna,
                       {"base_persona": "second", "evolved_persona": "grew as the second"})

    instance_member_move(store, user=alice, instance_id=instance, character_id=shared_brenna,
                         up=True)

    state = store.instance_state_read(instance)
    assert state["character_id"] == shared_brenna
    assert [p["character_id"] for p in state["participants"]] == [shared_brenna, character]
    assert member_state_read(store, instance, state, shared_brenna)["evolved_persona"] == \
        "grew as the second"
    assert member_state_read(store, instance, state, character)["evolved_persona"] == \
        "grew as the first"
    assert Instance.objects.get(instance_id=instance).character_id == shared_brenna

    # and back down: the first place returns with its state
    instance_member_move(store, user=alice, instance_id=instance, character_id=shared_brenna,
                         up=False)
    state = store.instance_state_read(instance)
    assert state["character_id"] == character
    assert member_state_read(store, instance, state, character)["evolved_persona"] == \
        "grew as the first"
    assert member_state_read(store, instance, state, shared_brenna)["evolved_persona"] == \
        "grew as the second"


def test_adding_a_member_twice_is_refused_by_its_name(store, alice, character, shared_brenna):
    instance = instance_create(store, owner=alice, character_id=character)
    instance_member_add(store, user=alice, instance_id=instance, character_id=shared_brenna)
    with pytest.raises(Invalid) as refused:
        instance_member_add(store, user=alice, instance_id=instance, character_id=shared_brenna)
    name = store.character_read(shared_brenna)["name"]
    assert refused.value.message == f"{name} is already a member"
