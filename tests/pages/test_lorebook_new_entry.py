"""The lorebook editor's new-entry form has SillyTavern's secondary keys and their logic, as
an entry's own form does: a new entry is made with them in one save."""

from __future__ import annotations

import pytest

from library.lore.services import lorebook_save

pytestmark = pytest.mark.django_db


def test_a_new_entry_is_made_with_its_secondary_keys_and_logic(alice_client, alice, store):
    book = lorebook_save(store, data={"name": "Harbour", "entries": []}, user=alice)
    url = f"/library/lorebooks/{book}/"
    page = alice_client.get(url).content.decode()
    assert 'name="new_secondary_keys"' in page and 'name="new_selective_logic"' in page
    saved = alice_client.post(url, {
        "name": "Harbour", "new_keys": "harbour", "new_content": "The harbour is old.",
        "new_enabled": "on", "new_secondary_keys": "night\r\nfog",
        "new_selective_logic": "not_any", "new_position": "before_char", "new_priority": "100",
        "new_depth": "4", "new_role": "system"})
    assert saved.status_code == 302
    (entry,) = store.lorebook_read(book)["entries"]
    assert entry["keys"] == ["harbour"] and entry["secondary_keys"] == ["night", "fog"]
    assert entry["selective_logic"] == "not_any"
