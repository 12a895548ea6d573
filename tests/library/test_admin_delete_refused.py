"""The admin's deletes agree with the files: an item refused because a chat uses it is said to
be kept, never "deleted successfully"; what was deleted is counted."""

from __future__ import annotations

import pytest

from chat.services.instances import instance_create
from library.character_services import character_save

pytestmark = pytest.mark.django_db(transaction=True)


def _said(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


@pytest.fixture
def staff_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("boss", password="pw-123456"))
    return client


def test_a_character_in_use_is_not_reported_deleted(staff_client, store, alice, character):
    instance_create(store, owner=alice, character_id=character)
    response = staff_client.post(f"/admin/library/character/{character}/delete/",
                                 {"post": "yes"}, follow=True)
    said = _said(response)
    assert any("is used by these chats" in text for text in said), said
    assert not any("deleted successfully" in text for text in said), said
    assert character in store.character_ids()


def test_delete_selected_counts_only_what_was_deleted(staff_client, store, alice, character):
    instance_create(store, owner=alice, character_id=character)
    unused = character_save(store, data={"name": "Idle", "base_persona": "Unused."},
                            character_id=None, user=alice)
    response = staff_client.post("/admin/library/character/", {
        "action": "delete_selected", "_selected_action": [character, unused], "post": "yes"},
        follow=True)
    said = _said(response)
    assert "Deleted 1; the one refused above was kept." in said, said
    assert not any(text.startswith("Successfully deleted") for text in said), said
    assert character in store.character_ids() and unused not in store.character_ids()
    response = staff_client.post("/admin/library/character/", {
        "action": "delete_selected", "_selected_action": [character], "post": "yes"},
        follow=True)
    said = _said(response)
    assert len(said) == 1 and "is used by these chats" in said[0], said
