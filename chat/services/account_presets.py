"""An account's default prompt manager (its prompt blocks and its preset's regex scripts): new
chats start from it and a chat can reset to it, as SillyTavern's selected preset applies to
every chat. Importing a SillyTavern preset here also sets the account's default samplers.
Kept in data/modules/prompt_presets/accounts/, one file per account, as generation defaults are."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from chat.services.generation import generation_defaults_read, generation_defaults_update
from chat.services.presets import (
    manager_edited,
    manager_from_preset,
    manager_shown,
    preset_of,
    preset_sampling,
)
from personalab.lib.errors import Invalid
from personalab.lib.filestore.account_modules import account_module_read, account_module_update
from personalab.lib.filestore.store import FileStore

MODULE = "prompt_presets"
# One account's manager as stored, in characters: one file held every account's, read whole,
# and past 50 MB it read as empty for all (red team, twelfth pass). Each account's is in a file
# of its own now; the cap still bounds what one account's turns read.
ACCOUNT_MANAGER_MAX_CHARS = 2_000_000


def _stored(store: FileStore, username: str | None) -> dict[str, Any] | None:
    found = account_module_read(store, module=MODULE, username=username).get("accounts")
    return found if isinstance(found, dict) else None


def _write(store: FileStore, *, username: str,
           change: Callable[[dict[str, Any]], dict[str, Any] | None]) -> dict[str, Any]:
    """The account's manager changed by `change` (from the manager as shown; None: keep
    it), read and written under the account's lock: an edit may change only part of one."""
    result: dict[str, Any] = {}

    def written(record: dict[str, Any]) -> dict[str, Any] | None:
        found = record.get("accounts")
        manager = change(manager_shown(found if isinstance(found, dict) else None))
        if manager is None:
            return None
        _room_check(manager)
        result.update(manager)
        return {**record, "accounts": manager}

    account_module_update(store, module=MODULE, username=username, change=written)
    return result


def _room_check(manager: dict[str, Any]) -> None:
    size = len(json.dumps(manager, ensure_ascii=False, separators=(",", ":")))
    if size > ACCOUNT_MANAGER_MAX_CHARS:
        raise Invalid(f"at most {ACCOUNT_MANAGER_MAX_CHARS:,} characters of prompts and scripts "
                      f"are kept as an account's default; these come to {size:,}",
                      field="blocks")


def account_prompt_manager_read(store: FileStore, *, user) -> dict[str, Any]:
    """The account's default blocks, preset scripts (and whether they run), what its last
    preset import left out."""
    return manager_shown(_stored(store, user.get_username()))


def account_prompt_manager_update(store: FileStore, *, user, blocks: Any = None,
                                  regex_scripts: Any = None,
                                  regex_scripts_allowed: bool | None = None,
                                  utility: Any = None) -> dict[str, Any]:
    """Replace what is sent, each part checked first."""
    return _write(store, username=user.get_username(),
                  change=lambda current: manager_edited(
                      current, blocks=blocks, regex_scripts=regex_scripts,
                      regex_scripts_allowed=regex_scripts_allowed, utility=utility))


def account_preset_apply(store: FileStore, *, user, preset: Any,
                         source: str = "") -> dict[str, Any]:
    """A SillyTavern Chat Completion preset as the account's default: its samplers replace
    the account's default samplers, its prompts and scripts its default prompt manager."""
    # Checked before anything is written: a preset the manager refuses changes nothing.
    manager_from_preset(preset, account_prompt_manager_read(store, user=user), source)
    sampling = preset_sampling(preset)
    if sampling is not None:
        unset = {name: None for name in generation_defaults_read(store, user=user)}
        generation_defaults_update(store, user=user, changes={**unset, **sampling})
    _write(store, username=user.get_username(),
           change=lambda current: manager_from_preset(preset, current, source))
    return {"generation": sampling or {}, **account_prompt_manager_read(store, user=user)}


def account_preset_export(store: FileStore, *, user) -> dict[str, Any]:
    """The account's default samplers, blocks and preset scripts as a SillyTavern preset."""
    return preset_of(generation_defaults_read(store, user=user),
                     account_prompt_manager_read(store, user=user))


def account_prompt_manager_for_chat(store: FileStore, *, username: str | None) -> dict | None:
    """What a new chat of `username` starts from (a copy: the chat's edits stay its own), or
    None when the account set nothing."""
    found = _stored(store, username)
    if not found or not (found.get("blocks") or found.get("regex_scripts")):
        return None
    return copy.deepcopy(manager_shown(found))
