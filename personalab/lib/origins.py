"""Same-origin test for WebSocket handshakes: scheme, host and port, as a browser compares them.

Channels' AllowedHostsOriginValidator compares the host only, so a page on another port of the
same machine (another app, a dev server) could open an authenticated socket with the victim's
cookie; the cookie is per host, not per port.
"""

from __future__ import annotations

from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
WS_TO_HTTP = {"ws": "http", "wss": "https"}


def origin_key(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an http(s) origin, None when it is not one (e.g. "null")."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.username or parts.password:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def origin_allowed(origin: str, *, scheme: str, host: str, trusted: list[str]) -> bool:
    """True when `origin` is the socket's own origin (its scheme and Host header) or a trusted one."""
    key = origin_key(origin)
    if key is None:
        return False
    own = origin_key(f"{WS_TO_HTTP.get(scheme, scheme)}://{host}") if host else None
    return key == own or key in {origin_key(url) for url in trusted}
