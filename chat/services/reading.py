"""An account's reading settings (data/modules/reading/accounts/, one file per account)."""

from __future__ import annotations

from typing import Any

from personalab.lib.filestore.account_modules import account_module_read, account_module_update
from personalab.lib.filestore.store import FileStore
from personalab.lib.reading import READING_DEFAULTS, reading_whole


def reading_settings_read(store: FileStore, *, user) -> dict[str, Any]:
    """The account's reading settings, every one (defaults for those never set)."""
    if not user.is_authenticated:
        return dict(READING_DEFAULTS)
    return reading_whole(_stored(store, user.get_username()))


def _stored(store: FileStore, username: str) -> Any:
    return account_module_read(store, module="reading", username=username).get("accounts")


def reading_settings_update(store: FileStore, *, user, changes: dict[str, Any]) -> dict[str, Any]:
    """`changes` (already checked) over the account's settings; the whole settings back."""
    username = user.get_username()
    result: dict[str, Any] = {}

    def updated(record: dict[str, Any]) -> dict[str, Any]:
        # Read and changed under the account's lock: another tab may save at the same moment.
        result.update(reading_whole({**reading_whole(record.get("accounts")), **changes}))
        return {**record, "accounts": result}

    account_module_update(store, module="reading", username=username, change=updated)
    return result


def reading_time_zone(store: FileStore, *, username: object) -> str:
    """The IANA name of the time zone the account's browser reported, "" when none is kept (or
    a kept one is no zone): the clock macros of that account's chats read it."""
    if not isinstance(username, str) or not username:
        return ""
    return str(reading_whole(_stored(store, username))["time_zone"])
