"""Work that must end whole though the request awaiting it is cancelled (its client gone): a
reply's line, a memory action's writes. The caller releases the instance lock only after it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def run_whole(work: Awaitable[T]) -> T:
    """`work` run to its end even when this coroutine is cancelled meanwhile; the cancellation
    is raised after it."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return task.result()


async def thread_whole(work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`work(*args, **kwargs)` on a thread, awaited to its end though the request is cancelled
    meanwhile (the cancellation is raised after). A thread cannot be stopped: awaited plainly,
    a cancelled turn left the chat's lock and the account's count of replies at once
    (chat/play/account_turns.py) while its preparation ran on, writing the player's line
    (ninth red-team pass)."""
    return await run_whole(asyncio.to_thread(work, *args, **kwargs))
