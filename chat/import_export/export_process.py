"""Chat exports in processes of their own.

Exporting a 116k-message chat is tens of seconds of pure Python. On the server's threads it
holds the interpreter lock every request shares, so another account's cheap API call waited
behind it (bench/cross_account.py: B's median 0.2-1 s, p95 1-3 s during two such exports). In a
worker process only the CPU is shared, and the operating system shares that fairly. The checks
that need the account stay in the server; the worker reads the files and builds the body.

PERSONALAB_EXPORT_PROCESSES workers (0: in the server, as tests do: their database is one
connection another process cannot see) start with the first large export and are kept; each
ends with the server that started it, even one killed outright (personalab/process_setup.py).
A chat under IN_SERVER_BELOW bytes is exported in the server: a worker takes 3-12 s to start
(bench/first_export.py), and a small chat waited that long on a fresh server for an export
that takes milliseconds. A larger one's page starts one worker in the background when it opens
(`export_worker_warm`), so its export seldom waits for the start; a worker with every server
start cost each start 1.1 s of CPU and 110 MB whether anything was exported or not.
One account's exports hold at most all but one worker (`workers_per_account`), and a freed
worker goes to the waiting account that holds fewest, then to the one served longest ago
(`_worker_share`): accounts take turns, so two accounts each holding a worker with a second
export waiting never keep a third waiting past the first worker freed. With REDIS_URL (several
server processes, each with its workers) an account's share is counted across them: held in
one process each, bob's exports held one worker per process (tenth red-team pass).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import multiprocessing
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from django.conf import settings

from chat.services.session_export import session_export
from personalab.lib.errors import AppError, Unavailable
from personalab.lib.filestore.store import FileStore
from personalab.lib.shared_holds import SharedHolds, shared_holds
from personalab.process_setup import worker_start
from personalab.storage import get_store

# A session file this small is exported on the server's thread, holding it for tens of ms
# (bench/first_export.py at load 10: 34 KB 0.01 s, 340 KB 0.03-0.16 s, 476 KB 0.10-0.43 s);
# a worker's start, paid by the first larger export, took 3-12 s.
IN_SERVER_BELOW = 256 << 10

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()
_warm_asked = False
# The workers each account's exports hold now: one account may hold all but one of them, so
# its long exports (tens of seconds each, two at once) never make another account's wait.
_held: Counter[str] = Counter()
_held_changed = threading.Condition()
_waiting: dict[int, str] = {}  # the account of each export waiting for a worker, by ticket
_tickets = itertools.count()
# When each account was last handed a worker (a grant's number; one int per account that ever
# exported, kept: forgotten, an account would count as never served and go first again).
_served: dict[str, int] = {}
_grants = itertools.count()
# With REDIS_URL: the workers each waiting account holds in other server processes, read again
# every SHARED_POLL_SECONDS while it waits (a worker freed there wakes nobody here).
_elsewhere: dict[str, int] = {}
EXPORT_HOLDS = "personalab:exports:held:"
SHARED_POLL_SECONDS = 0.25

log = logging.getLogger(__name__)


def _exported(instance_id: str, session_id: str, fmt: str,
              character: str | None) -> tuple[bytes, str] | tuple[str, int, str, dict]:
    """In the worker. A refusal comes back as plain values: an AppError subclass with its own
    __init__ cannot always be pickled back."""
    try:
        return session_export(get_store(), instance_id=instance_id,
                              session_id=session_id, fmt=fmt, character=character)
    except AppError as exc:
        return exc.code, exc.status, exc.message, exc.fields


def _pool_get() -> ProcessPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=settings.PERSONALAB_EXPORT_PROCESSES,
                                        mp_context=multiprocessing.get_context("spawn"),
                                        initializer=worker_start)
        return _pool


def _ready() -> None:
    """In the worker: nothing. Its arrival means Django and this module are imported there."""


def _submitted(pool: ProcessPoolExecutor, job, *args) -> Future:
    """`pool.submit`, then the pool's watching thread woken once more. CPython 3.11's submit
    wakes it before starting the worker the job needs, so it could go back to waiting on the
    workers it knew: that worker killed (an out-of-memory kill), its export waited for ever,
    holding its account's share (tests/chat/test_export_workers_turns.py). Woken after the
    start, it watches every worker. Private names, so a Python without them skips this."""
    future = pool.submit(job, *args)
    wakeup = getattr(pool, "_executor_manager_thread_wakeup", None)
    lock = getattr(pool, "_shutdown_lock", None)
    if wakeup is not None and lock is not None:
        with lock:  # as submit does: the pool closes its wakeup under this lock
            if not getattr(pool, "_shutdown_thread", True):
                wakeup.wakeup()
    return future


def _warm(pool: ProcessPoolExecutor) -> None:
    try:
        _submitted(pool, _ready).add_done_callback(lambda done: _warm_failed(pool, done))
    except (BrokenProcessPool, RuntimeError):  # RuntimeError: the server is stopping
        _pool_forget(pool)


def _warm_failed(pool: ProcessPoolExecutor, done: Future) -> None:
    if isinstance(done.exception(), BrokenProcessPool):
        _pool_forget(pool)  # else the next export would be refused by a pool already broken


def export_worker_warm(*, instance_id: str, session_id: str) -> None:
    """When a page offering this chat's export opens: one worker started in the background, if
    the chat is large enough to be exported in one and none was asked for yet. Returns at once;
    the start (3-12 s) is paid while the player reads, not by the export."""
    global _warm_asked
    if _warm_asked or settings.PERSONALAB_EXPORT_PROCESSES <= 0:
        return
    try:
        if get_store().session_path(instance_id, session_id).stat().st_size < IN_SERVER_BELOW:
            return
    except OSError:
        return
    with _pool_lock:
        if _warm_asked or _pool is not None:  # an export already started the workers
            _warm_asked = True
            return
        _warm_asked = True
    # A thread of its own: starting a spawned process forks and writes its start data.
    threading.Thread(target=_warm, args=(_pool_get(),), name="export-worker-warm",
                     daemon=True).start()


def _pool_forget(broken: ProcessPoolExecutor) -> None:
    global _pool
    with _pool_lock:
        if _pool is broken:
            _pool = None


def workers_per_account() -> int:
    return max(1, settings.PERSONALAB_EXPORT_PROCESSES - 1)


def _turn_of(ticket: int, account: str) -> bool:
    """Whether the export waiting with `ticket` may take a worker now: one is free, its account
    holds less than its share, and no waiting account within its share comes before it: one
    holding fewer, then one served longer ago (never is longest), then one waiting longer.
    Waiting longest alone served an account's second export, sent early, before a third
    account's first: two accounts with a second export each kept it waiting two exports."""
    share = workers_per_account()
    if sum(_held.values()) >= settings.PERSONALAB_EXPORT_PROCESSES or _holding(account) >= share:
        return False
    first = min((_holding(other), _served.get(other, -1), waiting)
                for waiting, other in _waiting.items() if _holding(other) < share)
    return first == (_holding(account), _served.get(account, -1), ticket)


def _holding(account: str) -> int:
    return _held[account] + _elsewhere.get(account, 0)


@contextlib.contextmanager
def _worker_share(account: str) -> Iterator[None]:
    """Waits (on this request's thread, holding no worker) for a free worker and its turn
    (`_turn_of`): sent to the pool at once, an export queued there in the order sent, so a
    freed worker went to an account's second export before another account's first. Redis is
    asked outside the process's condition: a Redis that stopped answering held every export of
    the process, those ending included, up to its client's 2 s a call."""
    url = getattr(settings, "REDIS_URL", "")
    holds = shared_holds(url, EXPORT_HOLDS) if url else None
    with _held_changed:
        ticket = next(_tickets)
        _waiting[ticket] = account
    try:
        member = _turn_awaited(ticket, account, holds)
    except BaseException:
        with _held_changed:
            del _waiting[ticket]
            _held_changed.notify_all()
        raise
    with _held_changed:
        del _waiting[ticket]
        _held[account] += 1
        _served[account] = next(_grants)
        _held_changed.notify_all()  # who is first among the others changed
    try:
        yield
    finally:
        if member is not None:
            holds.give(member)
        with _held_changed:
            _held[account] -= 1
            if _held[account] <= 0:
                del _held[account]
            _held_changed.notify_all()


def _turn_awaited(ticket: int, account: str, holds: SharedHolds | None) -> str | None:
    """Until the export's turn came and (with Redis) its account's hold was taken there: the
    hold to give back, None without Redis. The ticket stays waiting meanwhile, so no other
    export of this process is first before this one is counted as holding."""
    if holds is None:
        with _held_changed:
            _held_changed.wait_for(lambda: _turn_of(ticket, account))
        return None
    while True:
        elsewhere = _elsewhere_count(holds, account)
        with _held_changed:
            _elsewhere[account] = max(0, elsewhere - _held[account])
            mine = _turn_of(ticket, account)
        if mine:
            taken, member = _shared_taken(holds, account)
            if taken:
                return member
            with _held_changed:
                _elsewhere[account] = workers_per_account()  # others go first meanwhile
        with _held_changed:
            _held_changed.wait(SHARED_POLL_SECONDS)


def _elsewhere_count(holds: SharedHolds, account: str) -> int:
    """The account's holds in every process (0 with Redis unreachable)."""
    import redis  # the redis extra, installed where REDIS_URL is set

    try:
        return holds.count(account)
    except redis.RedisError:
        return 0


def _shared_taken(holds: SharedHolds, account: str) -> tuple[bool, str | None]:
    """(False, None) when the account holds its share across processes (Redis's look and take
    are one step); else True and the hold to give back, None with Redis unreachable: this
    process's count alone, as the replies at once fall back to (chat/play/account_turns.py)."""
    import redis

    try:
        member = holds.take(account, limit=workers_per_account())
    except redis.RedisError as exc:
        log.warning("export workers counted in this process only: Redis: %s", exc)
        return True, None
    return member is not None, member


def _small(store: FileStore, instance_id: str, session_id: str) -> bool:
    try:
        return store.session_path(instance_id, session_id).stat().st_size < IN_SERVER_BELOW
    except OSError:
        return False  # the export itself says what is missing


def session_export_apart(*, instance_id: str, session_id: str, fmt: str,
                         character: str | None, account: str = "") -> tuple[bytes, str]:
    """`session_export`, in a worker process when there are any and the chat is large, within
    `account`'s share of the workers (`workers_per_account`)."""
    store = get_store()
    if settings.PERSONALAB_EXPORT_PROCESSES <= 0 or _small(store, instance_id, session_id):
        return session_export(store, instance_id=instance_id,
                              session_id=session_id, fmt=fmt, character=character)
    with _worker_share(account):
        # Taken once the turn came: a pool that broke meanwhile (a worker killed) is replaced,
        # not handed the exports that waited through it (each answered 503). A broken pool is
        # forgotten before this worker's share is given back, or the export waiting for it
        # would take the broken pool still.
        pool = _pool_get()
        try:
            result = _submitted(pool, _exported, instance_id, session_id, fmt,
                                character).result()
        except BrokenProcessPool:
            _pool_forget(pool)  # a worker killed (OOM, kill -9): the next export starts new ones
            raise Unavailable("the export stopped before it ended; try again",
                              code="export_failed") from None
    if len(result) == 4:
        code, status, message, fields = result
        raise AppError(message, code=code, status=status, fields=fields)
    return result
