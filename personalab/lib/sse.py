"""The whole lines of a server-sent-event stream, fed a network read at a time, in time linear
in the stream and with a cap on a line.

A hostile (or broken) endpoint can send one line of hundreds of megabytes with no newline.
Joining each read onto what was buffered copies the buffer every time (30 MB: 7-15 s of CPU
with every other account waiting; 200 MB: six minutes). Here a read is only searched for a
newline itself; the unfinished line waits as a list of reads, joined once when it ends, and a
line past `max_line_bytes` is refused as soon as it gets there.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

T = TypeVar("T")
# After `[DONE]`, how long and how much the body's end is waited for to keep the connection.
DRAIN_SECONDS = 0.05
DRAIN_BYTES = 65536
# After a read with nothing in it, the stream waits this long before the next: a flood of empty
# events then fills the socket's buffers and slows its sender instead of taking the event loop
# from every other account (7 of 11 CPU seconds without it). A real reply rarely has such a read
# (its first and last chunk), so it costs a reply a few ms at most.
USELESS_READ_PAUSE = 0.005


class LineTooLong(ValueError):
    def __init__(self, limit: int) -> None:
        super().__init__(f"the LLM sent a line of more than {limit:,} bytes without an end "
                         "(raise PERSONALAB_LLM_MAX_LINE_BYTES if the endpoint is trusted)")
        self.limit = limit


class SSELines:
    def __init__(self, *, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        self._parts: list[bytes] = []  # the unfinished line, read by read
        self._size = 0

    def feed(self, data: bytes) -> bytes:
        """The lines `data` completes, with their newlines (b"" when it completes none); the
        bytes after its last newline wait for the next read."""
        end = data.rfind(b"\n") + 1
        if not end:
            self._size += len(data)
            if self._size > self.max_line_bytes:
                raise LineTooLong(self.max_line_bytes)
            self._parts.append(data)
            return b""
        self._lines_check(data, end)
        lines = b"".join((*self._parts, data[:end])) if self._parts else data[:end]
        rest = data[end:]
        self._parts = [rest] if rest else []
        self._size = len(rest)
        if self._size > self.max_line_bytes:
            raise LineTooLong(self.max_line_bytes)
        return lines

    def _lines_check(self, data: bytes, end: int) -> None:
        if self._size + data.find(b"\n") > self.max_line_bytes:
            raise LineTooLong(self.max_line_bytes)
        if end <= self.max_line_bytes:  # no line inside this read can be longer
            return
        start = data.find(b"\n") + 1
        while start < end:
            stop = data.find(b"\n", start)
            if stop - start > self.max_line_bytes:
                raise LineTooLong(self.max_line_bytes)
            start = stop + 1


def lines_without_text(lines: bytes) -> bool:
    """Whether chat-completion `data:` lines surely carry no text, reasoning, error or end: only
    empty deltas, role-only chunks, keep-alives. A flood of those is then skipped with a few C
    scans of the read instead of parsing it chunk by chunk in Python, the work that took the
    event loop from every other account. A payload that is not an object is parsed (and
    refused) as usual."""
    if b'"error"' in lines or b"[DONE]" in lines or b'"reasoning' in lines:
        return False
    empty = lines.count(b'"content":""') + lines.count(b'"content": ""')
    objects = sum(map(lines.count, (b'data: {"', b'data:{"', b"data: {}", b"data:{}")))
    return lines.count(b'"content"') == empty and lines.count(b"data:") == objects


class StreamIdle(TimeoutError):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"the LLM sent nothing to show for {seconds:g}s (empty or keep-alive "
                         "events only): the reply was stopped (PERSONALAB_LLM_IDLE_SECONDS)")


async def reads_parsed(reads: AsyncIterator[bytes], parse: Callable[[bytes], list[T]], *,
                       idle_seconds: float, done: Callable[[], bool]) -> AsyncIterator[T]:
    """The items `parse` makes of each read, until `done()`. A stream whose reads parse to nothing (empty
    deltas, keep-alive comments, role-only chunks) for `idle_seconds` ends in StreamIdle,
    however fast they come: the read timeout alone never fires on such a stream. Between two
    reads the event loop runs other work (a read is at most 64 KB, its parse a few ms), so a
    fast stream never holds it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + idle_seconds
    while True:
        try:
            async with asyncio.timeout_at(deadline):
                data = await anext(reads, None)
        except TimeoutError:
            raise StreamIdle(idle_seconds) from None
        if data is None:
            return
        items = parse(data)
        if items:
            deadline = loop.time() + idle_seconds
        elif loop.time() >= deadline:
            raise StreamIdle(idle_seconds)
        for item in items:
            yield item
        if done():  # the rest of the body is the caller's to drain
            return
        await asyncio.sleep(0 if items else USELESS_READ_PAUSE)


async def rest_drained(chunks: AsyncIterator[bytes]) -> None:
    """What follows `[DONE]` (the body's end, usually in the same read), so the connection goes
    back to the pool for the next turn instead of being closed and opened again. A server
    that sends more, or holds the body open, gets its connection closed as before."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(DRAIN_SECONDS):
            drained = 0
            async for data in chunks:
                drained += len(data)
                if drained > DRAIN_BYTES:
                    return
