"""Generation settings: an account's defaults and what a turn of an instance sends."""

from __future__ import annotations

from typing import Any

from chat.services.errors import InstanceUpdateError
from personalab.lib.filestore.store import FileStore
from personalab.lib.generation import GenerationError, generation_effective, generation_update


def generation_defaults_read(store: FileStore, *, user) -> dict[str, Any]:
    """The account's default generation settings (data/modules/generation.json)."""
    accounts = store.module_read("generation").get("accounts") or {}
    found = accounts.get(user.get_username()) if isinstance(accounts, dict) else None
    return dict(found) if isinstance(found, dict) else {}


def generation_defaults_update(store: FileStore, *, user, changes: Any) -> dict[str, Any]:
    username = user.get_username()
    result: dict[str, Any] = {}

    def updated(module: dict[str, Any]) -> dict[str, Any]:
        # Read and changed under the lock: `changes` may be partial, so the account's current
        # values must be the ones a save at the same moment left.
        accounts = module.get("accounts") if isinstance(module.get("accounts"), dict) else {}
        mine = accounts.get(username)
        try:
            result.update(generation_update(dict(mine) if isinstance(mine, dict) else {},
                                            changes))
        except GenerationError as error:
            raise InstanceUpdateError({f"generation.{k}": v for k, v in error.fields.items()}) \
                from None
        return {**module, "accounts": {**accounts, username: result}}

    store.module_update("generation", updated)
    return result


def generation_for_instance(store: FileStore, state: dict[str, Any]) -> dict[str, Any]:
    """What a turn of this instance sends: its own settings over its owner's defaults."""
    accounts = store.module_read("generation").get("accounts") or {}
    account = accounts.get(state.get("owner") or "") if isinstance(accounts, dict) else None
    own = state.get("generation")
    return generation_effective(account if isinstance(account, dict) else {},
                                own if isinstance(own, dict) else {})
