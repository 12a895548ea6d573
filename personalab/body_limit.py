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

import html
import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from personalab.lib.errors import TooLarge
from personalab.reader_language import language_picked

ANONYMOUS_MAX_BYTES = 64 * 1024


def body_max_bytes(*, cookie: str, authorization: bool) -> int:
    """How large a body a request may send: a signed-in one carries a session cookie or a
    bearer token (checked later, by Django; a forged one only earns the same allowance)."""
    signed_in = authorization or any(part.strip().startswith(f"{settings.SESSION_COOKIE_NAME}=")
                                     for part in cookie.split(";"))
    return settings.PERSONALAB_REQUEST_MAX_BYTES if signed_in else ANONYMOUS_MAX_BYTES


def request_language(*, cookie: str, accepted: str) -> str:
    """The language a request reads (a 413 is answered before Django runs)."""
    chosen = next((part.strip().partition("=")[2] for part in cookie.split(";")
                   if part.strip().startswith(f"{settings.LANGUAGE_COOKIE_NAME}=")), "")
    return language_picked(chosen=chosen, accepted=accepted)


def too_large_reply(limit: int, *, path: str, referer: str = "",
                    language: str = "") -> tuple[bytes, bytes]:
    """The 413's content type and body, in `language` (English as it always read): the API's
    error shape for an API path; for a page's form (a card picked in the library), a page
    saying so with a way back, not bare JSON."""
    with translation.override(language or settings.LANGUAGE_CODE):
        message = (gettext("The upload is larger than the %(size)s MB the app takes.")
                   % {"size": limit // 2**20} if limit >= 2**20
                   else gettext("The request is too large; log in first."))
        title, back_words = gettext("Too large"), gettext("Back")
    if path.startswith("/api/"):
        return b"application/json", json.dumps(TooLarge(message).as_json()).encode()
    back = urlsplit(referer)
    back_path = back.path if back.path.startswith("/") and not back.path.startswith(("//", "/\\")) \
        else "/"  # "//host/…" (or "/\\host/…", as a browser reads it) would leave the site
    link = html.escape(back_path + (f"?{back.query}" if back.query else ""))
    page = (f'<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width, initial-scale=1"><title>{html.escape(title)}</title>'
            f'</head><body><p>{html.escape(message)}</p><p><a href="{link}">'
            f'{html.escape(back_words)}</a></p></body></html>')
    return b"text/html; charset=utf-8", page.encode()


def _declared_length(scope: dict[str, Any]) -> int | None:
    value = dict(scope.get("headers") or []).get(b"content-length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


class BodyLimit:
    """Refuses an HTTP request whose body is larger than body_max_bytes allows. With
    `signed_in` (an async check of the cookie and the Authorization header), a body past the
    anonymous allowance gets the signed-in one only when that login is real."""

    def __init__(self, application: Any,
                 signed_in: Callable[..., Awaitable[bool]] | None = None) -> None:
        self.application = application
        self.signed_in = signed_in

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.application(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        cookie = headers.get(b"cookie", b"").decode("latin-1")
        limit = body_max_bytes(cookie=cookie, authorization=b"authorization" in headers)
        declared = _declared_length(scope)
        if (limit > ANONYMOUS_MAX_BYTES and self.signed_in is not None
                and (declared is None or declared > ANONYMOUS_MAX_BYTES)
                and scope.get("method") not in ("GET", "HEAD")
                and not await self.signed_in(
                    cookie=cookie,
                    authorization=headers.get(b"authorization", b"").decode("latin-1"))):
            limit = ANONYMOUS_MAX_BYTES
        if declared is not None and declared > limit:
            return await _refuse(send, limit, scope)
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
            await _refuse(send, limit, scope)


async def _refuse(send: Any, limit: int, scope: dict[str, Any]) -> None:
    headers = dict(scope.get("headers") or [])
    content_type, body = too_large_reply(
        limit, path=str(scope.get("path") or ""),
        referer=headers.get(b"referer", b"").decode("latin-1"),
        language=request_language(cookie=headers.get(b"cookie", b"").decode("latin-1"),
                                  accepted=headers.get(b"accept-language", b"").decode("latin-1")))
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", content_type),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
