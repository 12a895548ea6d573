"""What the chat page keeps up to date without a reload: a group's title after a member change,
the recap due and the title read with the messages after each turn, and whether a memory action
whose request got no answer still runs."""

from __future__ import annotations

import re

import pytest

from chat.services.instances import instance_create
from personalab.lib.filestore.jsonfile import write_json_atomic

pytestmark = pytest.mark.django_db


@pytest.fixture
def brenna(store, alice):
    from library.character_services import character_save

    return character_save(store, user=alice, character_id=None, data={
        "name": "Brenna", "base_persona": "沉默的机械师。", "visibility": "private"})


def _title(html: str) -> tuple[str, bool]:
    match = re.search(r'<h1 id="chat-title" data-testid="chat-title" title="([^"]*)"'
                      r'( hx-swap-oob="true")?>([^<]*)</h1>', html)
    assert match, html[-800:]
    assert match.group(1) == match.group(3)  # the whole name, for a phone's two lines
    return match.group(3), bool(match.group(2))


def test_adding_and_removing_a_member_renames_the_chat_on_the_page(alice_client, store, alice,
                                                                   character, brenna):
    solo = instance_create(store, owner=alice, character_id=character)
    assert _title(alice_client.get(f"/instances/{solo}/").content.decode()) == ("Alserqi", False)
    added = alice_client.post(f"/instances/{solo}/members",
                              {"action": "add", "character_id": brenna}, HTTP_HX_REQUEST="true")
    assert added.status_code == 200
    assert _title(added.content.decode()) == ("Alserqi &amp; Brenna", True)
    removed = alice_client.post(f"/instances/{solo}/members",
                                {"action": "remove", "character_id": brenna},
                                HTTP_HX_REQUEST="true")
    assert _title(removed.content.decode()) == ("Alserqi", True)  # a name, never an id


def test_the_messages_the_page_reads_after_a_turn_say_when_the_next_recap_is_due(
        alice_client, store, instance):
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": True,
                                  "recap_every_n_rounds": 3})
    store.session_append(instance, "sess_001", {"role": "user", "content": "hi", "turn": 4})
    html = alice_client.get(f"/instances/{instance}/messages").content.decode()
    assert 'data-recap-due="Next recap after turn 6 (now at turn 4)."' in html
    assert 'data-title="Alserqi"' in html


def test_the_progress_says_whether_a_memory_action_still_runs(alice_client, data_dir, instance):
    url = f"/instances/{instance}/memory/progress"
    assert alice_client.get(url)["X-Memory-Progress"] == "idle"
    write_json_atomic(data_dir / "instances" / instance / ".memory_progress.json",
                      {"text": "Starting", "at": 0})  # left by a process long gone
    stopped = alice_client.get(url)
    assert stopped["X-Memory-Progress"] == "stopped"
    assert stopped.content.decode().startswith("Stopped")
