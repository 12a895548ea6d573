"""An account's own regex scripts (SillyTavern's global scripts): they run in every chat of
the account, before the scripts of the chat's character. Kept in data/modules/regex_scripts.json
by account, as generation defaults are."""

from __future__ import annotations

from typing import Any

from library.regex_scripts import scripts_checked
from personalab.lib.filestore import FileStore

MODULE = "regex_scripts"


def regex_scripts_account_read(store: FileStore, *, username: str | None) -> list[dict[str, Any]]:
    """The account's scripts as stored (SillyTavern's shape); [] for none."""
    accounts = store.module_read(MODULE).get("accounts")
    found = accounts.get(username or "") if isinstance(accounts, dict) else None
    return list(found) if isinstance(found, list) else []


def regex_scripts_account_save(store: FileStore, *, user, scripts: Any) -> list[dict[str, Any]]:
    """Replace the account's scripts with `scripts`, each checked first (LibraryError with a
    sentence beside each field that cannot be used; nothing is written then)."""
    checked = scripts_checked(scripts)
    module = store.module_read(MODULE)
    accounts = module.get("accounts") if isinstance(module.get("accounts"), dict) else {}
    store.module_write(MODULE, {**module, "accounts": {**accounts,
                                                       user.get_username(): checked}})
    return checked
