"""One account's large exports hold at most all but one export worker: two of bob's long
exports (tens of seconds each, the two his account may run at once) held both workers, and
alice's export waited for one of them to end (chat/import_export/export_process.py)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future

import pytest
import redis

from chat.import_export import export_process
from personalab.lib.shared_holds import SharedHolds
from tests.redis_server import redis_server, redis_url  # noqa: F401 — fixtures


class _Pool:
    """Stands in for the worker processes: each export runs until the test ends it."""

    def __init__(self) -> None:
        self.running: list[tuple[str, Future]] = []
        self.changed = threading.Condition()

    def submit(self, fn, instance_id, *args):
        done: Future = Future()
        with self.changed:
            self.running.append((instance_id, done))
            self.changed.notify_all()
        return done

    def started(self, count: int) -> list[str]:
        with self.changed:
            self.changed.wait_for(lambda: len(self.running) >= count, timeout=5)
            return [instance_id for instance_id, _ in self.running]

    def end(self, index: int) -> None:
        self.running[index][1].set_result((b"", "application/jsonl"))


@pytest.fixture(autouse=True)
def turns_forgotten(monkeypatch):
    monkeypatch.setattr(export_process, "_served", {})  # who was served when, per test


@pytest.fixture
def pool(settings, monkeypatch):
    settings.PERSONALAB_EXPORT_PROCESSES = 2
    fake = _Pool()
    monkeypatch.setattr(export_process, "_pool_get", lambda: fake)
    monkeypatch.setattr(export_process, "IN_SERVER_BELOW", 0)  # every chat is large
    return fake


def _export_in_thread(account: str, instance_id: str) -> threading.Thread:
    thread = threading.Thread(target=export_process.session_export_apart, kwargs={
        "instance_id": instance_id, "session_id": "s", "fmt": "jsonl", "character": None,
        "account": account}, daemon=True)
    thread.start()
    return thread


def test_one_accounts_two_exports_leave_a_worker_for_another_account(pool, store,
                                                                     monkeypatch):
    monkeypatch.setattr(export_process, "_small", lambda *args: False)
    threads = [_export_in_thread("bob", "bobs_first")]
    assert pool.started(1) == ["bobs_first"]
    threads.append(_export_in_thread("bob", "bobs_second"))
    threads[-1].join(0.3)  # time enough to be handed a worker, were it to get one
    threads.append(_export_in_thread("alice", "hers"))
    assert pool.started(2) == ["bobs_first", "hers"]  # not behind bob's second
    pool.end(0)
    assert pool.started(3) == ["bobs_first", "hers", "bobs_second"]
    pool.end(1)
    pool.end(2)
    for thread in threads:
        thread.join(5)
    assert not export_process._held


class _FifoPool(_Pool):
    """Worker processes as ProcessPoolExecutor hands them out: `capacity` at once, the exports
    sent beyond them waiting in the order they were sent."""

    def __init__(self, capacity: int) -> None:
        super().__init__()
        self.capacity = capacity
        self.queued: list[tuple[str, Future]] = []
        self.busy = 0

    def submit(self, fn, instance_id, *args):
        done: Future = Future()
        with self.changed:
            if self.busy < self.capacity:
                self.busy += 1
                self.running.append((instance_id, done))
            else:
                self.queued.append((instance_id, done))
            self.changed.notify_all()
        return done

    def end(self, index: int) -> None:
        with self.changed:
            self.busy -= 1
            if self.queued:
                self.busy += 1
                self.running.append(self.queued.pop(0))
            self.changed.notify_all()
        super().end(index)


def test_a_freed_worker_goes_to_the_account_holding_fewest(settings, monkeypatch, store):
    """Seventh red-team pass: with three workers, bob's two exports and carol's first held
    them all; carol's second, sent first, then took the worker bob's freed while alice's first
    waited behind it. The next worker now goes to the waiting account that holds fewest."""
    settings.PERSONALAB_EXPORT_PROCESSES = 3
    fifo = _FifoPool(3)
    monkeypatch.setattr(export_process, "_pool_get", lambda: fifo)
    monkeypatch.setattr(export_process, "_small", lambda *args: False)
    threads = [_export_in_thread("bob", "bobs_first"), _export_in_thread("bob", "bobs_second")]
    assert sorted(fifo.started(2)) == ["bobs_first", "bobs_second"]
    threads.append(_export_in_thread("carol", "carols_first"))
    assert fifo.started(3)[-1] == "carols_first"
    threads.append(_export_in_thread("carol", "carols_second"))
    threads[-1].join(0.3)  # sent before alice's
    threads.append(_export_in_thread("alice", "hers"))
    threads[-1].join(0.3)
    fifo.end(0)
    assert fifo.started(4)[3] == "hers"
    fifo.end(1)
    assert fifo.started(5)[4] == "carols_second"
    for index in range(2, 5):
        fifo.end(index)
    for thread in threads:
        thread.join(5)
    assert not export_process._held


def _until(condition, seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_the_share_holds_across_server_processes_with_redis(pool, store, settings,
                                                            monkeypatch, redis_url):  # noqa: F811
    """Tenth red-team pass: each server process counted its own workers, so bob's exports held
    one worker in every process. Another process is a second client of the same redis-server."""
    settings.REDIS_URL = redis_url
    monkeypatch.setattr(export_process, "_small", lambda *args: False)
    monkeypatch.setattr(export_process, "_elsewhere", {})
    elsewhere = SharedHolds(redis.Redis.from_url(redis_url), export_process.EXPORT_HOLDS)
    held = elsewhere.take("bob", limit=1)  # bob's export runs in another process
    threads = [_export_in_thread("bob", "bobs")]
    assert _until(lambda: "bob" in export_process._waiting.values())
    threads.append(_export_in_thread("alice", "hers"))
    assert pool.started(1) == ["hers"]
    elsewhere.give(held)
    assert pool.started(2) == ["hers", "bobs"]
    pool.end(0)
    pool.end(1)
    for thread in threads:
        thread.join(5)
    assert not export_process._held
    assert elsewhere.count("bob") == 0  # given back


class _HungHolds:
    """Redis's holds, where asking bob's count hangs as a Redis that stopped answering does
    (until `answer` is set)."""

    def __init__(self) -> None:
        self.answer, self.asked = threading.Event(), threading.Event()
        self.given: list[str] = []

    def count(self, account: str) -> int:
        if account == "bob":
            self.asked.set()
            self.answer.wait(30)
        return 0

    def take(self, account: str, *, limit: int) -> str:
        return f"hold-of-{account}"

    def give(self, member: str) -> None:
        self.given.append(member)


def test_an_export_ends_while_another_waits_on_a_redis_that_stopped_answering(
        pool, store, settings, monkeypatch):
    """The waiting export asked Redis holding the process's condition: the export that ended
    meanwhile could not give its worker back until Redis answered or timed out (2 s a call,
    every export of the process in turn)."""
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    holds = _HungHolds()
    monkeypatch.setattr(export_process, "shared_holds", lambda url, prefix: holds)
    monkeypatch.setattr(export_process, "_small", lambda *args: False)
    monkeypatch.setattr(export_process, "_elsewhere", {})
    threads = [_export_in_thread("alice", "hers")]
    assert pool.started(1) == ["hers"]
    threads.append(_export_in_thread("bob", "bobs"))
    assert holds.asked.wait(5)
    pool.end(0)
    threads[0].join(5)
    assert not threads[0].is_alive() and holds.given == ["hold-of-alice"]
    holds.answer.set()
    assert pool.started(2) == ["hers", "bobs"]
    pool.end(1)
    threads[1].join(5)
    assert not export_process._held
