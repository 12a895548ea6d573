"""The pinned prompt's refusals name the character a player knows, never its id (issue 33)."""

from __future__ import annotations

import pytest

from library.character_services import character_save

pytestmark = pytest.mark.django_db


def test_a_non_member_override_is_refused_by_the_characters_name(as_alice, store, alice,
                                                                 instance):
    other = character_save(store, data={"name": "Seraphina", "base_persona": "A guardian.",
                                        "visibility": "shared"}, character_id=None, user=alice)
    response = as_alice("put", f"/api/v1/instances/{instance}/pinned",
                        {"character_id": other, "text": "never lie"})
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "Seraphina" in message and other not in message
    assert response.json()["error"]["fields"] == {"character_id": "not a member"}
