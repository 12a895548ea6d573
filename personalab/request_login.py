"""Whether a request's session cookie or bearer token names a real login, read before Django
runs for a body past the anonymous allowance (personalab/body_limit.py): a made-up
`sessionid=` or `Authorization` header earned the signed-in allowance, so an anonymous client
could send 32 MB bodies that Django read whole (red team)."""

from __future__ import annotations

from importlib import import_module

from channels.db import database_sync_to_async
from django.conf import settings

from chat.models import ApiToken


def _cookie_value(cookie: str, name: str) -> str:
    return next((part.strip().partition("=")[2] for part in cookie.split(";")
                 if part.strip().startswith(f"{name}=")), "")


def _signed_in(cookie: str, authorization: str) -> bool:
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return ApiToken.objects.filter(token_hash=ApiToken.hash(token.strip())).exists()
    key = _cookie_value(cookie, settings.SESSION_COOKIE_NAME)
    if not key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore
    return store().exists(key)


async def request_signed_in(*, cookie: str, authorization: str) -> bool:
    """True when the bearer token or the session cookie is one the app issued and holds."""
    return await database_sync_to_async(_signed_in)(cookie, authorization)
