"""`{{pick}}` in a card, its lore and the author's note is stable within a chat and differs
between chats, as SillyTavern 1.12.6 seeds it by the chat (`pickReplace` in
public/scripts/macros.js: the chat id's hash, the raw text's hash and the macro's place)."""

from __future__ import annotations

import pytest

from chat.play.context import context_load, context_prepare
from chat.services.instances import instance_create
from library.character_services import character_save
from library.lore.services import lorebook_save

pytestmark = pytest.mark.django_db(transaction=True)

# Ten picks of ten: two chats picking alike by chance is one in 10^10.
PICKS = " ".join("{{pick::0::1::2::3::4::5::6::7::8::9}}" for _ in range(10))


def _picked(store, instance: str, marker: str) -> str:
    with store.instance_lock(instance):
        ctx = context_load(store, instance_id=instance, user_text="Where is the ferry?")
    prompt = "\n".join(m["content"] for m in context_prepare(store, ctx, {}).prompt.messages)
    start = prompt.index(marker) + len(marker)
    return prompt[start:start + 20]


def test_a_pick_in_the_card_and_lore_is_the_chats_own(store, alice, background):
    book = lorebook_save(store, user=alice, data={"name": "Ferries", "entries": [
        {"uid": 1, "keys": ["ferry"], "content": f"LORE {PICKS}"}]})
    character = character_save(store, user=alice, character_id=None, data={
        "name": "Pia", "base_persona": f"CARD {PICKS}", "greeting": "", "lorebook_ids": [book]})
    first, second = (instance_create(store, owner=alice, character_id=character,
                                     background_id=background) for _ in range(2))
    for marker in ("CARD ", "LORE "):
        once = _picked(store, first, marker)
        assert _picked(store, first, marker) == once  # stable in its chat
        assert _picked(store, second, marker) != once  # another chat picks afresh
