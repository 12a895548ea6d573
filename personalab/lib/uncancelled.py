"""Work that must end whole though the request awaiting it is cancelled (its client gone): a
reply's line, a memory action's writes. The caller releases the instance lock only after it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

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
