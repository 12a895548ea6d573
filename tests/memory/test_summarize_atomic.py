"""Attack (fault): kill -9 while summarize runs, then summarize again. Before the fix the dead
attempt left ledger records without the session switch (1,500 of them in the report) and the re-run
wrote the same ids again. Now the records land only with the switch: a dead attempt is finished
or undone by the next one, and no id is ever written twice."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os

import pytest

from memory.summaries.journal import summarize_recover
from memory.summaries.summarize import memory_summarize
from personalab.lib.filestore.store import FileStore
from tests.memory.memory_fakes import (
    INSTANCE,
    TWO_EVENTS,
    FakeIndex,
    FakeLLM,
    make_instance,
    turns_add,
)

SWITCHED = "switched"


def _die_at(store: FileStore, method: str, *, after: bool, nth: int = 1) -> None:
    """Make the process die like kill -9 (no cleanup of any kind) at a store call."""
    original, calls = getattr(store, method), []

    def dying(*args, **kwargs):
        calls.append(1)
        if len(calls) == nth and not after:
            os._exit(9)
        result = original(*args, **kwargs)
        if len(calls) == nth:
            os._exit(9)
        return result

    setattr(store, method, dying)


def _summarize(store: FileStore) -> dict:
    return asyncio.run(memory_summarize(store, instance_id=INSTANCE,
                                        llm=FakeLLM(TWO_EVENTS), index=FakeIndex()))


def _child(root, method: str, after: bool, nth: int) -> None:
    store = FileStore(root)
    _die_at(store, method, after=after, nth=nth)
    _summarize(store)
    os._exit(0)  # not reached when the crash point is hit


def _crash(root, method: str, *, after: bool, nth: int = 1) -> None:
    process = multiprocessing.get_context("fork").Process(target=_child,
                                                          args=(root, method, after, nth))
    process.start()
    process.join(30)
    assert process.exitcode == 9, "the summarize did not reach the crash point"


def _ids(store: FileStore, ledger: str) -> list[str]:
    return [record["id"] for record in store.ledger_read(INSTANCE, ledger)]


def _sessions(store: FileStore) -> list[str]:
    return store.session_ids(INSTANCE)


CRASHES_BEFORE_SWITCH = [("session_create", False), ("session_create", True),
                         ("instance_state_write", False)]
CRASHES_AFTER_SWITCH = [("instance_state_write", True), ("ledger_replace_session", True)]


@pytest.mark.parametrize("method, after", CRASHES_BEFORE_SWITCH)
def test_killed_before_the_switch_leaves_no_ledger_records_and_is_undone(tmp_path, method, after):
    store = make_instance(tmp_path)
    _crash(tmp_path, method, after=after)
    assert _ids(store, "summaries") == [] and _ids(store, "plots") == []
    assert store.instance_state_read(INSTANCE)["current_session_id"] == "sess_001"

    result = _summarize(store)
    assert result["new_session_id"] == "sess_002"
    assert _sessions(store) == ["sess_001", "sess_002"]
    assert _ids(store, "summaries") == ["summary_sess_001_0", "summary_sess_001_1"]
    assert _ids(store, "plots") == ["plot_sess_001_0", "plot_sess_001_1"]
    assert not (store.memory_dir(INSTANCE) / "summarize_pending.json").exists()


@pytest.mark.parametrize("method, after", CRASHES_AFTER_SWITCH)
def test_killed_after_the_switch_is_finished_and_a_rerun_repeats_no_id(tmp_path, method, after):
    store = make_instance(tmp_path)
    _crash(tmp_path, method, after=after)
    assert store.instance_state_read(INSTANCE)["current_session_id"] == "sess_002"

    assert summarize_recover(store, instance_id=INSTANCE) == "finished"
    assert _ids(store, "summaries") == ["summary_sess_001_0", "summary_sess_001_1"]
    assert _ids(store, "plots") == ["plot_sess_001_0", "plot_sess_001_1"]

    turns_add(store, "sess_002", 3)
    _summarize(store)
    summaries = _ids(store, "summaries")
    assert len(summaries) == len(set(summaries)) == 4
    assert len(set(_ids(store, "plots"))) == len(_ids(store, "plots")) == 4


def test_records_left_by_an_unjournaled_attempt_are_replaced_not_repeated(tmp_path):
    store = make_instance(tmp_path)
    # what the old code left after kill -9: records for the still-current session
    orphan = {"id": "summary_sess_001_0", "session_id": "sess_001", "index": 0, "text": "旧的"}
    store.ledger_append(INSTANCE, "summaries", [orphan, {**orphan, "id": "summary_sess_001_7"}])
    with (store.memory_dir(INSTANCE) / "summaries.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("not json, left in the file\n")
    _summarize(store)
    assert _ids(store, "summaries") == ["summary_sess_001_0", "summary_sess_001_1"]
    assert "旧的" not in json.dumps(store.ledger_read(INSTANCE, "summaries"), ensure_ascii=False)
    assert "not json, left in the file" in (store.memory_dir(INSTANCE)
                                            / "summaries.jsonl").read_text(encoding="utf-8")


def test_nothing_pending_means_nothing_to_recover(tmp_path):
    store = make_instance(tmp_path)
    assert summarize_recover(store, instance_id=INSTANCE) is None
    _summarize(store)
    assert summarize_recover(store, instance_id=INSTANCE) is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("method, after", CRASHES_AFTER_SWITCH)
def test_the_next_turn_finishes_a_summarize_killed_after_the_switch(tmp_path, method, after):
    from chat.play.turn import turn_run

    store = make_instance(tmp_path)
    _crash(tmp_path, method, after=after)

    async def emit(event):
        pass

    asyncio.run(turn_run(store, instance_id=INSTANCE, user_text="接着说", emit=emit))
    assert _ids(store, "summaries") == ["summary_sess_001_0", "summary_sess_001_1"]
    assert _ids(store, "plots") == ["plot_sess_001_0", "plot_sess_001_1"]
    assert not (store.memory_dir(INSTANCE) / "summarize_pending.json").exists()
    assert store.session_read(INSTANCE, "sess_002").messages[-1]["role"] == "assistant"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("method, after", CRASHES_AFTER_SWITCH[:1] + CRASHES_BEFORE_SWITCH[-1:])
def test_reindex_finishes_or_undoes_a_summarize_killed_mid_way(tmp_path, settings, method, after):
    from django.core.management import call_command

    store = make_instance(tmp_path)
    _crash(tmp_path, method, after=after)
    settings.PERSONALAB_DATA_DIR = tmp_path
    switched = store.instance_state_read(INSTANCE)["current_session_id"] == "sess_002"

    call_command("reindex")
    assert not (store.memory_dir(INSTANCE) / "summarize_pending.json").exists()
    if switched:
        assert _ids(store, "summaries") == ["summary_sess_001_0", "summary_sess_001_1"]
        assert _ids(store, "plots") == ["plot_sess_001_0", "plot_sess_001_1"]
    else:
        assert _ids(store, "summaries") == [] and _sessions(store) == ["sess_001"]
