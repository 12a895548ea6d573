"""How many replies one account may have the model write at once in a server process
(PERSONALAB_TURNS_PER_ACCOUNT): turns, regenerates, continues, impersonations, group rounds,
asides, and the memory actions a player starts (summarize, update memory, rebuild recaps).
Each chat runs one at a time, but an account may own thousands of chats: bob's 60 turns at
once over REST, on 60 of his chats, made alice's turn take 47 s instead of 0.5 s (their
preparation, recall and settling share the process's threads and CPU; eighth red-team pass).
The bound holds while another account plays (a reply of theirs running, or one ended within
SHARED_SECONDS): one more is then refused at once, before anything is written. An account alone
on the server is not held to it, so a load run of many players under one account, or a writer
batch-playing their own chats at night, uses the whole server as before. With REDIS_URL the
count is every process's (chat/play/account_turns_shared.py); when Redis cannot be reached it
falls back to this process's own. A coroutine enters it through `account_turn_awaited`: with
Redis the look and the give run on a thread, not on the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator

from django.conf import settings

from chat.play.account_turns_shared import shared_turns
from personalab.lib.errors import AppError
from personalab.lib.filestore.store import FileStore
from personalab.lib.uncancelled import thread_whole

log = logging.getLogger(__name__)

SHARED_SECONDS = 60.0

_running: Counter[str] = Counter()
_last_active: dict[str, float] = {}  # account → when its last reply started or ended
_lock = threading.Lock()


class AccountTurnsBusy(AppError):
    def __init__(self, limit: int) -> None:
        super().__init__(f"your account already has {limit} replies being written while other "
                         f"accounts play; wait for one to end (PERSONALAB_TURNS_PER_ACCOUNT)",
                         code="account_turns",
                         status=429)


def chat_owner(store: FileStore, instance_id: str) -> str:
    """The chat's owner as its file names it; "" when it names none or cannot be read (the
    turn then says what is wrong itself)."""
    try:
        owner = store.instance_state_read(instance_id).get("owner")
    except Exception:  # noqa: BLE001 — the turn's own read reports it
        return ""
    return owner if isinstance(owner, str) else ""


@contextlib.contextmanager
def account_turn_held(store: FileStore, instance_id: str) -> Iterator[None]:
    """Holds one of the chat owner's replies at once, or raises AccountTurnsBusy (429)."""
    limit = settings.PERSONALAB_TURNS_PER_ACCOUNT
    owner = chat_owner(store, instance_id) if limit > 0 else ""
    if not owner:
        yield
        return
    url = getattr(settings, "REDIS_URL", "")
    member = _shared_taken(url, owner, limit) if url else None
    if member is not None:
        try:
            yield
        finally:
            shared_turns(url).give(member)
        return
    with _lock:
        now = time.monotonic()
        _quiet_forgotten(now)
        if _running[owner] >= limit and any(account != owner for account in _last_active):
            raise AccountTurnsBusy(limit)
        _running[owner] += 1
        _last_active[owner] = now
    try:
        yield
    finally:
        with _lock:
            _running[owner] -= 1
            if _running[owner] <= 0:
                del _running[owner]
            _last_active[owner] = time.monotonic()


@contextlib.asynccontextmanager
async def account_turn_awaited(store: FileStore, instance_id: str) -> AsyncIterator[None]:
    """`account_turn_held` for a coroutine. With REDIS_URL it is taken and given back on a
    thread: on the event loop, a Redis that stopped answering held every account's requests
    up to the client's 5 s timeout, twice a turn (tenth red-team pass). Without Redis it is a
    counter under a lock, kept on the loop (a thread hop costs more under load)."""
    if not getattr(settings, "REDIS_URL", ""):
        with account_turn_held(store, instance_id):
            yield
        return
    held = contextlib.ExitStack()
    try:
        await thread_whole(held.enter_context, account_turn_held(store, instance_id))
    except asyncio.CancelledError:  # taken meanwhile, maybe: given back before it is raised
        await thread_whole(held.close)
        raise
    try:
        yield
    finally:
        await thread_whole(held.close)


def _shared_taken(url: str, owner: str, limit: int) -> str | None:
    """A reply held in Redis, None when Redis cannot be reached (the count is then this
    process's); raises AccountTurnsBusy."""
    import redis  # the redis extra, installed where REDIS_URL is set

    try:
        member = shared_turns(url).take(owner, limit=limit, shared_seconds=SHARED_SECONDS)
    except redis.RedisError as exc:
        log.warning("replies at once counted in this process only: Redis: %s", exc)
        return None
    if member is None:
        raise AccountTurnsBusy(limit)
    return member


def _quiet_forgotten(now: float) -> None:
    """Keeps only the accounts with a reply running or ended within SHARED_SECONDS, so the
    table holds the last minute's players. Called under _lock."""
    for account, seen in list(_last_active.items()):
        if account not in _running and now - seen > SHARED_SECONDS:
            del _last_active[account]
