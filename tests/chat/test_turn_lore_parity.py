"""A turn's lore as SillyTavern 1.12.6 scans it: the world-info budget (`checkWorldInfo`: its
percentage of `getMaxContextSize()`, the context less the reply's tokens, rounded half up, then
no more than `world_info_budget_cap` when that is set), and the messages as stored there (a
player's macros filled in by `sendMessageAsUser`)."""

from __future__ import annotations

import pytest

from chat.play.context import context_load, context_prepare
from chat.play.lore import WORLD_INFO_BUDGET_PERCENT, lore_for_turn
from chat.prompt.window import ContextWindow
from library.character_services import character_save
from library.lore.services import lorebook_save
from personalab.lib.tokens import count_tokens

pytestmark = pytest.mark.django_db(transaction=True)

LORE = "The ferry leaves at dawn."
COST = count_tokens(f"{LORE}\n")  # what each entry is charged, its newline included


def _lore(store, user, character, instance, window: ContextWindow) -> dict:
    book = lorebook_save(store, user=user, data={"name": "Ferries", "entries": [
        {"uid": uid, "keys": ["ferry"], "priority": 100 - uid, "content": LORE}
        for uid in (1, 2)]})
    character_save(store, data={**store.character_read(character), "lorebook_ids": [book]},
                   character_id=character, user=user)
    with store.instance_lock(instance):
        ctx = context_load(store, instance_id=instance, user_text="When does the ferry go?")
    return lore_for_turn(store, ctx, window)


def test_the_budget_is_a_share_of_the_window_less_the_reply(store, alice, character, instance):
    # A quarter of the whole window holds both entries; a quarter of what the prompt may fill
    # (the window less the reply, as SillyTavern's getMaxContextSize) holds one.
    whole = (2 * COST + 1) * 100 // WORLD_INFO_BUDGET_PERCENT
    room = (COST + 1) * 100 // WORLD_INFO_BUDGET_PERCENT
    lore = _lore(store, alice, character, instance,
                 ContextWindow(tokens=whole, reply=whole - room, source="setting"))
    assert [entry["uid"] for entry in lore["fired"]] == [1]
    assert "over the world-info budget" in lore["dropped"][0]["reason"]
    assert f"≥ {COST + 1} tokens" in lore["dropped"][0]["reason"]


def test_the_budget_cap_lowers_a_larger_budget(store, alice, character, instance):
    store.module_write("prompt", {**store.module_read("prompt"),
                                  "world_info_budget_cap": COST + 1})
    lore = _lore(store, alice, character, instance,
                 ContextWindow(tokens=100_000, reply=1_000, source="setting"))
    assert [entry["uid"] for entry in lore["fired"]] == [1]
    assert f"≥ {COST + 1} tokens" in lore["dropped"][0]["reason"]


def test_the_scan_reads_a_players_macros_filled_in(store, alice, character, instance):
    # SillyTavern stores "I wave at {{char}}" as "I wave at Alserqi" and scans that.
    book = lorebook_save(store, user=alice, data={"name": "Greetings", "entries": [
        {"uid": 1, "keys": ["wave at Alserqi"], "content": "He waves back."}]})
    character_save(store, data={**store.character_read(character), "lorebook_ids": [book]},
                   character_id=character, user=alice)
    with store.instance_lock(instance):
        ctx = context_load(store, instance_id=instance, user_text="I wave at {{char}}.")
    lore = lore_for_turn(store, ctx, ContextWindow(tokens=16_384, reply=1_024, source="setting"))
    assert [entry["uid"] for entry in lore["fired"]] == [1]
    assert "message -1" in lore["fired"][0]["reason"]


def test_a_lore_roll_is_the_same_in_the_scan_and_the_prompt(store, alice, character, instance):
    # SillyTavern fills an entry's macros once: the text recursion scans is the text it sends.
    book = lorebook_save(store, user=alice, data={"name": "Armoury", "recursive": True,
                                                  "entries": [
        {"uid": 1, "keys": ["wall"], "content": "A {{random::sword::axe}} hangs on the wall."},
        {"uid": 2, "keys": ["sword"], "content": "SWORD LORE"},
        {"uid": 3, "keys": ["axe"], "content": "AXE LORE"}]})
    character_save(store, data={**store.character_read(character), "lorebook_ids": [book]},
                   character_id=character, user=alice)
    seen = set()
    for _ in range(12):
        with store.instance_lock(instance):
            ctx = context_load(store, instance_id=instance, user_text="What is on the wall?")
        prompt = "\n".join(m["content"] for m in
                           context_prepare(store, ctx, {}).prompt.messages)
        hung = "sword" if "A sword hangs" in prompt else "axe"
        assert f"{hung.upper()} LORE" in prompt
        assert f"{({'sword', 'axe'} - {hung}).pop().upper()} LORE" not in prompt
        seen.add(hung)
    assert seen == {"sword", "axe"}  # and each generation rolls afresh
