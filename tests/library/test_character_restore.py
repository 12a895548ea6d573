"""Restore of a deleted item (library/trash.py) by an account of the owner's name: only the
account that deleted it, never a newcomer given that name since."""

from __future__ import annotations

import pytest
from django.test import Client

from library.background_services import background_delete, background_save
from library.character_services import character_delete, character_save
from library.models import Character

pytestmark = pytest.mark.django_db


def _private(store, user, name="Diary"):
    return character_save(store, data={"name": name, "base_persona": "Private words.",
                                       "greeting": ""}, character_id=None, user=user)


def test_a_new_account_given_a_deleted_accounts_name_cannot_restore_its_characters(
        store, alice, django_user_model):
    # The trash keeps files by username; an account that owns nothing may be deleted (or
    # renamed) and its name given again: restore handed the newcomer the old one's text.
    kept = _private(store, alice)
    character_delete(store, character_id=kept, user=alice)
    alice.delete()
    newcomer = django_user_model.objects.create_user("alice", password="other-password")
    client = Client()
    client.force_login(newcomer)
    offer = client.get(f"/library/?deleted={kept}&kind=character").content.decode()
    assert f"/library/characters/{kept}/restore" not in offer
    assert kept not in client.get("/library/trash/").content.decode()
    assert client.get("/api/v1/trash").json()["items"] == []
    assert client.post(f"/library/characters/{kept}/restore").status_code == 404
    assert client.post(f"/api/v1/characters/{kept}/restore").status_code == 404
    assert kept not in store.character_ids() and not Character.objects.filter(pk=kept).exists()


def test_the_owner_is_still_offered_what_they_deleted(store, alice):
    kept = _private(store, alice)
    character_delete(store, character_id=kept, user=alice)
    client = Client()
    client.force_login(alice)
    offer = client.get(f"/library/?deleted={kept}&kind=character").content.decode()
    assert f"/library/characters/{kept}/restore" in offer
    assert client.post(f"/api/v1/characters/{kept}/restore").status_code == 200
    assert Character.objects.filter(pk=kept).exists()


def test_the_restore_form_needs_its_csrf_token(store, alice):
    kept = _private(store, alice)
    character_delete(store, character_id=kept, user=alice)
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(f"/library/characters/{kept}/restore").status_code == 403
    assert kept not in store.character_ids()


@pytest.mark.parametrize("kind", ["characters", "backgrounds"])
def test_deleting_a_deleted_id_answers_as_an_id_never_used(store, alice, bob, kind):
    # Its folder stays, empty: the delete read its missing file first, and anyone's POST got
    # "… is missing: data/characters/char_diary/definition.json" instead of the 404 of an id
    # never used, which told that a character of that name had been made and deleted.
    if kind == "characters":
        gone = _private(store, alice)
        character_delete(store, character_id=gone, user=alice)
    else:
        gone = background_save(store, data={"name": "Diary", "world_setting": ""}, user=alice)
        background_delete(store, background_id=gone, user=alice)
    client = Client()
    client.force_login(bob)
    assert client.post(f"/library/{kind}/{gone}/delete").status_code == 404
    assert client.post(f"/library/{kind}/never_made/delete").status_code == 404
