"""Generation settings: an account's defaults and what a turn of an instance sends."""

from __future__ import annotations

from typing import Any

from chat.services.errors import InstanceUpdateError
from personalab.lib.filestore.account_modules import account_module_read, account_module_update
from personalab.lib.filestore.store import FileStore
from personalab.lib.generation import GenerationError, generation_effective, generation_update


def generation_defaults_read(store: FileStore, *, user) -> dict[str, Any]:
    """The account's default generation settings (data/modules/generation/accounts/)."""
    return _defaults(store, user.get_username())


def _defaults(store: FileStore, username: str | None) -> dict[str, Any]:
    found = account_module_read(store, module="generation", username=username).get("accounts")
    return dict(found) if isinstance(found, dict) else {}


def generation_defaults_update(store: FileStore, *, user, changes: Any) -> dict[str, Any]:
    username = user.get_username()
    result: dict[str, Any] = {}

    def updated(record: dict[str, Any]) -> dict[str, Any]:
        # Read and changed under the lock: `changes` may be partial, so the account's current
        # values must be the ones a save at the same moment left.
        mine = record.get("accounts")
        try:
            result.update(generation_update(dict(mine) if isinstance(mine, dict) else {},
                                            changes))
        except GenerationError as error:
            raise InstanceUpdateError({f"generation.{k}": v for k, v in error.fields.items()}) \
                from None
        return {**record, "accounts": result}

    account_module_update(store, module="generation", username=username, change=updated)
    return result


def generation_for_instance(store: FileStore, state: dict[str, Any]) -> dict[str, Any]:
    """What a turn of this instance sends: its own settings over its owner's defaults."""
    owner = state.get("owner")
    account = _defaults(store, owner if isinstance(owner, str) else None)
    own = state.get("generation")
    return generation_effective(account,
                                own if isinstance(own, dict) else {})
