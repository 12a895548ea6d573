"""The count of an account's replies at once (chat/play/account_turns.py) held in Redis, for a
deployment of several server processes (REDIS_URL, docs/deploy.md): counted in one process,
bob's flood went on in every other one (ninth red-team pass).

Each reply held is a member of the account's sorted set `personalab:turns:running:<account>`,
scored with the time its lease ends; this process renews its members' leases every third of
LEASE_SECONDS, so a process that dies gives its replies back within the lease. Who played
lately is `personalab:turns:active` (account → when its last reply started, ended or was renewed).
The look and the count are one Lua script, timed by the Redis server's clock (the processes'
clocks may differ)."""

from __future__ import annotations

import threading

from personalab.lib.shared_holds import LeasedMembers

RUNNING = "personalab:turns:running:"
ACTIVE = "personalab:turns:active"

# KEYS: the account's running set, the active set. ARGV: limit, member, lease, account, shared.
_TAKE = """local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('zremrangebyscore', KEYS[1], '-inf', now)
redis.call('zremrangebyscore', KEYS[2], '-inf', now - tonumber(ARGV[5]))
if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[1]) then
  local others = redis.call('zcard', KEYS[2])
  if redis.call('zscore', KEYS[2], ARGV[4]) then others = others - 1 end
  if others > 0 then return 0 end
end
redis.call('zadd', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('expire', KEYS[1], math.ceil(tonumber(ARGV[3])) + 1)
redis.call('zadd', KEYS[2], now, ARGV[4])
return 1"""

# KEYS: the account's running set, the active set. ARGV: member, account.
_GIVE = """local t = redis.call('TIME')
redis.call('zrem', KEYS[1], ARGV[1])
redis.call('zadd', KEYS[2], tonumber(t[1]) + tonumber(t[2]) / 1000000, ARGV[2])
return 1"""

# KEYS: the account's running set, the active set. ARGV: member, lease, account.
_RENEW = """local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
if redis.call('zadd', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1]) == 1 then
  redis.call('expire', KEYS[1], math.ceil(tonumber(ARGV[2])) + 1)
  redis.call('zadd', KEYS[2], now, ARGV[3])
end
return 1"""


class SharedTurns(LeasedMembers):
    """One process's view of the counts in Redis: `take` / `give` a reply of an account."""

    thread_name = "account-turns-lease"

    def take(self, account: str, *, limit: int, shared_seconds: float) -> str | None:
        """A member naming the reply held, or None: the account is at its limit while another
        plays. Raises redis.RedisError when Redis cannot be reached."""
        member = self._member_new()
        taken = self.client.eval(_TAKE, 2, RUNNING + account, ACTIVE, limit, member,
                                 self.lease, account, shared_seconds)
        if not taken:
            return None
        self._held_add(member, account)
        return member

    def _remote_give(self, member: str, account: str) -> None:
        self.client.eval(_GIVE, 2, RUNNING + account, ACTIVE, member, account)

    def _remote_renew(self, member: str, account: str) -> None:
        self.client.eval(_RENEW, 2, RUNNING + account, ACTIVE, member, self.lease, account)


_shared: dict[str, SharedTurns] = {}
_shared_lock = threading.Lock()


def shared_turns(url: str) -> SharedTurns:
    """This process's counts in the Redis at `url` (one client per URL)."""
    with _shared_lock:
        if url not in _shared:
            import redis  # the redis extra, installed where REDIS_URL is set

            client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
            _shared[url] = SharedTurns(client)
        return _shared[url]
