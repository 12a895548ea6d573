"""REST API under /api/v1/ (SPEC §7). Thin: parse, call a service, answer JSON."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator

from asgiref.sync import sync_to_async
from django.http import HttpRequest, JsonResponse, StreamingHttpResponse

from chat import services
from chat.apiutil import ApiError, api_view, json_body
from chat.models import Trace
from chat.turn import TurnRefused, turn_run, validate_user_text
from personalab.lib.ids import validate_id
from personalab.storage import get_store


# --- chat --------------------------------------------------------------------

async def _chat_request(request: HttpRequest) -> tuple[str, str, bool]:
    data = json_body(request)
    instance_id = data.get("instance_id")
    if not instance_id:
        raise ApiError(400, "missing_field", "instance_id is required")
    validate_id(instance_id, kind="instance id")
    await sync_to_async(services.instance_for_user)(request.user, instance_id)
    try:
        query = validate_user_text(data.get("query"))
    except TurnRefused as exc:
        raise ApiError(exc.status, exc.code, exc.message) from None
    return instance_id, query, bool(data.get("stream"))


@api_view(["POST"])
async def chat(request: HttpRequest):
    instance_id, query, stream = await _chat_request(request)
    if stream:
        return _chat_stream(instance_id, query)
    warnings: list[dict] = []

    async def emit(event: dict) -> None:
        if event.get("type") == "warning":
            warnings.append(event)

    try:
        result = await turn_run(get_store(), instance_id=instance_id, user_text=query, emit=emit)
    except TurnRefused as exc:
        raise ApiError(exc.status, exc.code, exc.message, trace_id=exc.trace_id) from None
    return JsonResponse({
        "trace_id": result.trace_id, "session_id": result.session_id,
        "instance_id": instance_id, "turn": result.turn, "answer_text": result.answer_text,
        "warnings": result.warnings, "interrupted": result.interrupted, "empty": result.empty,
        "error": result.error,
    })


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _chat_stream(instance_id: str, query: str) -> StreamingHttpResponse:
    events: asyncio.Queue = asyncio.Queue()
    stop = asyncio.Event()

    async def emit(event: dict) -> None:
        await events.put(event)

    async def run() -> None:
        try:
            result = await turn_run(get_store(), instance_id=instance_id, user_text=query,
                                    emit=emit, stop=stop)
            await events.put(result.done_event())
        except TurnRefused as exc:
            await events.put({"type": "error", "message": exc.message, "code": exc.code,
                              "trace_id": exc.trace_id})
        finally:
            await events.put(None)

    async def body() -> AsyncIterator[str]:
        task = asyncio.create_task(run())
        try:
            while (event := await events.get()) is not None:
                kind = event.get("type", "message")
                payload = {k: v for k, v in event.items() if k != "type"}
                if kind == "warning":
                    payload = event
                yield _sse(kind, payload)
        finally:
            # A client that goes away ends the stream like a stop; the reply stays in the file.
            stop.set()
            await asyncio.shield(task)

    response = StreamingHttpResponse(body(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


@api_view(["GET"])
def current_response(request: HttpRequest, instance_id: str, session_id: str) -> JsonResponse:
    """Seed reconnect: what the file holds for turn N (the single source of truth)."""
    services.instance_for_user(request.user, instance_id)
    store = get_store()
    read = services.session_read_repaired(store, instance_id, session_id)
    try:
        turn = int(request.GET.get("turn", read.last_turn))
    except ValueError:
        raise ApiError(400, "bad_turn", "turn must be an integer") from None
    reply = next((line for line in reversed(read.messages)
                  if line.get("role") == "assistant" and line.get("turn") == turn), None)
    streaming = read.partial is not None and read.partial.get("turn") == turn
    if streaming:
        reply = read.partial
    if reply is None:
        return JsonResponse({"turn": turn, "content": "", "status": "pending",
                             "session_id": session_id})
    status = "streaming" if streaming else "complete"
    return JsonResponse({"turn": turn, "session_id": session_id, "status": status,
                         "content": reply.get("content", ""),
                         **{k: reply[k] for k in ("interrupted", "empty", "error", "trace_id")
                            if k in reply}})


# --- sessions and traces -----------------------------------------------------

def _find_session(request: HttpRequest, session_id: str) -> str:
    validate_id(session_id, kind="session id")
    store = get_store()
    wanted = request.GET.get("instance_id")
    rows = services.instances_visible_to(request.user)
    if wanted:
        rows = rows.filter(instance_id=validate_id(wanted, kind="instance id"))
    owners = [row.instance_id for row in rows
              if store.session_path(row.instance_id, session_id).exists()]
    if not owners:
        raise ApiError(404, "not_found", f"session {session_id!r} not found")
    if len(owners) > 1:
        current = [row.instance_id for row in rows.filter(current_session_id=session_id)]
        if len(current) != 1:
            raise ApiError(400, "ambiguous_session",
                           f"session {session_id!r} exists in several instances; "
                           "add ?instance_id=…", instances=owners)
        return current[0]
    return owners[0]


@api_view(["GET", "DELETE"])
def session_detail(request: HttpRequest, session_id: str) -> JsonResponse:
    instance_id = _find_session(request, session_id)
    store = get_store()
    if request.method == "DELETE":
        return JsonResponse(services.session_archive_and_restart(
            store, instance_id=instance_id, session_id=session_id))
    return JsonResponse(services.session_summary(store, instance_id, session_id))


@api_view(["GET"])
def trace_detail(request: HttpRequest, trace_id: str) -> JsonResponse:
    validate_id(trace_id, kind="trace id")
    row = Trace.objects.filter(trace_id=trace_id).first()
    if row is None:
        raise ApiError(404, "not_found", f"trace {trace_id!r} not found")
    services.instance_for_user(request.user, row.instance_id)
    trace = get_store().trace_read(row.instance_id, trace_id)
    if request.GET.get("include_session") in ("1", "true"):
        trace["session_summary"] = services.session_summary(get_store(), row.instance_id,
                                                            trace["session_id"])
    return JsonResponse(trace)
