"""An account's reading settings (data/modules/reading.json, one entry per account)."""

from __future__ import annotations

from typing import Any

from personalab.lib.filestore.store import FileStore
from personalab.lib.reading import READING_DEFAULTS, reading_whole


def reading_settings_read(store: FileStore, *, user) -> dict[str, Any]:
    """The account's reading settings, every one (defaults for those never set)."""
    if not user.is_authenticated:
        return dict(READING_DEFAULTS)
    accounts = store.module_read("reading").get("accounts")
    return reading_whole(accounts.get(user.get_username()) if isinstance(accounts, dict) else None)


def reading_settings_update(store: FileStore, *, user, changes: dict[str, Any]) -> dict[str, Any]:
    """`changes` (already checked) over the account's settings; the whole settings back."""
    username = user.get_username()
    result: dict[str, Any] = {}

    def updated(module: dict[str, Any]) -> dict[str, Any]:
        # Read and changed under the module's lock: another account may save at the same moment.
        accounts = module.get("accounts") if isinstance(module.get("accounts"), dict) else {}
        result.update(reading_whole({**reading_whole(accounts.get(username)), **changes}))
        return {**module, "accounts": {**accounts, username: result}}

    store.module_update("reading", updated)
    return result


def reading_time_zone(store: FileStore, *, username: object) -> str:
    """The IANA name of the time zone the account's browser reported, "" when none is kept (or
    a kept one is no zone): the clock macros of that account's chats read it."""
    accounts = store.module_read("reading").get("accounts")
    if not isinstance(username, str) or not isinstance(accounts, dict):
        return ""
    return str(reading_whole(accounts.get(username))["time_zone"])
