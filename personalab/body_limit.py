"""ASGI guard for request bodies: one over the largest upload the app takes is refused with a 413
before Django reads it.

Django parses a multipart body whole (CSRF middleware reads `request.POST` on any POST, the API
reads `request.FILES`) on the thread every synchronous view shares, and the upload's own size
checks come after that: four anonymous 250 MB posts to /login/ held every account's pages for
12 s. So a body is measured here, by its Content-Length and, for a chunked one, as it arrives.
A request with neither a session cookie nor an Authorization header can only log in or be
refused, so it gets a small allowance; a signed-in one, the largest upload
(settings.PERSONALAB_REQUEST_MAX_BYTES: a CHARX file and its multipart framing).
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings

from personalab.lib.errors import TooLarge

ANONYMOUS_MAX_BYTES = 64 * 1024


def body_max_bytes(*, cookie: str, authorization: bool) -> int:
    """How large a body a request may send: a signed-in one carries a session cookie or a
    bearer token (checked later, by Django; a forged one only earns the same allowance)."""
    signed_in = authorization or any(part.strip().startswith(f"{settings.SESSION_COOKIE_NAME}=")
                                     for part in cookie.split(";"))
    return settings.PERSONALAB_REQUEST_MAX_BYTES if signed_in else ANONYMOUS_MAX_BYTES


def too_large_json(limit: int) -> bytes:
    """The 413's body, in the API's error shape."""
    error = TooLarge(f"request body is larger than {limit // 2**20} MB" if limit >= 2**20
                     else "request body is too large; log in first")
    return json.dumps(error.as_json()).encode()


def _declared_length(scope: dict[str, Any]) -> int | None:
    value = dict(scope.get("headers") or []).get(b"content-length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


class BodyLimit:
    """Refuses an HTTP request whose body is larger than body_max_bytes allows."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.application(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        limit = body_max_bytes(cookie=headers.get(b"cookie", b"").decode("latin-1"),
                               authorization=b"authorization" in headers)
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            return await _refuse(send, limit)
        received = 0
        over = False
        started = False

        async def receive_counted() -> dict[str, Any]:
            nonlocal received, over
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    over = True  # Django takes a disconnect as an aborted request: no reply
                    return {"type": "http.disconnect"}
            return message

        async def send_watched(message: dict[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.application(scope, receive_counted, send_watched)
        if over and not started:
            await _refuse(send, limit)


async def _refuse(send: Any, limit: int) -> None:
    body = too_large_json(limit)
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
