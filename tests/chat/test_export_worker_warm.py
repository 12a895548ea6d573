"""Opening a large chat's page starts one export worker in the background: the first export
after a server start waited 3-12 s for it (bench/first_export.py). A small chat, exported in the
server, starts none; nor does any chat when exports run in the server (0 processes)."""

from __future__ import annotations

import threading
from concurrent.futures import Future

import pytest

from chat.import_export import export_process


class _Pool:
    """Stands in for the worker processes: counts the starts asked for, runs nothing."""

    def __init__(self) -> None:
        self.asked: list = []
        self.submitted = threading.Event()

    def submit(self, fn, *args):
        self.asked.append(fn)
        self.submitted.set()
        done: Future = Future()
        done.set_result(None)
        return done


@pytest.fixture
def pool(settings, monkeypatch):
    settings.PERSONALAB_EXPORT_PROCESSES = 2
    fake = _Pool()
    monkeypatch.setattr(export_process, "_pool_get", lambda: fake)
    monkeypatch.setattr(export_process, "_pool", None)
    monkeypatch.setattr(export_process, "_warm_asked", False)
    return fake


def _large(store, instance, monkeypatch) -> None:
    session_id = store.instance_state_read(instance)["current_session_id"]
    size = store.session_path(instance, session_id).stat().st_size
    monkeypatch.setattr(export_process, "IN_SERVER_BELOW", size)


def test_a_large_chats_page_starts_one_worker(pool, store, instance, alice_client,
                                              monkeypatch):
    _large(store, instance, monkeypatch)
    assert alice_client.get(f"/instances/{instance}/").status_code == 200
    assert pool.submitted.wait(10)
    assert alice_client.get(f"/instances/{instance}/").status_code == 200
    assert pool.asked == [export_process._ready]  # once per process


def test_a_small_chats_page_starts_none(pool, instance, alice_client):
    assert alice_client.get(f"/instances/{instance}/").status_code == 200
    assert not pool.submitted.wait(0.2) and not export_process._warm_asked


def test_no_worker_when_exports_run_in_the_server(pool, store, instance, alice_client,
                                                  settings, monkeypatch):
    settings.PERSONALAB_EXPORT_PROCESSES = 0
    _large(store, instance, monkeypatch)
    assert alice_client.get(f"/instances/{instance}/").status_code == 200
    assert not pool.submitted.wait(0.2) and not export_process._warm_asked
