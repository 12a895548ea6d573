"""Accounts take turns at the export workers, on the real worker pool (spawned processes,
chat/import_export/export_process.py). Eighth red-team pass: with two workers, bob and carol
each ran one long export and each sent a second; alice's first, sent after those, waited for
both seconds too, since a freed worker went to the export waiting longest. A freed worker now
goes to the waiting account served longest ago."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from chat.import_export import export_process
from tests import export_gate

ACCOUNTS_EXPORTS = ["bobs_first", "carols_first", "bobs_second", "carols_second", "hers"]


@pytest.fixture
def real_pool(settings, monkeypatch, tmp_path):
    """Two real export workers, each running `export_gate.gated_export` as its export."""
    settings.PERSONALAB_EXPORT_PROCESSES = 2
    monkeypatch.setattr(export_process, "_pool", None)
    monkeypatch.setattr(export_process, "_served", {})
    monkeypatch.setattr(export_process, "_small", lambda *args: False)
    monkeypatch.setattr(export_process, "_exported", export_gate.gated_export)
    yield tmp_path
    for name in ACCOUNTS_EXPORTS:
        export_gate.let_end(tmp_path, name)
    pool = export_process._pool
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)
    export_process._pool = None


def _export(gates, account: str, name: str, results: dict) -> threading.Thread:
    def run() -> None:
        try:
            results[name] = export_process.session_export_apart(
                instance_id=name, session_id=str(gates), fmt="jsonl", character=None,
                account=account)
        except Exception as exc:  # noqa: BLE001 — the test reads what each export got
            results[name] = exc
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _waiting(count: int) -> bool:
    """Whether `count` exports wait for a worker, within a minute. Polled: an export that joins
    the wait notifies no one, so a plain wait on the condition slept out its whole minute."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with export_process._held_changed:
            if len(export_process._waiting) >= count:
                return True
        time.sleep(0.02)
    return False


def _both_workers_taken(gates, results: dict) -> list[threading.Thread]:
    """bob's first export and carol's, each running on one of the pool's two workers, bob's
    served first: sent together, carol's thread could reach the pool first (seen in a loaded CI
    run), and the tests read who was served longest ago."""
    threads = [_export(gates, "bob", "bobs_first", results)]
    assert export_gate.started(gates, ACCOUNTS_EXPORTS, count=1) == {"bobs_first"}
    threads.append(_export(gates, "carol", "carols_first", results))
    assert export_gate.started(gates, ACCOUNTS_EXPORTS, count=2) == {"bobs_first",
                                                                   "carols_first"}
    return threads


def test_a_third_account_gets_the_first_worker_freed_on_the_real_pool(real_pool):
    gates, results = real_pool, {}
    threads = _both_workers_taken(gates, results)
    threads.append(_export(gates, "bob", "bobs_second", results))
    assert _waiting(1)
    threads.append(_export(gates, "carol", "carols_second", results))
    assert _waiting(2)
    threads.append(_export(gates, "alice", "hers", results))
    assert _waiting(3)
    export_gate.let_end(gates, "bobs_first")
    # One worker is free: one export starts, alice's, not bob's second sent before it.
    assert export_gate.started(gates, ACCOUNTS_EXPORTS, count=3) == {
        "bobs_first", "carols_first", "hers"}
    export_gate.let_end(gates, "carols_first")
    # bob was served before carol: his second goes before hers.
    assert export_gate.started(gates, ACCOUNTS_EXPORTS, count=4) == {
        "bobs_first", "carols_first", "hers", "bobs_second"}
    for name in ACCOUNTS_EXPORTS:
        export_gate.let_end(gates, name)
    for thread in threads:
        thread.join(120)
    assert results == {name: (name.encode(), "text/plain") for name in ACCOUNTS_EXPORTS}
    assert not export_process._held and not export_process._waiting


def test_an_export_waiting_while_a_worker_is_killed_runs_on_new_workers(real_pool,
                                                                       monkeypatch):
    """An export that waited for a worker while one was killed (an out-of-memory kill) was
    then sent to the broken pool and answered 503 without ever starting; it starts on new
    workers now. The broken pool is forgotten slowly here: a share given back before its pool
    was forgotten let the waiting export take the broken pool (seen in a loaded run)."""
    forget = export_process._pool_forget

    def forget_slowly(pool):
        time.sleep(0.5)
        forget(pool)

    monkeypatch.setattr(export_process, "_pool_forget", forget_slowly)
    gates, results = real_pool, {}
    threads = _both_workers_taken(gates, results)
    threads.append(_export(gates, "alice", "hers", results))
    assert _waiting(1)
    os.kill(int((gates / "bobs_first.started").read_text()), signal.SIGKILL)
    deadline = time.monotonic() + export_gate.WAIT_AT_MOST
    while (not (gates / "hers.started").exists() and threads[2].is_alive()
           and time.monotonic() < deadline):
        time.sleep(0.02)
    assert "hers" not in results, results.get("hers")  # not answered before it ran
    export_gate.let_end(gates, "hers")
    for thread in threads:
        thread.join(120)
    assert results["hers"] == (b"hers", "text/plain")
    assert all(getattr(results[name], "code", "") == "export_failed"
               for name in ("bobs_first", "carols_first"))


def test_a_worker_started_by_a_later_export_is_watched_too(real_pool):
    """CPython 3.11's pool wakes its watching thread before it starts the worker an export
    needs, so the watcher went back to waiting on the workers it knew: the second worker
    killed, its export waited for ever (it held its account's share, and hers never ran;
    seen in CI). Each export is sent once the one before it started, the way that loses."""
    gates, results = real_pool, {}
    threads = [_export(gates, "bob", "bobs_first", results)]
    assert export_gate.started(gates, ACCOUNTS_EXPORTS, count=1) == {"bobs_first"}
    threads.append(_export(gates, "carol", "carols_first", results))
    assert export_gate.started(gates, ACCOUNTS_EXPORTS, count=2) == {"bobs_first",
                                                                   "carols_first"}
    os.kill(int((gates / "carols_first.started").read_text()), signal.SIGKILL)
    threads[1].join(60)
    assert getattr(results.get("carols_first"), "code", "") == "export_failed"
    threads.append(_export(gates, "alice", "hers", results))
    assert export_gate.started(gates, ACCOUNTS_EXPORTS, count=3) >= {"hers"}
    export_gate.let_end(gates, "hers")
    threads[2].join(120)
    assert results["hers"] == (b"hers", "text/plain")
