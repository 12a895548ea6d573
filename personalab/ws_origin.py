"""ASGI guard for WebSocket handshakes: the Origin must match scheme, host and port."""

from __future__ import annotations

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

from personalab.lib.origins import origin_allowed


class SameOriginValidator:
    """Allows the socket's own origin (Host header in ALLOWED_HOSTS) and CSRF_TRUSTED_ORIGINS."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not self._allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)

    @staticmethod
    def _allowed(scope) -> bool:
        headers = dict(scope.get("headers", []))
        origin = headers.get(b"origin", b"").decode("latin-1")
        host = headers.get(b"host", b"").decode("latin-1")
        if not validate_host(split_domain_port(host)[0], settings.ALLOWED_HOSTS):
            host = ""
        return origin_allowed(origin, scheme=scope.get("scheme", "ws"), host=host,
                              trusted=list(settings.CSRF_TRUSTED_ORIGINS))
