"""Rolling recaps lose no turn: the turns of a roll the model failed, or that a kill cut short,
are recapped by the next roll (before, each roll read only its own `every` turns, so they were
never recapped), and the player is told, in their language, when a recap failed."""

from __future__ import annotations

from memory.summaries.recaps import recap_items, recap_pending
from personalab.lib.llm import LLMError
from tests.memory.memory_fakes import (
    INSTANCE,
    FakeLLM,
    make_instance,
    recap_llm,
    recap_settings,
    roll_through,
    turns_add,
)


def _covered(store) -> list[int]:
    entries = [*recap_items(store, instance_id=INSTANCE),
               *recap_pending(store, instance_id=INSTANCE)]
    return sorted(turn for entry in entries
                  for turn in range(entry["from_turn"], entry["to_turn"] + 1))


async def test_the_turns_of_a_failed_roll_are_recapped_by_the_next_one(tmp_path):
    store = make_instance(tmp_path, turns=0)
    llm = FakeLLM(LLMError("upstream timed out"), recap_llm().script[0])
    done = await roll_through(store, llm, recap_settings(0), range(1, 9))
    assert done[1]["action"] == "failed" and "upstream timed out" in done[1]["message"]
    assert [(i["text"], i["from_turn"], i["to_turn"])
            for i in recap_items(store, instance_id=INSTANCE)] == [
        ("回顾1-4", 1, 4), ("回顾5-6\n回顾7-8", 5, 8)]
    assert _covered(store) == list(range(1, 9))


async def test_turns_played_while_no_roll_ran_are_recapped_by_the_next_one(tmp_path):
    """A server killed (kill -9) between a turn and its roll: the roll never happened."""
    store = make_instance(tmp_path, turns=0)
    for turn in (1, 2):
        turns_add(store, "sess_001", turn)
    done = await roll_through(store, recap_llm(), recap_settings(0), range(3, 5))
    assert done[-1]["action"] == "stacked"
    assert _covered(store) == [1, 2, 3, 4]


async def test_a_long_gap_is_caught_up_only_a_few_rolls_back(tmp_path):
    store = make_instance(tmp_path, turns=0)
    for turn in range(1, 40):
        turns_add(store, "sess_001", turn)
    await roll_through(store, recap_llm(), recap_settings(0), range(40, 41))
    assert _covered(store) == list(range(33, 41))
