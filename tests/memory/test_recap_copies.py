"""A summarize copies the last turns into its new session; the rolling recaps read each of the
chat's turns once: a copy a recap of the old session covers is not recapped again, a copy none
covers (a summarize between two rolls) is recapped in the new session."""

from __future__ import annotations

from collections import Counter

import pytest

from memory.summaries.recaps import recap_items, recap_maybe_roll, recap_rebuild
from memory.summaries.summarize import memory_summarize
from tests.memory.memory_fakes import (
    INSTANCE,
    TWO_EVENTS,
    FakeIndex,
    FakeLLM,
    config_with,
    make_instance,
    recap_llm,
    recap_settings,
    turns_add,
)


def _said(llm: FakeLLM) -> Counter:
    """How many recaps read each line (by its words and time: a copy's are its original's)."""
    return Counter((line["content"], line["timestamp"]) for _, context in llm.calls
                   for line in context["transcript"])


def _new_turn(store, turn: int) -> None:
    store.session_append(INSTANCE, "sess_002", {
        "role": "user", "content": f"新用户第{turn}句", "turn": turn,
        "timestamp": f"2025-10-17T10:{turn:02d}:00Z"})
    store.session_append(INSTANCE, "sess_002", {
        "role": "assistant", "content": f"新角色第{turn}句", "turn": turn,
        "timestamp": f"2025-10-17T10:{turn:02d}:05Z"})


async def _played(tmp_path, *, old_turns: int, last_n: int, order: str):
    """`old_turns` turns rolled every 2 (stacked every 4), a summarize copying `last_n` of them,
    then the new session played to turn 8."""
    store = make_instance(tmp_path, turns=0, config=config_with(last_n, order))
    llm = recap_llm()
    for turn in range(1, old_turns + 1):
        turns_add(store, "sess_001", turn)
        await recap_maybe_roll(store, instance_id=INSTANCE, llm=llm, settings=recap_settings(0))
    await memory_summarize(store, instance_id=INSTANCE, llm=FakeLLM(TWO_EVENTS),
                           index=FakeIndex())
    for turn in range(last_n + 1, 9):
        _new_turn(store, turn)
        await recap_maybe_roll(store, instance_id=INSTANCE, llm=llm, settings=recap_settings(0))
    return store, llm


@pytest.mark.parametrize("order", ["summary_first", "last_n_first"])
@pytest.mark.parametrize(("old_turns", "last_n"), [(8, 3), (9, 4)])
async def test_every_turn_is_recapped_once_across_a_summarize(tmp_path, old_turns, last_n,
                                                               order):
    """(8, 3): the copies of turns 6–8 were recapped in the old session, and the new session's
    first roll (its turns 3–4) read turn 8 again. (9, 4): turn 9 was copied before a roll
    reached it, and no roll of the new session (5–6, 7–8) read it."""
    _store, llm = await _played(tmp_path, old_turns=old_turns, last_n=last_n, order=order)
    said = _said(llm)
    old = {(f"{who}第{turn}句", f"2025-10-16T10:{turn:02d}:{second}Z")
           for turn in range(1, old_turns + 1)
           for who, second in (("用户", "00"), ("角色", "05"))}
    new = {(f"新{who}第{turn}句", f"2025-10-17T10:{turn:02d}:{second}Z")
           for turn in range(last_n + 1, 9) for who, second in (("用户", "00"), ("角色", "05"))}
    assert set(said) == old | new
    assert set(said.values()) == {1}


async def test_a_rebuild_of_the_new_session_leaves_out_the_copies_recapped_before(tmp_path):
    store, _ = await _played(tmp_path, old_turns=9, last_n=4, order="summary_first")
    llm = recap_llm()
    result = await recap_rebuild(store, instance_id=INSTANCE, llm=llm,
                                 settings=recap_settings(0))
    said = {content for content, _ in _said(llm)}
    # Copies 1–3 are the old session's turns 6–8 (its recap 5–8 kept); copy 4 is turn 9.
    assert not said & {f"{who}第{turn}句" for turn in (6, 7, 8) for who in ("用户", "角色")}
    assert {"用户第9句", "角色第9句"} <= said
    assert result["chunks"] == 3  # turns 3–4 (copy 4 only), 5–6, 7–8
    old_items = [item for item in recap_items(store, instance_id=INSTANCE)
                 if item["session_id"] == "sess_001"]
    assert [(item["from_turn"], item["to_turn"]) for item in old_items] == [(1, 4), (5, 8)]


def test_the_rebuilds_runs_of_turns_are_found_in_one_pass_over_a_long_chat():
    """A rebuild of a 50,000-turn chat (an imported file may hold 100,000 lines) filtered every
    turn once per run of five, on the server's event loop: 103 s during which no other
    account's request was answered. The runs are the same, found in a few milliseconds."""
    import time

    from memory.summaries.recaps import recap_chunks

    groups = {turn: [] for turn in range(0, 23)}
    assert recap_chunks(groups, covered={2, 6, 7, 8, 9, 10}, every=5) == [
        (5, [1, 3, 4, 5]), (15, [11, 12, 13, 14, 15]), (20, [16, 17, 18, 19, 20])]
    assert recap_chunks({}, covered=set(), every=5) == []
    long_chat = {turn: [] for turn in range(1, 50_001)}
    started = time.perf_counter()
    runs = recap_chunks(long_chat, covered=set(), every=5)
    assert time.perf_counter() - started < 2
    assert len(runs) == 10_000 and runs[-1] == (50_000, list(range(49_996, 50_001)))
