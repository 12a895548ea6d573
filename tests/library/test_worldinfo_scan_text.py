"""What world info scans, as SillyTavern scans it: each message under its speaker's name
(`world_info_include_names`, on by default), keys with their macros filled in, and an entry's
text feeding recursion with its macros filled in and its comments gone."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from tests.library.lore_turns import lore_fired_dropped, lore_turn_run, lorebook_link

pytestmark = pytest.mark.django_db(transaction=True)


def _sent(stub) -> str:
    return "\n".join(m["content"] for m in stub.requests[-1]["messages"])


async def test_an_entry_keyed_on_the_characters_name_fires_when_the_character_has_spoken(
        store, instance, character, use_stub):
    await sync_to_async(lorebook_link)(store, character,
                                       {"uid": 1, "keys": ["Alserqi"], "content": "L_CHARNAME"})
    await lore_turn_run(store, instance, "hello there")
    result = await lore_turn_run(store, instance, "how are you today?")
    assert "L_CHARNAME" in _sent(use_stub)
    fired, _ = lore_fired_dropped(store, instance, result)
    assert "Alserqi" in fired[1]


async def test_names_are_left_out_of_the_scan_when_the_setting_is_off(
        store, instance, character, use_stub):
    store.module_write("prompt", {**store.module_read("prompt"),
                                  "world_info_include_names": False})
    await sync_to_async(lorebook_link)(store, character,
                                       {"uid": 1, "keys": ["Alserqi"], "content": "L_CHARNAME"})
    await lore_turn_run(store, instance, "hello there")
    await lore_turn_run(store, instance, "how are you today?")
    assert "L_CHARNAME" not in _sent(use_stub)


async def test_a_key_with_a_macro_matches_what_the_macro_stands_for(
        store, instance, character, use_stub):
    await sync_to_async(lorebook_link)(
        store, character,
        {"uid": 1, "keys": ["{{char}}"], "content": "K_NAMEKEY"},
        {"uid": 2, "keys": ["gate"], "secondary_keys": ["ring of {{char}}"],
         "selective": True, "content": "K_SECONDARY"})
    await lore_turn_run(store, instance, "Alserqi, I found the gate and the ring of Alserqi.")
    sent = _sent(use_stub)
    assert "K_NAMEKEY" in sent and "K_SECONDARY" in sent


async def test_an_entrys_text_feeds_recursion_with_its_macros_filled_and_comments_gone(
        store, instance, character, use_stub):
    await sync_to_async(lorebook_link)(
        store, character,
        {"uid": 1, "keys": ["mirror"], "content": "L_MIRROR shows {{char}} at the gate."},
        {"uid": 2, "keys": ["Alserqi"], "content": "L_RECURSED_VIA_MACRO"},
        {"uid": 3, "keys": ["candle"], "content": "{{// onyx }}L_CANDLE"},
        {"uid": 4, "keys": ["onyx"], "content": "L_FALSE_RECURSION"})
    result = await lore_turn_run(store, instance, "I look into the mirror by the candle.")
    sent = _sent(use_stub)
    assert "L_RECURSED_VIA_MACRO" in sent and "L_CANDLE" in sent
    assert "L_FALSE_RECURSION" not in sent
    fired, _ = lore_fired_dropped(store, instance, result)
    assert "entry lore:" in fired[2]
