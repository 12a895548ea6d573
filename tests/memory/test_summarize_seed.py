"""What a summarize seeds the new session with: the newest summary lines a prompt could send,
not every summary since the chat began (each later turn read them all: findings long-chat F7).
The older ones stay in the earlier sessions' files, the ledger and the memory index."""

from __future__ import annotations

import json

from memory.summaries.summarize import memory_summarize, summary_seed_room
from personalab.lib.tokens import count_tokens
from tests.memory.memory_fakes import INSTANCE, FakeIndex, FakeLLM, make_instance, turns_add

EVENTS_EACH = 30
PROMPT_TOKENS = 400


def events(cycle: int) -> str:
    return json.dumps({"events": [
        {"summary": f"第{cycle}次汇总，第{n}件事：Alserqi 在北区的第{n}个据点找到了背叛者留下的记号。",
         "plot": f"细节{cycle}-{n}"} for n in range(EVENTS_EACH)]}, ensure_ascii=False)


def summary_texts(store, session_id: str) -> list[str]:
    return [line["content"] for line in store.session_read(INSTANCE, session_id).summaries]


async def test_summarizes_seed_only_the_summary_lines_a_prompt_could_send_and_lose_none(tmp_path):
    store = make_instance(tmp_path)
    index = FakeIndex()
    seeded_counts, first_events, events_total = [], 0, 0
    for cycle in range(4):
        result = await memory_summarize(store, instance_id=INSTANCE, llm=FakeLLM(events(cycle)),
                                        index=index, prompt_tokens=PROMPT_TOKENS)
        every = [record["text"] for record in store.ledger_read(INSTANCE, "summaries")]
        first_events = first_events or len(every)
        events_total += result["events"]
        assert len(every) == events_total  # the ledger holds every summary
        seeded = summary_texts(store, result["new_session_id"])
        seeded_counts.append(len(seeded))
        assert seeded == every[len(every) - len(seeded):]  # the newest, in their order
        assert sum(count_tokens(text) + 2 for text in seeded) <= PROMPT_TOKENS
        for turn in range(10, 13):
            turns_add(store, result["new_session_id"], turn + 10 * cycle)

    assert 0 < seeded_counts[0] < first_events
    assert seeded_counts[1:] == [seeded_counts[0]] * 3  # not growing with the summarizes
    assert [e["summary"] for call in index.calls for e in call["events"]] == every
    # Each summarized session keeps the summary lines it was seeded with.
    assert summary_texts(store, "sess_002") == every[:first_events][-seeded_counts[0]:]


def test_the_seed_room_is_the_prompt_room_under_the_prompt_ceiling():
    config = {"limits": {"max_total_tokens": 12_000}}
    assert summary_seed_room(config, 3_072) == 3_072
    assert summary_seed_room(config, 15_360) == 12_000
    assert summary_seed_room(config, None) == 12_000
    assert summary_seed_room({}, None) == 100_000
