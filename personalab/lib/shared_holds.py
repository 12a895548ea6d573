"""Holds of a kind counted across server processes in Redis (REDIS_URL): each hold a member of
the sorted set `<prefix><account>`, scored with when its lease ends; this process renews its
members' leases every third of the lease, so a process that dies gives its holds back within
it. Timed by the Redis server's clock (the processes' clocks may differ). A chat export's
worker (chat/import_export/export_process.py) is one such hold."""

from __future__ import annotations

import itertools
import os
import secrets
import threading
import time
from typing import Any

LEASE_SECONDS = 30.0

# KEYS: the account's set. ARGV: limit, member, lease.
_TAKE = """local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('zremrangebyscore', KEYS[1], '-inf', now)
if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('zadd', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('expire', KEYS[1], math.ceil(tonumber(ARGV[3])) + 1)
return 1"""

# KEYS: the account's set.
_COUNT = """local t = redis.call('TIME')
redis.call('zremrangebyscore', KEYS[1], '-inf', tonumber(t[1]) + tonumber(t[2]) / 1000000)
return redis.call('zcard', KEYS[1])"""

# KEYS: the account's set. ARGV: member, lease.
_RENEW = """local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
if redis.call('zadd', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1]) == 1 then
  redis.call('expire', KEYS[1], math.ceil(tonumber(ARGV[2])) + 1)
end
return 1"""


class LeasedMembers:
    """Members this process holds in Redis sorted sets, each with a lease that its own thread
    renews every third of the lease, so a process that dies gives them back within it. A kind
    of hold says how a member is given back and renewed (`_remote_give`, `_remote_renew`)."""

    thread_name = "holds-lease"

    def __init__(self, client: Any, *, lease_seconds: float = LEASE_SECONDS) -> None:
        self.client = client
        self.lease = lease_seconds
        self._names = f"{os.getpid()}:{secrets.token_hex(4)}:"
        self._numbers = itertools.count()
        self._held: dict[str, str] = {}  # member → account
        self._lock = threading.Lock()
        self._renewer: threading.Thread | None = None

    def _member_new(self) -> str:
        return f"{self._names}{next(self._numbers)}"

    def _held_add(self, member: str, account: str) -> None:
        with self._lock:
            self._held[member] = account
            if self._renewer is None:
                self._renewer = threading.Thread(target=self._renew_loop, daemon=True,
                                                 name=self.thread_name)
                self._renewer.start()

    def give(self, member: str) -> None:
        with self._lock:
            account = self._held.pop(member, None)
        if account is not None:
            try:
                self._remote_give(member, account)
            except Exception:  # noqa: BLE001 — Redis gone: the lease runs out by itself
                pass

    def renew(self) -> None:
        with self._lock:
            held = list(self._held.items())
        for member, account in held:
            try:
                self._remote_renew(member, account)
            except Exception:  # noqa: BLE001 — tried again at the next renewal
                return

    def _renew_loop(self) -> None:
        while True:
            time.sleep(self.lease / 3)
            self.renew()

    def _remote_give(self, member: str, account: str) -> None:
        raise NotImplementedError

    def _remote_renew(self, member: str, account: str) -> None:
        raise NotImplementedError


class SharedHolds(LeasedMembers):
    """This process's holds of one kind (`prefix`) in Redis. Its calls raise redis.RedisError
    when Redis cannot be reached, but `give`, whose lease runs out by itself."""

    def __init__(self, client: Any, prefix: str, *, lease_seconds: float = LEASE_SECONDS):
        super().__init__(client, lease_seconds=lease_seconds)
        self.prefix = prefix
        self.thread_name = f"holds-lease-{prefix}"

    def take(self, account: str, *, limit: int) -> str | None:
        """A member naming the hold, or None: the account holds `limit` across processes."""
        member = self._member_new()
        if not self.client.eval(_TAKE, 1, self.prefix + account, limit, member, self.lease):
            return None
        self._held_add(member, account)
        return member

    def count(self, account: str) -> int:
        """The account's holds in every process, this one's included."""
        return int(self.client.eval(_COUNT, 1, self.prefix + account))

    def _remote_give(self, member: str, account: str) -> None:
        self.client.zrem(self.prefix + account, member)

    def _remote_renew(self, member: str, account: str) -> None:
        self.client.eval(_RENEW, 1, self.prefix + account, member, self.lease)


_shared: dict[tuple[str, str], SharedHolds] = {}
_shared_lock = threading.Lock()


def shared_holds(url: str, prefix: str) -> SharedHolds:
    """This process's holds of `prefix` in the Redis at `url`. Its client waits at most 2 s: an
    export waiting its turn asks it on the request's thread (not the event loop)."""
    with _shared_lock:
        if (url, prefix) not in _shared:
            import redis  # the redis extra, installed where REDIS_URL is set

            client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
            _shared[url, prefix] = SharedHolds(client, prefix)
        return _shared[url, prefix]
