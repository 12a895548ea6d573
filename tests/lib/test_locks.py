"""The instance lock across machines: a Redis lease renewed while held, refused to a second
holder, and a fencing check that stops a holder whose lease ran out from writing; and whether
anyone holds it, read without taking it (a flock held by another process, a lease in Redis)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
import redis

from personalab.lib.filestore.store import FileStore
from personalab.lib.locks import LockLost, redis_lock_factory
from personalab.lib.store_errors import InstanceBusy
from tests.redis_server import redis_server, redis_url  # noqa: F401 — fixtures


def _store(tmp_path, url, lease=30.0) -> FileStore:
    return FileStore(tmp_path, lock_factory=redis_lock_factory(url, lease_seconds=lease))


def test_a_second_worker_is_refused_while_the_first_holds_the_lock(tmp_path, redis_url):  # noqa: F811
    worker1, worker2 = _store(tmp_path / "a", redis_url), _store(tmp_path / "b", redis_url)
    lock = worker1.instance_lock("inst_001").acquire()
    with pytest.raises(InstanceBusy):
        worker2.instance_lock("inst_001").acquire()
    worker2.instance_lock("inst_002").acquire().release()  # other instances are free
    lock.release()
    worker2.instance_lock("inst_001").acquire().release()


def test_the_lease_is_renewed_while_a_long_reply_streams(tmp_path, redis_url):  # noqa: F811
    # A lease of 1.5 s is renewed every 0.5 s: a renewal thread held up for a second on a loaded
    # machine still renews in time (at 0.6 s a 0.4 s hold-up lost it under a load of 20).
    worker1, worker2 = _store(tmp_path, redis_url, lease=1.5), _store(tmp_path, redis_url, 1.5)
    lock = worker1.instance_lock("inst_001").acquire()
    time.sleep(4.6)  # more than three leases
    lock.check()
    with pytest.raises(InstanceBusy):
        worker2.instance_lock("inst_001").acquire()
    lock.release()


def test_a_holder_whose_lease_was_taken_over_writes_nothing_more(tmp_path, redis_url):  # noqa: F811
    store = _store(tmp_path, redis_url, lease=0.6)
    path = tmp_path / "instances" / "inst_001" / "sessions" / "sess_001.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"type":"metadata"}\n')
    lock = store.instance_lock("inst_001").acquire()
    writer = store.assistant_writer("inst_001", "sess_001", turn=1).open()
    writer.append("first words")
    # A long pause on this holder: the lease ran out and another worker holds the lock now.
    client = redis.Redis.from_url(redis_url)
    client.set("personalab:lock:inst_001", 10**9)
    time.sleep(0.5)  # the next renewal finds the other token
    with pytest.raises(LockLost):
        writer.append(" and more")
    with pytest.raises(LockLost):
        writer.finish()
    assert "and more" not in path.read_text()
    lock.release()
    assert client.get("personalab:lock:inst_001") == b"1000000000"  # the new holder's stays


def test_tokens_only_grow(tmp_path, redis_url):  # noqa: F811
    store = _store(tmp_path, redis_url)
    first = store.instance_lock("inst_001").acquire()
    first_token = first.token
    first.release()
    second = store.instance_lock("inst_001").acquire()
    assert second.token > first_token
    second.release()


HOLD_FLOCK = """import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


def test_a_file_lock_another_process_holds_is_seen_as_taken_and_left_alone(tmp_path):
    store = FileStore(tmp_path)
    lock = store.instance_lock("inst_001")
    assert not lock.taken()  # no lock file yet
    lock.path.parent.mkdir(parents=True)
    assert not lock.taken()
    holder = subprocess.Popen([sys.executable, "-c", HOLD_FLOCK, str(lock.path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        assert lock.taken() and store.instance_lock("inst_001").taken()
        assert not store.instance_lock("inst_002").taken()
        with pytest.raises(InstanceBusy):  # the probe took nothing: the holder still has it
            lock.acquire()
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert not lock.taken()
    with lock:
        assert lock.taken() and store.instance_lock("inst_001").taken()


def test_a_lease_in_redis_is_seen_as_taken_from_another_worker(tmp_path, redis_url):  # noqa: F811
    worker1, worker2 = _store(tmp_path / "a", redis_url), _store(tmp_path / "b", redis_url)
    assert not worker2.instance_lock("inst_001").taken()
    with worker1.instance_lock("inst_001"):
        assert worker2.instance_lock("inst_001").taken()
        assert not worker2.instance_lock("inst_002").taken()
    assert not worker2.instance_lock("inst_001").taken()


@pytest.mark.django_db(transaction=True)
async def test_with_redis_configured_a_turn_holds_the_lock_there(
        settings, alice, instance, use_stub, redis_url):  # noqa: F811
    import asyncio

    from chat.play.turn import TurnRefused, turn_run
    from personalab.storage import get_store
    from tests.stub_llm import Reply

    settings.REDIS_URL = redis_url
    use_stub.script(Reply("慢慢说完这一句。" * 10, chunk_size=1, delay=0.01))

    async def ignore(event):
        pass

    first = asyncio.create_task(turn_run(get_store(), instance_id=instance, user_text="说吧",
                                         emit=ignore))
    await asyncio.sleep(0.3)
    assert redis.Redis.from_url(redis_url).get(f"personalab:lock:{instance}") is not None
    with pytest.raises(TurnRefused) as refused:
        await turn_run(get_store(), instance_id=instance, user_text="我也说", emit=ignore)
    assert refused.value.code == "busy"
    result = await first
    assert result.answer_text == "慢慢说完这一句。" * 10
    assert redis.Redis.from_url(redis_url).get(f"personalab:lock:{instance}") is None


@pytest.mark.django_db(transaction=True)
async def test_redis_down_is_a_clear_refusal_and_coming_back_needs_no_restart(
        settings, alice, instance, use_stub, redis_server):  # noqa: F811
    from chat.play.turn import TurnRefused, turn_run
    from personalab.storage import get_store
    from tests.stub_llm import Reply

    async def ignore(event):
        pass

    settings.REDIS_URL = redis_server.url
    redis_server.stop()
    with pytest.raises(TurnRefused) as refused:
        await turn_run(get_store(), instance_id=instance, user_text="有人吗", emit=ignore)
    assert refused.value.code == "lock_unavailable" and "Redis" in refused.value.message
    redis_server.start()
    use_stub.script(Reply("在的。"))
    result = await turn_run(get_store(), instance_id=instance, user_text="有人吗", emit=ignore)
    assert result.answer_text == "在的。"
