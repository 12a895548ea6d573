"""The per-instance lock: one writer per instance, as a small protocol with two kinds.

`FlockLock` (the default) holds across threads, processes and workers on one machine.
`RedisLock` holds across machines: a lease in Redis renewed while held, and a fencing token
(a number that only grows) that a writer checks before each write, so a holder whose lease ran
out (a long pause, a lost network) stops writing instead of interleaving with the next holder.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import logging
import os
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Callable, Protocol

from personalab.lib.errors import Conflict, Unavailable
from personalab.lib.store_errors import InstanceBusy
from personalab.lib.uncancelled import thread_whole

logger = logging.getLogger(__name__)


def _busy(instance_id: str) -> Exception:
    return InstanceBusy(instance_id)


class LockLost(Conflict):
    code, status = "lock_lost", 409

    def __init__(self, instance_id: str):
        super().__init__(message=f"the lock on instance {instance_id} was lost (its lease ran "
                                 "out); nothing more is written; send again")


class LockUnavailable(Unavailable):
    code, status = "lock_unavailable", 503

    def __init__(self, instance_id: str, reason: object):
        super().__init__(message=f"instance {instance_id} cannot be locked: the lock service "
                                 f"(Redis) is unreachable ({reason}); try again in a moment")


class InstanceLock(Protocol):
    instance_id: str

    def acquire(self, *, blocking: bool = False) -> "InstanceLock": ...
    def release(self) -> None: ...
    def check(self) -> None: ...  # raises LockLost when this holder may no longer write
    def taken(self) -> bool: ...  # whether any holder has it now: a read that never takes it

    @property
    def held(self) -> bool: ...

    def __enter__(self) -> "InstanceLock": ...
    def __exit__(self, *exc: object) -> None: ...


# The lock this process holds on each instance, so a writer can check it without being handed it.
_held: dict[str, "InstanceLock"] = {}


def held_lock(instance_id: str) -> InstanceLock | None:
    return _held.get(instance_id)


class _LockBase:
    instance_id: str
    # Run just after acquiring and just before releasing, while held (the file store puts
    # right a chat's story step there: personalab/lib/filestore/outline_pending.py). A hook
    # that fails is logged: it never keeps a lock from being taken or given back.
    on_hold: Callable[[], None] | None = None

    def __enter__(self):
        if not self.held:
            self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _mark(self, holding: bool) -> None:
        if holding:
            _held[self.instance_id] = self
            self._hold_hook()
        elif _held.get(self.instance_id) is self:
            del _held[self.instance_id]

    def _hold_hook(self) -> None:
        if self.on_hold is None:
            return
        try:
            self.check()  # type: ignore[attr-defined]
            self.on_hold()
        except LockLost:
            pass  # no longer ours to write under
        except Exception:  # noqa: BLE001
            logger.exception("the hook of the lock on %s failed", self.instance_id)


class FlockLock(_LockBase):
    """flock on a file in the instance folder."""

    def __init__(self, path: Path, instance_id: str):
        self.path = path
        self.instance_id = instance_id
        self._fd: int | None = None

    def acquire(self, *, blocking: bool = False) -> "FlockLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise _busy(self.instance_id) from None
            raise
        self._fd = fd
        self._mark(True)
        return self

    def release(self) -> None:
        if self._fd is not None:
            self._hold_hook()
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
            self._mark(False)

    def check(self) -> None:
        """flock cannot be lost while the process lives."""

    def taken(self) -> bool:
        """Held here, or by any process on this machine (the kernel's table of file locks; a
        probe that took the lock, even for a moment, would refuse a turn starting then).
        Where the table cannot be read, only this process's holding is known."""
        if self.held:
            return True
        try:
            found = os.stat(self.path)
            with open("/proc/locks", encoding="ascii") as table:
                listed = table.read()
        except OSError:
            return False
        wanted = f"{os.major(found.st_dev):02x}:{os.minor(found.st_dev):02x}:{found.st_ino} "
        return any(" FLOCK " in line and wanted in line for line in listed.splitlines())

    @property
    def held(self) -> bool:
        return self._fd is not None


_RENEW = """if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"""
_RELEASE = """if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1]) else return 0 end"""


class RedisLock(_LockBase):
    """A lease in Redis (`SET key token NX PX lease`), renewed every third of the lease by a
    thread while held. The token comes from INCR, so every holder's token is larger than the
    one before; `check()` fails once a renewal found another token or the lease time passed."""

    def __init__(self, client, instance_id: str, *, lease_seconds: float = 30.0,
                 prefix: str = "personalab:lock:"):
        self.client = client
        self.instance_id = instance_id
        self.key = prefix + instance_id
        self.lease_ms = int(lease_seconds * 1000)
        self.token: int | None = None
        self._valid_until = 0.0
        self._lost = False
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def acquire(self, *, blocking: bool = False) -> "RedisLock":
        import redis

        while True:
            try:
                token = int(self.client.incr(self.key + ":fence"))
                started = time.monotonic()
                taken = self.client.set(self.key, token, nx=True, px=self.lease_ms)
            except redis.RedisError as exc:
                raise LockUnavailable(self.instance_id, exc) from None
            if taken:
                break
            if not blocking:
                raise _busy(self.instance_id)
            time.sleep(0.05)
        self.token, self._lost = token, False
        self._valid_until = started + self.lease_ms / 1000
        self._stop = threading.Event()
        self._renewer = threading.Thread(target=self._renew_loop, daemon=True,
                                         name=f"lease {self.instance_id}")
        self._renewer.start()
        self._mark(True)
        return self

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.lease_ms / 3000):
            started = time.monotonic()
            try:
                renewed = self.client.eval(_RENEW, 1, self.key, self.token, self.lease_ms)
            except Exception:  # noqa: BLE001 — Redis unreachable: the lease runs out on its own
                continue
            if not renewed:
                self._lost = True
                return
            self._valid_until = started + self.lease_ms / 1000

    def check(self) -> None:
        if self.token is None or self._lost or time.monotonic() >= self._valid_until:
            raise LockLost(self.instance_id)

    def release(self) -> None:
        if self.token is None:
            return
        self._hold_hook()
        self._stop.set()
        try:
            self.client.eval(_RELEASE, 1, self.key, self.token)
        except Exception:  # noqa: BLE001 — the lease expires by itself
            pass
        self.token = None
        self._mark(False)

    def taken(self) -> bool:
        """Whether a lease is in Redis now; with Redis unreachable, not known: False."""
        try:
            return bool(self.client.exists(self.key))
        except Exception:  # noqa: BLE001 — a read that cannot be answered says nothing
            return False

    @property
    def held(self) -> bool:
        return self.token is not None


@contextlib.asynccontextmanager
async def lock_awaited(lock: InstanceLock) -> AsyncIterator[InstanceLock]:
    """`lock` held from a coroutine. A Redis lock is taken and given back on a thread: on the
    event loop, a Redis that stopped answering held every account's requests up to its
    client's 5 s timeout (tenth red-team pass); a file lock is taken in place (a thread hop
    costs more under load than the flock)."""
    if not isinstance(lock, RedisLock):
        lock.acquire()
        try:
            yield lock
        finally:
            lock.release()
        return
    try:
        await thread_whole(lock.acquire)
    except asyncio.CancelledError:  # taken meanwhile, maybe: given back before it is raised
        await thread_whole(lock.release)
        raise
    try:
        yield lock
    finally:
        await thread_whole(lock.release)


LockFactory = Callable[[Path, str], InstanceLock]


def flock_factory(path: Path, instance_id: str) -> InstanceLock:
    return FlockLock(path, instance_id)


def redis_lock_factory(url: str, *, lease_seconds: float = 30.0) -> LockFactory:
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)

    def make(path: Path, instance_id: str) -> InstanceLock:
        return RedisLock(client, instance_id, lease_seconds=lease_seconds)

    return make
