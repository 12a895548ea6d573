"""A turn as a stream of server-sent events: token / warning events, then always exactly one
`done` or `error`, whatever happens to the turn."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, AsyncIterator

from django.http import StreamingHttpResponse

from chat.followers import emit_published
from chat.group import conversation_turn, round_done_event
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


def chat_stream(instance_id: str, query: str, *, speaker: str | None = None
                ) -> StreamingHttpResponse:
    events: asyncio.Queue = asyncio.Queue()
    stop = asyncio.Event()

    async def emit(event: dict) -> None:
        await events.put(event)

    async def run() -> None:
        try:
            published = emit_published(instance_id, emit, origin=None)
            results = await conversation_turn(get_store(), instance_id=instance_id,
                                              user_text=query, emit=published, stop=stop,
                                              speaker=speaker)
            await published(round_done_event(results))
        except Exception as exc:  # noqa: BLE001 — a client must never wait for an end that never comes
            if not isinstance(exc, AppError):
                log.exception("turn of %s failed during an SSE stream", instance_id)
            await events.put(_error_event(exc))
        finally:
            await events.put(None)

    async def body() -> AsyncIterator[str]:
        task = asyncio.create_task(run())
        try:
            while (event := await events.get()) is not None:
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
