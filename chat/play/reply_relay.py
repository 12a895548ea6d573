"""A reply on its way from the model to the player, file first: `reply_relay` writes each piece
of the stream to the reply's line as it arrives and hands what was written on; `ReplyPush`
turns that into the events a page gets (`token` with its offset and the reply as shown,
`reasoning`), the first one naming who speaks.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, AsyncIterator, Awaitable, Callable

from personalab.lib.filestore.writer import AssistantLineWriter
from personalab.lib.reasoning import Reasoning
from personalab.lib.reply_stream import ReplyShownPaced

Emit = Callable[[dict[str, Any]], Awaitable[None]]


class ReplyPush:
    """The events of one reply. One at a time: the shown text's changes apply in the order
    they were worked out. `shown` (who speaks) rides on the first event."""

    def __init__(self, emit: Emit, cleaner: ReplyShownPaced, *, offset: int,
                 shown: dict[str, Any], started: float) -> None:
        self.emit = emit
        self.cleaner = cleaner
        self.offset = offset  # lets a follower that joined mid-reply skip what the file gave it
        self.unnamed = [shown]  # emptied by the first event
        self.started = started  # time.perf_counter() when the reply's line opened
        self.first_token_ms: float | None = None
        self._in_order = asyncio.Lock()
        self._late: list[asyncio.Task] = []  # the one update held back, if any

    @property
    def named_yet(self) -> bool:
        return not self.unnamed

    def _named(self, event: dict[str, Any]) -> dict[str, Any]:
        return {**event, **self.unnamed.pop()} if self.unnamed else event

    async def reasoning(self, text: str) -> None:
        await self.emit(self._named({"type": "reasoning", "content": text}))

    async def token(self, text: str) -> None:
        if self.first_token_ms is None:
            self.first_token_ms = round((time.perf_counter() - self.started) * 1000, 2)
        async with self._in_order:
            event = self._named({"type": "token", "content": text, "offset": self.offset})
            # The reply as the player sees it: its first `shown_at` characters, then `shown`.
            if (change := self.cleaner.feed(text)) is not None:
                event["shown_at"], event["shown"] = change
            elif not self._late or self._late[0].done():
                self._late[:] = [asyncio.create_task(self._push_late())]
            self.offset += len(text)
            await self.emit(event)

    async def _push_late(self) -> None:
        """What a paced update held back, shown once its interval is over though no piece came
        after it: a model that paused left the player reading text that was stale."""
        await asyncio.sleep(self.cleaner.every)
        async with self._in_order:
            if (change := self.cleaner.flush()) is not None:
                await self.emit({"type": "token", "content": "", "offset": self.offset,
                                 "shown_at": change[0], "shown": change[1]})

    async def end(self) -> None:
        """The stream is over: a held-back update being sent ends first, then what came since
        the last update is shown."""
        async with self._in_order:
            self.late_cancel()
            if (change := self.cleaner.flush()) is not None:
                await self.emit(self._named({"type": "token", "content": "",
                                             "offset": self.offset, "shown_at": change[0],
                                             "shown": change[1]}))

    def late_cancel(self) -> None:
        """A stream that failed shows no update after its end."""
        for task in self._late:
            task.cancel()


async def reply_relay(pieces: AsyncIterator[str], writer: AssistantLineWriter,
                 push: Callable[[str], Awaitable[None]],
                 push_reasoning: Callable[[str], Awaitable[None]]) -> None:
    """File first, then push. Each piece (the SSE reader joins the chunks of one network read
    into one) is written to the file as it arrives, whatever the client's speed; `push` gets
    the text written since its last call, joined, never waiting for more. So the file and the
    socket are paid per read, not per chunk, and a slow client gets the backlog in one frame.
    Reasoning pieces take the same path to `push_reasoning`."""
    unwritten: list[str] = []
    written: list[str] = []
    thinking: list[str] = []  # reasoning read, not yet kept
    thought: list[str] = []  # reasoning kept, not yet pushed
    ended: list[BaseException | None] = []
    wake = asyncio.Event()

    def flush() -> None:
        if (unwritten or thinking) and not ended:
            try:
                if thinking:
                    writer.reasoning_append("".join(thinking))
                    thought.append("".join(thinking))
                if unwritten:
                    writer.append_many(unwritten)
                    written.append("".join(unwritten))
            except Exception as exc:  # noqa: BLE001 — a full disk ends the reply, raised below
                ended.append(exc)
            thinking.clear()
            unwritten.clear()
            wake.set()

    async def read() -> None:
        failure: BaseException | None = None
        try:
            async with contextlib.aclosing(pieces):
                async for piece in pieces:
                    (thinking if isinstance(piece, Reasoning) else unwritten).append(piece)
                    flush()
                    if ended:
                        return
        except Exception as exc:  # noqa: BLE001 — raised below, after the pieces before it
            failure = exc
        finally:
            flush()
            ended.append(failure)
            wake.set()

    reader = asyncio.create_task(read())
    try:
        while True:
            await wake.wait()
            wake.clear()
            if thought:
                text = "".join(thought)
                thought.clear()
                await push_reasoning(text)
            if written:
                text = "".join(written)
                written.clear()
                await push(text)
            if ended and not written:
                failure = next((item for item in ended if item is not None), None)
                if failure is not None:
                    raise failure
                return
    finally:
        reader.cancel()  # a stopped reply closes the LLM stream
        with contextlib.suppress(asyncio.CancelledError):
            await reader
