"""After a member joins or leaves a conversation, the history page's title and the home page's
chat row name the chat by who is in it on their next load (issue 33 item 2)."""

from __future__ import annotations

import pytest

from chat.services.members import instance_member_add, instance_member_remove
from library.character_services import character_save

pytestmark = pytest.mark.django_db


def _history_title(alice_client, instance) -> str:
    page = alice_client.get(f"/instances/{instance}/history/").content.decode()
    return page.split("<title>", 1)[1].split("</title>", 1)[0]


def _home_row(alice_client, instance) -> str:
    page = alice_client.get("/").content.decode()
    return page.split(f'href="/instances/{instance}/"', 1)[1].split("</a>", 1)[0]


def test_history_title_and_home_row_follow_member_changes(alice_client, store, alice,
                                                          instance):
    mara = character_save(store, data={"name": "Mara", "base_persona": "A medic.",
                                       "visibility": "shared"}, character_id=None, user=alice)
    assert "Alserqi" in _history_title(alice_client, instance)
    instance_member_add(store, user=alice, instance_id=instance, character_id=mara)
    assert "Alserqi &amp; Mara" in _history_title(alice_client, instance)
    assert "Alserqi &amp; Mara" in _home_row(alice_client, instance)
    instance_member_remove(store, user=alice, instance_id=instance, character_id=mara)
    assert "Mara" not in _history_title(alice_client, instance)
    assert "Mara" not in _home_row(alice_client, instance)


def _player_names(page: str) -> list[str]:
    articles = page.split('<article class="msg user')[1:]
    return [a.split('<header class="who"><strong><bdi>', 1)[1].split("</bdi>", 1)[0]
            for a in articles]


def test_player_lines_keep_the_name_they_were_said_under(alice_client, store, instance):
    """A line stored without a name (the demo's, lines from before names were kept) is said by
    the persona of the next named line, not the one chosen since (docs/chat-page.md)."""
    for number, name in enumerate(["", "", "Kai", "Mara"], start=1):
        store.session_append(instance, "sess_001", {
            "role": "user", "content": f"line {number}", "turn": number,
            **({"name": name} if name else {})})
    chat = alice_client.get(f"/instances/{instance}/").content.decode()
    assert _player_names(chat) == ["Kai", "Kai", "Kai", "Mara"]
    history = alice_client.get(f"/instances/{instance}/history/").content.decode()
    assert [history.count(f">{name}</bdi>") for name in ("Kai", "Mara")] == [3, 1]
