"""How many replies one account may have the model write at once in a server process
(PERSONALAB_TURNS_PER_ACCOUNT): turns, regenerates, continues, impersonations, group rounds and
asides. Each chat runs one reply at a time, but an account may own thousands of chats: bob's 60
turns at once over REST, on 60 of his chats, made alice's turn take 47 s instead of 0.5 s (their
preparation, recall and settling share the process's threads and CPU; eighth red-team pass).
One more is refused at once, before anything is written."""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Iterator

from django.conf import settings

from personalab.lib.errors import AppError
from personalab.lib.filestore.store import FileStore

_running: Counter[str] = Counter()
_lock = threading.Lock()


class AccountTurnsBusy(AppError):
    def __init__(self, limit: int) -> None:
        super().__init__(f"your account already has {limit} replies being written; wait for "
                         f"one to end (PERSONALAB_TURNS_PER_ACCOUNT)", code="account_turns",
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
    with _lock:
        if _running[owner] >= limit:
            raise AccountTurnsBusy(limit)
        _running[owner] += 1
    try:
        yield
    finally:
        with _lock:
            _running[owner] -= 1
            if _running[owner] <= 0:
                del _running[owner]
