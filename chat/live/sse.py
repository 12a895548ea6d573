"""A turn (or an aside) as a stream of server-sent events: token / warning events, then always
exactly one `done` (`aside_done`) or `error`, whatever happens to it."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, AsyncIterator

from django.http import StreamingHttpResponse
from django.utils import translation

from chat.groups.round import conversation_turn, round_done_event
from chat.live.followers import emit_published
from chat.live.refusal_words import event_said
from chat.play.aside import aside_run
from chat.play.impersonate import impersonate_run
from chat.play.redo import redo_run
from personalab.lib.errors import AppError
from personalab.storage import get_store

log = logging.getLogger(__name__)


def sse_event(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _error_event(exc: Exception) -> dict[str, Any]:
    if isinstance(exc, AppError):
        return {"type": "error", "message": exc.message, "code": exc.code,
                "trace_id": getattr(exc, "trace_id", None)}
    return {"type": "error", "code": "internal",
            "message": f"the turn failed unexpectedly ({type(exc).__name__}); "
                       "what was written so far is kept in the session file"}


Work = Callable[[Callable[[dict], Awaitable[None]], asyncio.Event], Awaitable[None]]


def chat_stream(instance_id: str, query: str, *, speaker: str | None = None
                ) -> StreamingHttpResponse:
    async def work(emit, stop: asyncio.Event) -> None:
        published = emit_published(instance_id, emit, origin=None)
        results = await conversation_turn(get_store(), instance_id=instance_id,
                                          user_text=query, emit=published, stop=stop,
                                          speaker=speaker)
        await published(round_done_event(results))
    return sse_response(work, what=f"turn of {instance_id}")


def redo_stream(instance_id: str, *, action: str) -> StreamingHttpResponse:
    """Regenerate or continue as server-sent events, ending in the reply's `done`."""
    async def work(emit, stop: asyncio.Event) -> None:
        published = emit_published(instance_id, emit, origin=None)
        done, _text = await redo_run(instance_id, action=action, emit=published, stop=stop)
        await published(done)
    return sse_response(work, what=f"{action} of {instance_id}")


def aside_stream(instance_id: str, query: str, *, speaker: str | None = None
                 ) -> StreamingHttpResponse:
    """An aside as server-sent events: `aside_token` events, then one `aside_done` (or
    `error`); a client that goes away stops it."""
    async def work(emit, stop: asyncio.Event) -> None:
        result = await aside_run(get_store(), instance_id=instance_id, speaker=speaker,
                                 content=query, emit=emit, stop=stop)
        await emit(result.done_event())
    return sse_response(work, what=f"aside of {instance_id}")


def impersonate_stream(instance_id: str) -> StreamingHttpResponse:
    """A suggestion for the player's next message as `impersonate_token` events, then one
    `impersonate_done` (or `error`); a client that goes away stops it."""
    async def work(emit, stop: asyncio.Event) -> None:
        result = await impersonate_run(get_store(), instance_id=instance_id, emit=emit,
                                       stop=stop)
        await emit(result.done_event())
    return sse_response(work, what=f"impersonation in {instance_id}")


def sse_response(work: Work, *, what: str) -> StreamingHttpResponse:
    """`work(emit, stop)` as a text/event-stream that always ends in its last event or one
    `error`."""
    events: asyncio.Queue = asyncio.Queue()
    stop = asyncio.Event()
    # The request's language (LocaleMiddleware: the cookie, else Accept-Language), held for the
    # body, which runs after the view has returned: refusals and warnings are said in it.
    language = translation.get_language()

    async def emit(event: dict) -> None:
        await events.put(event)

    async def run() -> None:
        try:
            with translation.override(language):
                await work(emit, stop)
        except Exception as exc:  # noqa: BLE001 — a client must never wait for an end that never comes
            if not isinstance(exc, AppError):
                log.exception("%s failed during an SSE stream", what)
            await events.put(_error_event(exc))
        finally:
            await events.put(None)

    async def body() -> AsyncIterator[str]:
        task = asyncio.create_task(run())
        try:
            while (event := await events.get()) is not None:
                with translation.override(language):
                    event = event_said(event)
                kind = event.get("type", "message")
                payload = event if kind == "warning" else {
                    k: v for k, v in event.items() if k != "type"}
                yield sse_event(kind, payload)
        finally:
            # A client that goes away ends the stream like a stop; the reply stays in the file.
            stop.set()
            await asyncio.shield(task)

    response = StreamingHttpResponse(body(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
