"""Attack (fault): kill -9 while an update-memory writes the evolved persona. Its two writes
(the character's state, the versions ledger) were made ledger first: a kill between them left
a version in the history that was never in effect (the prompt still used the old persona), and
the next update recorded the old one again after it. Now the persona is written first: a kill
between them leaves the new persona in effect and unrecorded, and the next change records it
before its own, so no version is lost or out of order."""

from __future__ import annotations

import asyncio
import multiprocessing
import os

import memory.character.evolved_persona as evolved_persona
from memory.character.evolved_persona import evolved_persona_read, memory_update_persona
from personalab.lib.filestore.store import FileStore
from tests.memory.memory_fakes import INSTANCE, FakeLLM, make_instance


def _update(store: FileStore, text: str) -> None:
    asyncio.run(memory_update_persona(store, instance_id=INSTANCE, llm=FakeLLM(text)))


def _child(root) -> None:
    """An update that dies like kill -9 (no cleanup) just before the second of its two writes."""
    store = FileStore(root)
    writes = []

    def dying(write):
        def call(*args, **kwargs):
            writes.append(1)
            if len(writes) == 2:
                os._exit(9)
            return write(*args, **kwargs)
        return call

    store.ledger_append = dying(store.ledger_append)
    evolved_persona.member_state_write = dying(evolved_persona.member_state_write)
    _update(store, "愿意为玩家冒险。")
    os._exit(0)  # not reached when the crash point is hit


def test_a_kill_between_the_persona_and_its_record_loses_nothing(tmp_path):
    store = make_instance(tmp_path, evolved="经历背叛后变得多疑。")
    _update(store, "开始愿意信任玩家。")
    process = multiprocessing.get_context("fork").Process(target=_child, args=(tmp_path,))
    process.start()
    process.join(30)
    assert process.exitcode == 9, "the update did not reach the crash point"

    read = evolved_persona_read(store, instance_id=INSTANCE)
    recorded = [v["evolved_persona"] for v in read["versions"]]
    # Every recorded version was in effect: the history never names a persona the prompt
    # did not use.
    assert recorded[-1] in (read["evolved_persona"], "开始愿意信任玩家。")
    assert recorded == ["经历背叛后变得多疑。", "开始愿意信任玩家。"]
    assert read["evolved_persona"] == "愿意为玩家冒险。"

    _update(store, "把玩家当成家人。")
    versions = evolved_persona_read(store, instance_id=INSTANCE)["versions"]
    assert [(v["version"], v["evolved_persona"]) for v in versions] == [
        (1, "经历背叛后变得多疑。"), (2, "开始愿意信任玩家。"), (3, "愿意为玩家冒险。"),
        (4, "把玩家当成家人。")]
