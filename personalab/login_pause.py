"""ASGI guard for login posts from an address whose logging in is paused (too many wrong
passwords from it, whatever the usernames: personalab/login_throttle.py): refused before Django
runs.

Each refused post cost a whole request on the thread every synchronous view shares (sessions,
CSRF, the login form, axes' two queries, the lockout page): a flood of them from a paused address
held other accounts' pages (red team, 2026-12-02). When axes refuses one by the address, the
address is remembered here for a few seconds, and the posts within them are answered from here.
Nothing is counted during a pause either way (AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT), so
the throttle is the same; after those seconds the next post goes through axes again, so a pause
that ended lets logging in through again within them. A pause lifted by deleting axes' attempts
(`axes_reset_ip`, `axes_reset`, the admin's delete) is honoured by every worker within 0.1 s: the
deletion writes a new token to a file in the data folder (shared by every worker,
docs/deploy.md), and a worker whose memory was filled under another token forgets it.
"""

from __future__ import annotations

import html
import secrets
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from personalab.body_limit import request_language
from personalab.lib.atomic import write_bytes_atomic

# What Django's middleware gives a page (django-csp, SecurityMiddleware, clickjacking), as
# strict as this page allows: its stylesheet, nothing else.
PAGE_HEADERS = [
    (b"content-security-policy", b"default-src 'none'; style-src 'self'; base-uri 'none'; "
                                 b"form-action 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin")]
REMEMBERED_SECONDS = 10.0
REMEMBERED_MAX = 10_000
LIFTS_FILE = "login_pause_lifts"
# On a shared volume (NFS) each open asks the server: a flood's posts share one read this often.
LIFTS_READ_SECONDS = 0.1
_paused_until: dict[str, float] = {}  # address -> time.monotonic() the memory lasts until
_lift_seen: str | None = None  # the lifts file's token when _paused_until was filled
_lifts_read_at = float("-inf")


def _lifts_path() -> Path:
    return Path(settings.PERSONALAB_DATA_DIR) / LIFTS_FILE


def login_pause_lifts_read() -> str | None:
    """The token the last lift wrote ("" before any); None when the file cannot be read, and
    then nothing is remembered. The guard reads it on the event loop: one small file, no query."""
    try:
        with open(_lifts_path(), "rb") as lifts:
            return lifts.read(64).decode("ascii", "replace")
    except FileNotFoundError:
        return ""
    except OSError:
        return None


def login_pause_lift() -> None:
    """Every worker forgets the addresses it remembered: axes' attempts were deleted."""
    write_bytes_atomic(_lifts_path(),
                       secrets.token_hex(16).encode(), durable=False)


def _lift_noticed(token: str | None) -> bool:
    global _lift_seen
    if token is not None and token == _lift_seen:
        return False
    _paused_until.clear()
    _lift_seen = token
    return True


def login_pause_remember(address: str | None, lift_before: str | None = None) -> None:
    """Called when axes refused a post because its address is paused; `lift_before` is the
    lifts token read before axes looked its attempts up."""
    if not address or settings.AXES_CLIENT_IP_CALLABLE:
        return  # an address this guard cannot read the same way (scope["client"]) is not kept
    token = login_pause_lifts_read()
    if token is None or (lift_before is not None and lift_before != token):
        return  # lifted while axes was refusing it: the refusal may be stale already
    _lift_noticed(token)
    now = time.monotonic()
    if len(_paused_until) >= REMEMBERED_MAX:
        # list() copies at once: the event loop's thread pops from it meanwhile
        for stale in [key for key, until in list(_paused_until.items()) if until <= now]:
            _paused_until.pop(stale, None)
        if len(_paused_until) >= REMEMBERED_MAX:
            return  # that many paused at once: they go through axes, as before
    _paused_until[address] = now + REMEMBERED_SECONDS


def login_pause_forget() -> None:
    global _lifts_read_at
    _lift_noticed(None)
    _lifts_read_at = float("-inf")


def _lifted() -> bool:
    global _lifts_read_at
    now = time.monotonic()
    if now - _lifts_read_at < LIFTS_READ_SECONDS:
        return False
    _lifts_read_at = now
    return _lift_noticed(login_pause_lifts_read())


def _remembered(address: str) -> bool:
    until = _paused_until.get(address)
    if until is None:
        return False
    if until <= time.monotonic():
        _paused_until.pop(address, None)
        return False
    return not _lifted()


def _login_paths() -> tuple[str, ...]:
    return reverse("login"), reverse("admin:login")


def paused_reply(language: str) -> bytes:
    """The page a refused post gets here: the lockout page's words, on the app's style."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    with translation.override(language or settings.LANGUAGE_CODE):
        words = [gettext("Log in"),
                 gettext("Too many failed logins from this address (%(failure_limit)s wrong "
                         "passwords, whatever the username).") % {
                     "failure_limit": settings.PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT},
                 gettext("Logging in is paused for %(minutes)s minutes; try again later, or ask "
                         "an administrator to reset it") % {"minutes": minutes},
                 gettext("Back to the login page")]
    title, limit, pause, back = (html.escape(text) for text in words)
    return (f'<!doctype html><html lang="{html.escape(language)}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{title} · PersonaLab</title><link rel="stylesheet" '
            f'href="{html.escape(static("app.css"))}"></head><body><main>'
            f'<section class="card narrow"><h1>{title}</h1><p class="error" id="login-locked">'
            f'{limit} {pause} (<code>python manage.py axes_reset_ip ADDRESS</code>).</p>'
            f'<p><a href="{html.escape(reverse("login"))}">{back}</a></p></section></main>'
            f'</body></html>').encode()


class LoginPauseGuard:
    """Answers a login post from a remembered paused address with axes' status (429)."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        client = scope.get("client") or ("",)
        if (scope["type"] != "http" or scope.get("method") != "POST" or not _paused_until
                or scope.get("path") not in _login_paths() or not _remembered(str(client[0]))):
            return await self.application(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        body = paused_reply(request_language(
            cookie=headers.get(b"cookie", b"").decode("latin-1"),
            accepted=headers.get(b"accept-language", b"").decode("latin-1")))
        await send({"type": "http.response.start", "status": settings.AXES_HTTP_RESPONSE_CODE,
                    "headers": [(b"content-type", b"text/html; charset=utf-8"),
                                (b"content-length", str(len(body)).encode()),
                                (b"cache-control", b"no-store"), *PAGE_HEADERS]})
        await send({"type": "http.response.body", "body": body})
