"""A player's time zone by its IANA name (`Asia/Shanghai`), as a browser reports it
(`Intl.DateTimeFormat().resolvedOptions().timeZone`). Framework-free. The name is user input:
bounded, only the characters zone names use (no `..`, no absolute path), then looked up in
the zone database; anything else is no zone (the server's clock)."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

MAX_ZONE_CHARS = 64
ZONE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+-]{0,30}(?:/[A-Za-z0-9_+-]{1,30}){0,2}")


def zone_named(name: object) -> ZoneInfo | None:
    """The zone called `name`, or None when it is not a zone's name."""
    if not isinstance(name, str) or len(name) > MAX_ZONE_CHARS or not ZONE_NAME.fullmatch(name):
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # a folder (`America`), not a zone file
        return None
