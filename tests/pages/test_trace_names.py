"""The prompt inspector names what a player knows: the chat's title, the lorebook's name and
the entry's comment (or keys), not `inst_…`, `trc_…` or `lore_…` ids (issue 33 item 4)."""

from __future__ import annotations

import asyncio

import pytest

from chat.play.turn import turn_run
from library.character_services import character_save
from library.lore.services import lorebook_save

pytestmark = pytest.mark.django_db(transaction=True)


async def _emit(event):
    pass


def test_the_inspector_names_the_chat_the_book_and_the_entries(alice_client, store, instance,
                                                               character):
    lorebook_id = lorebook_save(store, data={"name": "Wasteland atlas", "entries": [
        {"uid": 1, "keys": ["vault"], "comment": "The old vault", "content": "Under the mall."},
        {"uid": 2, "keys": ["vault", "bunker"], "content": "Sealed since the war."}]})
    definition = store.character_read(character)
    character_save(store, data={**definition, "lorebook_ids": [lorebook_id]},
                   character_id=character)
    result = asyncio.run(turn_run(store, instance_id=instance, user_text="the vault?",
                                  emit=_emit))
    page = alice_client.get(f"/traces/{result.trace_id}/").content.decode()
    fired = page.split('id="lore-fired"', 1)[1].split("</ul>", 1)[0]
    assert "Wasteland atlas" in fired and "The old vault" in fired and "vault, bunker" in fired
    assert lorebook_id not in fired
    head = page.split('<section class="card">', 2)[1]
    assert "Alserqi" in head
    assert result.trace_id not in page.split("<title>", 1)[1].split("</title>", 1)[0]
    assert result.trace_id not in head.split("</h1>", 1)[0] and f">← {instance}" not in head
    # The session is named as the chat header names it, not by its id.
    assert "conversation 1" in head and "sess_001" not in head
