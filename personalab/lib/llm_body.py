"""An LLM answer that is not an event stream (a whole completion, an error body), read with a
cap on its size and on its time.

The SDK reads such a body whole with no limit: a hostile (or broken) endpoint answering a
summary with a 200 MB JSON body, a gzip bomb or a body that trickles a byte at a time kept the
memory action (and its memory) busy for as long as it liked. Here the body is read one network
read at a time, refused past `max_bytes` as soon as it gets there, and refused when it has not
ended `seconds` after its headers (a server writes a finished completion at once; the wait for
the model is before the headers and stays under the read timeout). Event streams have their own
line cap and idle time (personalab/lib/sse.py). The headers of every answer have a deadline of
their own (`headers_within`): httpx's timeouts are per read, so headers sent a byte at a time
would otherwise hold a call for hours.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import httpx2


class BodyTooLarge(ValueError):
    def __init__(self, limit: int) -> None:
        super().__init__(f"the LLM's answer is larger than {limit:,} bytes: it was refused "
                         "(raise PERSONALAB_LLM_MAX_BODY_BYTES if the endpoint is trusted)")


class BodyTooSlow(TimeoutError):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"the LLM's answer had not ended {seconds:g}s after it began: it was "
                         "stopped (PERSONALAB_LLM_BODY_SECONDS)")


class HeadersTooSlow(TimeoutError):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"the LLM had not sent its answer's headers {seconds:g}s after the "
                         "request: it was stopped (PERSONALAB_LLM_TIMEOUT)")


class BodyCompressed(ValueError):
    def __init__(self) -> None:
        # Compressed, a few kilobytes can unpack to gigabytes before any cap could look at them.
        super().__init__("the LLM compressed its answer, though asked not to: it was refused")


T = TypeVar("T")


def headers_deadline(*, connect_timeout: float, read_timeout: float) -> float:
    """Seconds a request may take until its answer's headers are in: the connection, the
    first byte within the read timeout (a model thinking before it answers), and as long again
    for the rest, which a server writes at once."""
    return connect_timeout + 2 * read_timeout


async def headers_within(request: Awaitable[T], *, seconds: float) -> T:
    """`request` (a call that returns once the answer's headers are in) within `seconds` in
    all, or HeadersTooSlow. The request is cancelled, so its connection is closed."""
    deadline = asyncio.timeout(seconds)
    try:
        async with deadline:
            return await request
    except TimeoutError:
        if deadline.expired():
            raise HeadersTooSlow(seconds) from None
        raise


def compressed(response: httpx2.Response) -> bool:
    return response.headers.get("content-encoding", "identity").strip().lower() not in (
        "", "identity")


async def reads_bounded(reads: AsyncIterator[bytes], *, max_bytes: int,
                        seconds: float) -> AsyncIterator[bytes]:
    """`reads` as they come, until more than `max_bytes` came (BodyTooLarge) or `seconds`
    passed (BodyTooSlow). The deadline is checked around each read, never across a yield, so
    it can only ever cancel a read of this body."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    size = 0
    while True:
        try:
            async with asyncio.timeout_at(deadline):
                data = await anext(reads, None)
        except TimeoutError:
            raise BodyTooSlow(seconds) from None
        if data is None:
            return
        size += len(data)
        if size > max_bytes:
            raise BodyTooLarge(max_bytes)
        yield data


async def body_read(response: httpx2.Response, *, max_bytes: int, seconds: float) -> bytes:
    """The whole body of `response` (opened as a stream), within the caps."""
    if compressed(response):
        raise BodyCompressed()
    parts = [data async for data in reads_bounded(response.aiter_raw(), max_bytes=max_bytes,
                                                  seconds=seconds)]
    return b"".join(parts)  # joined once: linear however the body was cut


class BoundedStream(httpx2.AsyncByteStream):
    """A response's raw stream within the caps, for the bodies the SDK reads itself."""

    def __init__(self, inner: httpx2.AsyncByteStream, *, max_bytes: int, seconds: float,
                 refuse: bool) -> None:
        self._inner, self._max_bytes, self._seconds = inner, max_bytes, seconds
        self._refuse = refuse

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._refuse:
            raise BodyCompressed()
        async for data in reads_bounded(aiter(self._inner), max_bytes=self._max_bytes,
                                        seconds=self._seconds):
            yield data

    async def aclose(self) -> None:
        await self._inner.aclose()


def errors_bounded(*, max_bytes: int,
                   seconds: float) -> Callable[[httpx2.Response], Awaitable[None]]:
    """A response hook for the SDK's client: an error answer (4xx/5xx, read whole by the SDK to
    quote its message) is read within the caps, and a compressed one is refused unread."""

    async def bound(response: httpx2.Response) -> None:
        if response.status_code >= 400:
            response.stream = BoundedStream(response.stream, max_bytes=max_bytes,
                                            seconds=seconds, refuse=compressed(response))

    return bound
