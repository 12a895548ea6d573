"""With REDIS_URL (several server processes, docs/deploy.md) an account's replies at once are
counted across processes: counted in each process alone, bob's flood went on in every other
one (ninth red-team pass). Another process is a second client of the same redis-server here."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter

import pytest
import redis

from chat.play import account_turns, account_turns_shared
from chat.play.account_turns import AccountTurnsBusy, account_turn_held
from chat.play.account_turns_shared import RUNNING, SharedTurns
from chat.play.turn import instance_locked
from chat.services.instances import instance_create
from personalab.lib.locks import RedisLock
from tests.redis_server import redis_server, redis_url  # noqa: F401 — fixtures

pytestmark = pytest.mark.django_db(transaction=True)  # turns write the index from threads


def test_replies_held_in_another_process_count_and_a_dead_ones_run_out(
        settings, store, alice, character, as_alice, redis_url):  # noqa: F811
    settings.REDIS_URL = redis_url
    settings.PERSONALAB_TURNS_PER_ACCOUNT = 1
    hers = instance_create(store, owner=alice, character_id=character)
    client = redis.Redis.from_url(redis_url)
    elsewhere = SharedTurns(client)
    assert elsewhere.take("bob", limit=1, shared_seconds=60) is not None  # bob plays there
    held = elsewhere.take("alice", limit=1, shared_seconds=60)
    turn = {"instance_id": hers, "query": "你好"}
    answer = as_alice("post", "/api/v1/chat", turn)
    assert answer.status_code == 429, answer.content
    assert answer.json()["error"]["code"] == "account_turns"
    elsewhere.give(held)
    assert as_alice("post", "/api/v1/chat", turn).status_code == 200
    assert client.zcard(RUNNING + "alice") == 0  # this process gave its own back

    held = elsewhere.take("alice", limit=1, shared_seconds=60)
    assert as_alice("post", "/api/v1/chat", turn).status_code == 429
    client.zadd(RUNNING + "alice", {held: 0})  # that process died: its lease ran out
    assert as_alice("post", "/api/v1/chat", turn).status_code == 200


def test_a_renewed_reply_outlives_its_first_lease(redis_url):  # noqa: F811
    client = redis.Redis.from_url(redis_url)
    there, elsewhere = SharedTurns(client), SharedTurns(client)
    held = there.take("bob", limit=1, shared_seconds=60)
    client.zadd(RUNNING + "bob", {held: 1})  # as if its lease were about to end
    there.renew()
    assert client.zscore(RUNNING + "bob", held) > 1
    assert elsewhere.take("alice", limit=1, shared_seconds=60) is not None
    assert elsewhere.take("bob", limit=1, shared_seconds=60) is None


def test_redis_gone_the_count_is_this_processs(settings, store, alice, bob, character,
                                                redis_server, monkeypatch):  # noqa: F811
    """The chat's lock is refused first then (503), but an aside takes no lock."""
    settings.REDIS_URL = redis_server.url
    settings.PERSONALAB_TURNS_PER_ACCOUNT = 1
    monkeypatch.setattr(account_turns, "_running", Counter())
    monkeypatch.setattr(account_turns, "_last_active", {})
    hers = [instance_create(store, owner=alice, character_id=character) for _ in range(2)]
    his = instance_create(store, owner=bob, character_id=character)
    redis_server.stop()
    with account_turn_held(store, hers[0]), account_turn_held(store, hers[1]):
        pass  # alone: not held
    with account_turn_held(store, his), account_turn_held(store, hers[0]):
        with pytest.raises(AccountTurnsBusy):
            with account_turn_held(store, hers[1]):
                pass


class _SilentRedis:
    """A Redis that answers only once the event loop has run meanwhile (at most 2 s): on the
    loop, a call held it, every account's requests, up to the client's timeout."""

    def __init__(self) -> None:
        self.loop_ran = threading.Event()
        self.calls: list[bool] = []  # per call: whether the loop ran while it waited

    def eval(self, script, *args):
        self.calls.append(self.loop_ran.wait(2))
        self.loop_ran.clear()
        return 1

    incr = eval

    def set(self, *args, **kwargs):
        return True


def _locked_while_the_loop_ticks(store, instance_id: str, silent: _SilentRedis) -> None:
    async def ticking() -> None:
        async def tick() -> None:
            while True:
                silent.loop_ran.set()
                await asyncio.sleep(0.01)

        ticker = asyncio.ensure_future(tick())
        try:
            async with instance_locked(store, instance_id):
                pass
        finally:
            ticker.cancel()

    asyncio.run(ticking())


def test_the_shared_count_is_asked_off_the_event_loop(settings, store, alice, character,
                                                      monkeypatch):
    """Tenth red-team pass: a Redis that stopped answering stalled the whole server."""
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.PERSONALAB_TURNS_PER_ACCOUNT = 1
    silent = _SilentRedis()
    monkeypatch.setitem(account_turns_shared._shared, settings.REDIS_URL, SharedTurns(silent))
    hers = instance_create(store, owner=alice, character_id=character)
    _locked_while_the_loop_ticks(store, hers, silent)
    assert silent.calls == [True, True]  # the take and the give


def test_the_redis_instance_lock_is_taken_off_the_event_loop(store, alice, character,
                                                            monkeypatch):
    hers = instance_create(store, owner=alice, character_id=character)
    silent = _SilentRedis()
    monkeypatch.setattr(store, "lock_factory", lambda path, instance_id: RedisLock(
        silent, instance_id))
    _locked_while_the_loop_ticks(store, hers, silent)
    assert silent.calls == [True, True]  # its fence's count and its release
