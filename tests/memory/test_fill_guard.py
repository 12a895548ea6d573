"""A fill that read the session before a history edit never writes the edited line's old text,
nor a deleted line, back into the index (issue 30 item 4b)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from memory import runtime
from memory.vectors import fill
from tests.memory.memory_turns import history_recalled, memory_turn_run
from tests.memory.recall_chats import EDITED, KEPT

pytestmark = pytest.mark.django_db(transaction=True)


DROPPED = "My neighbour Bartholomew collects antique barometers."


def _rows(rest, instance, session):
    response = rest("get", f"/api/v1/instances/{instance}/sessions/{session}/messages")
    assert response.status_code == 200
    return {row["content"]: row for row in response.json()["rows"]}


def _held(event: threading.Event, started: threading.Event) -> None:
    started.set()
    event.wait(60)


@pytest.fixture
def chunks_of_two(monkeypatch):
    """Chunks of two lines (a turn), so a four-line fill shows what a long one does chunk by
    chunk: the newest turn first, the older one after."""
    monkeypatch.setattr("memory.vectors.sync.newest_first_chunks",
                        lambda runs: fill.newest_first_chunks(runs, size=2))


@pytest.fixture
def first_embed_waits(store, monkeypatch):
    """The fill's first embedding call waits until released (a chunk taking its seconds)."""
    index = runtime.index_for(store)
    real = index._passages_embed
    started, release = threading.Event(), threading.Event()

    def waiting(*args, **kwargs):
        if not started.is_set():
            started.set()
            release.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(index, "_passages_embed", waiting)
    yield started, release
    release.set()


def test_a_fill_never_writes_back_a_line_edited_or_deleted_while_it_ran(
        store, instance, memory_on, use_stub, rest, chunks_of_two, first_embed_waits):
    embedding, go_on = first_embed_waits
    hold, held = threading.Event(), threading.Event()
    runtime.schedule(_held, hold, held)  # the worker busy: both turns wait for one fill
    result, _ = asyncio.run(memory_turn_run(store, instance, KEPT))
    asyncio.run(memory_turn_run(store, instance, DROPPED))
    session = result.session_id
    after, after_started = threading.Event(), threading.Event()
    try:
        hold.set()  # the fill reads the file, then its first chunk (the newest turn) embeds
        assert embedding.wait(60)
        runtime.schedule(_held, after, after_started)  # holds the worker once the fill ends
        rows = _rows(rest, instance, session)
        url = f"/api/v1/instances/{instance}/sessions/{session}/messages"
        # The older turn's chunk has not started: it must not write KEPT.
        edited = rest("put", f"{url}/{rows[KEPT]['index']}",
                          {"fingerprint": rows[KEPT]["fingerprint"], "text": EDITED})
        assert edited.status_code == 200
        # The newest turn is being embedded: its write must not bring DROPPED back.
        deleted = rest("delete", f"{url}/{rows[DROPPED]['index']}"
                                     f"?fingerprint={rows[DROPPED]['fingerprint']}")
        assert deleted.status_code == 200
        runtime.live_drain()
        go_on.set()
        assert after_started.wait(60)  # the fill is done; the sync the edits queued is not
        assert KEPT not in history_recalled(store, instance, "Where is the silver key buried?")
        assert DROPPED not in history_recalled(store, instance, "What does Bartholomew collect?")
        assert EDITED in history_recalled(store, instance, "What did I bury under the old oak?")
    finally:
        hold.set()
        go_on.set()
        after.set()
    runtime.drain()
    assert DROPPED not in history_recalled(store, instance, "What does Bartholomew collect?")
    recalled = history_recalled(store, instance, "What did I bury under the old oak?")
    assert EDITED in recalled and KEPT not in recalled
