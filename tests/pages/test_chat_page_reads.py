"""The chat page reads each member's character file once per load: the picture, the names, the
macros and the withheld notice share one read (and a new load reads the file again)."""

from __future__ import annotations

from collections import Counter

import pytest

from chat.services.instances import instance_create
from personalab.lib.filestore.store import FileStore


@pytest.fixture
def brenna(store, alice):
    from library.character_services import character_save

    return character_save(store, user=alice, character_id=None, data={
        "name": "Brenna", "base_persona": "沉默的机械师。", "visibility": "private"})


@pytest.fixture
def reads(monkeypatch):
    counted: Counter[str] = Counter()
    real = FileStore.character_read

    def character_read(self, character_id, *args, **kwargs):
        counted[character_id] += 1
        return real(self, character_id, *args, **kwargs)

    monkeypatch.setattr(FileStore, "character_read", character_read)
    return counted


def test_the_chat_page_reads_each_members_file_once_per_load(
        alice_client, store, alice, character, brenna, reads):
    group = instance_create(store, owner=alice, character_ids=[character, brenna])
    reads.clear()
    page = alice_client.get(f"/instances/{group}/")
    assert page.status_code == 200
    assert "Brenna" in page.content.decode() and "Alserqi" in page.content.decode()
    assert reads == {character: 1, brenna: 1}


def test_a_second_load_reads_the_file_again_and_shows_the_change(
        alice_client, store, alice, character, reads):
    solo = instance_create(store, owner=alice, character_id=character)
    alice_client.get(f"/instances/{solo}/")
    store.character_write(character, {**store.character_read(character), "name": "Alsa"})
    reads.clear()
    page = alice_client.get(f"/instances/{solo}/").content.decode()
    assert "Alsa" in page
    assert reads == {character: 1}
