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
    try:
        updated = generation_update(generation_defaults_read(store, user=user), changes)
    except GenerationError as error:
        raise InstanceUpdateError({f"generation.{k}": v for k, v in error.fields.items()}) \
            from None
    module = store.module_read("generation")
    accounts = module.get("accounts") if isinstance(module.get("accounts"), dict) else {}
    store.module_write("generation", {**module, "accounts": {
        **accounts, user.get_username(): updated}})
    return updated


def generation_for_instance(store: FileStore, state: dict[str, Any]) -> dict[str, Any]:
    """What a turn of this instance sends: its own settings over its owner's defaults."""
    accounts = store.module_read("generation").get("accounts") or {}
    account = accounts.get(state.get("owner") or "") if isinstance(accounts, dict) else None
    own = state.get("generation")
    return generation_effective(account if isinstance(account, dict) else {},
                                own if isinstance(own, dict) else {})
