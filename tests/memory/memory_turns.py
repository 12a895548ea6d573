"""Turns of a chat with memory on, run through the real turn code as the recall tests drive them
(the stub server answers), and what was recalled: from a turn's trace, or from a search of the
player's history."""

from __future__ import annotations

import asyncio
import json

from chat.play.turn import TurnResult, turn_run
from memory import runtime
from memory.recall.rag import query_user_history
from tests.group_turns import turn_said
from tests.stub_llm import Reply


async def memory_turn_run(store, instance_id: str, text: str) -> tuple[TurnResult, list[dict]]:
    """One turn of `text`: its result and the events it emitted."""
    events = []

    async def emit(event):
        events.append(event)

    result = await turn_run(store, instance_id=instance_id, user_text=text, emit=emit)
    return result, events


def scripted_turn_run(store, instance_id: str, text: str, *, speaker: str | None = None,
                      reply: str = "记下了。", stub):
    """One turn of `text` (the conversation's round, `speaker` answering), the stub answering
    `reply`, the memory work it queued done: the first answer's result."""
    stub.script(Reply(reply))
    results = asyncio.run(turn_said(store, instance_id, text, speaker=speaker))
    runtime.drain()
    return results[0]


def window_newest_keep(store, messages: int) -> None:
    """The prompt shows only the newest `messages`: recall brings back what it does not show
    (a line the conversation shows is never recalled)."""
    config = store.config_read()
    config["preferences"]["conversation_load_all"] = False
    store.config_write(config)
    store.module_write("history", {**store.module_read("history"),
                                   "trim_max_messages": messages})


def trace_recalled(store, instance_id: str, result) -> list[str]:
    """The texts the turn's recall brought back, in the trace's order."""
    trace = store.trace_read(instance_id, result.trace_id)
    return [hit["text"] for hit in trace["retrievals"]["hits"]]


def trace_hits_json(store, instance_id: str, result) -> str:
    """The turn's recall hits as JSON, to look for a text anywhere in them."""
    hits = store.trace_read(instance_id, result.trace_id)["retrievals"]["hits"]
    return json.dumps(hits, ensure_ascii=False)


def history_recalled(store, instance_id: str, question: str) -> list[str]:
    """The texts a forced search of the player's history finds for `question` (10 at most)."""
    return [hit.text for hit in query_user_history(
        question, instance_id, index=runtime.index_for(store), force=True, k=10).hits]
