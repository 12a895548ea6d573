"""A small chat is exported on the server's thread: the export worker process takes seconds to
start, and a 2 KB chat's first export on a fresh server waited 2.7 s for it (16 KB: 5.4 s).
A large one still goes to a worker (chat/import_export/export_process.py)."""

from __future__ import annotations

import json
from concurrent.futures import Future

import pytest

from chat.import_export import export_process


class _Pool:
    """Stands in for the worker processes: records what it was given, runs nothing."""

    def __init__(self) -> None:
        self.jobs: list[tuple] = []

    def submit(self, fn, *args):
        self.jobs.append(args)
        done: Future = Future()
        done.set_result((b"from the worker", "application/jsonl"))
        return done


@pytest.fixture
def pool(settings, monkeypatch):
    settings.PERSONALAB_EXPORT_PROCESSES = 2
    fake = _Pool()
    monkeypatch.setattr(export_process, "_pool_get", lambda: fake)
    return fake


def _export(instance: str, session_id: str) -> tuple[bytes, str]:
    return export_process.session_export_apart(instance_id=instance, session_id=session_id,
                                               fmt="jsonl", character=None)


def test_a_small_chat_is_exported_without_the_worker(pool, store, instance):
    session_id = store.instance_state_read(instance)["current_session_id"]
    body, _ = _export(instance, session_id)
    assert pool.jobs == [] and body != b"from the worker"
    assert json.loads(body.splitlines()[0])  # SillyTavern's header line


def test_a_large_chat_goes_to_the_worker(pool, store, instance, monkeypatch):
    session_id = store.instance_state_read(instance)["current_session_id"]
    path = store.session_path(instance, session_id)
    monkeypatch.setattr(export_process, "IN_SERVER_BELOW", path.stat().st_size)
    assert _export(instance, session_id)[0] == b"from the worker"
    assert pool.jobs == [(instance, session_id, "jsonl", None)]
