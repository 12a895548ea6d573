"""A database rebuilt from the files (`migrate && reindex`) offers each owner what it deleted
before the rebuild (library/trash_owners.py), and still nothing to a newcomer given a deleted
account's name."""

from __future__ import annotations

import pytest
from django.test import Client

from chat.models import Instance
from chat.services.index import reindex_all
from library.character_services import character_delete, character_save
from library.models import Background, Character, Lorebook, Persona

pytestmark = pytest.mark.django_db


def _private(store, user, name="Diary"):
    return character_save(store, data={"name": name, "base_persona": "Private words.",
                                       "greeting": ""}, character_id=None, user=user)


def _database_rebuilt(store, django_user_model) -> None:
    for model in (Character, Background, Lorebook, Persona, Instance):
        model.objects.all().delete()
    django_user_model.objects.all().delete()
    reindex_all(store)


def _trash_of(user) -> list[str]:
    client = Client()
    client.force_login(user)
    return [item["id"] for item in client.get("/api/v1/trash").json()["items"]]


def test_a_rebuilt_database_offers_the_owner_what_it_deleted_before(store, alice,
                                                                     django_user_model):
    _private(store, alice, "Kept")
    gone = _private(store, alice)
    character_delete(store, character_id=gone, user=alice)
    _database_rebuilt(store, django_user_model)
    again = django_user_model.objects.get(username="alice")
    assert _trash_of(again) == [gone]
    client = Client()
    client.force_login(again)
    assert client.post(f"/api/v1/characters/{gone}/restore").status_code == 200


def test_an_owner_only_the_trash_names_comes_back_without_a_password(store, bob,
                                                                     django_user_model):
    gone = _private(store, bob)
    character_delete(store, character_id=gone, user=bob)
    _database_rebuilt(store, django_user_model)
    again = django_user_model.objects.get(username="bob")
    assert not again.has_usable_password()
    assert _trash_of(again) == [gone]


def test_a_reindex_still_gives_a_newcomer_of_a_deleted_accounts_name_nothing(
        store, alice, django_user_model):
    gone = _private(store, alice)
    character_delete(store, character_id=gone, user=alice)
    alice.delete()
    newcomer = django_user_model.objects.create_user("alice", password="other-password")
    reindex_all(store)
    newcomer.refresh_from_db()
    assert _trash_of(newcomer) == []
