"""World info through real turns: the stub server records what the model received."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from tests.library.lore_turns import lore_turn_run, lorebook_link

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_long_entry_fires_on_turn_one_when_the_card_sets_no_budget(
        store, instance, character, use_stub):
    long_text = "The vault lies under the old mall. " * 150  # about 1,200 tokens
    await sync_to_async(lorebook_link)(store, character,
                                       {"uid": 1, "keys": ["vault"], "content": long_text})
    await lore_turn_run(store, instance, "where is the vault?")
    system = use_stub.requests[-1]["messages"][0]["content"]
    assert long_text.strip() in system


async def test_lore_order_probability_and_authors_note_positions_reach_the_model(
        store, instance, character, use_stub):
    store.memory_json_write(instance, "authors_note", {"text": "NOTE", "depth": 1})
    await sync_to_async(lorebook_link)(store, character,
          {"uid": 1, "keys": ["storm"], "priority": 200, "content": "LATE-200"},
          {"uid": 2, "keys": ["storm"], "priority": 5, "content": "EARLY-5"},
          {"uid": 3, "keys": ["storm"], "probability": 0, "content": "NEVER"},
          {"uid": 4, "keys": ["storm"], "position": "an_top", "content": "AN-TOP"},
          {"uid": 5, "keys": ["storm"], "position": "an_bottom", "content": "AN-BOTTOM"})
    result = await lore_turn_run(store, instance, "a storm comes")
    sent = use_stub.requests[-1]["messages"]
    system = sent[0]["content"]
    assert system.index("EARLY-5") < system.index("LATE-200")
    assert "NEVER" not in "".join(m["content"] for m in sent)
    assert any("AN-TOP\nNOTE\nAN-BOTTOM" in m["content"] for m in sent)
    trace = store.trace_read(instance, result.trace_id)
    never = next(d for d in trace["lore"]["dropped"] if d["uid"] == 3)
    assert "probability 0%: rolled" in never["reason"]


async def test_lore_at_the_authors_note_goes_only_on_the_turns_the_note_is_sent(
        store, instance, character, use_stub):
    store.memory_json_write(instance, "authors_note", {"text": "", "depth": 2, "frequency": 2})
    await sync_to_async(lorebook_link)(store, character,
          {"uid": 4, "keys": ["storm"], "position": "an_top", "content": "AN-TOP"})
    first = await lore_turn_run(store, instance, "a storm comes")
    assert "AN-TOP" not in "".join(m["content"] for m in use_stub.requests[-1]["messages"])
    held = store.trace_read(instance, first.trace_id)["lore"]["dropped"]
    assert "placed at the author's note, which is not sent this turn" in held[0]["reason"]
    await lore_turn_run(store, instance, "the storm grows")
    # The note is due (every 2nd turn): empty, it still carries its lore at its depth.
    assert any(m["content"] == "AN-TOP" for m in use_stub.requests[-1]["messages"])


async def test_delay_counts_the_chats_messages_not_its_turns(store, instance, character, use_stub):
    # Delay 4: the third turn's prompt is built on 5 messages (two turns and the new line).
    await sync_to_async(lorebook_link)(store, character, {"uid": 1, "constant": True, "delay": 4,
                                                          "content": "DELAYED-LORE"})
    for text in ("one", "two", "three"):
        await lore_turn_run(store, instance, text)
    prompts = ["".join(m["content"] for m in r["messages"]) for r in use_stub.requests[-3:]]
    assert ["DELAYED-LORE" in p for p in prompts] == [False, False, True]


async def test_sticky_entry_stays_for_its_messages_in_a_file_kept_state(
        store, instance, character, use_stub):
    # Sticky 3 from the chat's first message: the second turn (3 messages) keeps it, the third
    # (5 messages) does not, as SillyTavern counts (a turn adds the player's line and a reply).
    await sync_to_async(lorebook_link)(store, character, {"uid": 1, "keys": ["dragon"],
                                                          "sticky": 3, "content": "DRAGON-LORE"})
    await lore_turn_run(store, instance, "a dragon!")
    await lore_turn_run(store, instance, "we hide")
    await lore_turn_run(store, instance, "silence")
    prompts = ["".join(m["content"] for m in r["messages"]) for r in use_stub.requests[-3:]]
    assert ["DRAGON-LORE" in p for p in prompts] == [True, True, False]
    assert store.memory_json_read(instance, "worldinfo_timed", {})
