"""The books an account reads in every chat it owns: SillyTavern's globally selected world info
(`world_info.globalSelect`), which it keeps for its one user; here each account keeps its own
list, in data/modules/world_info_global/accounts/, one file per account. The turn reads them in the
`global` scope, after the background's books (chat/play/lore.py), and only while the account
may read them: a book its author makes private again drops out of others' chats, as a linked
one does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from library.fields import lorebook_ids_checked
from library.lore.st_settings import global_select_names
from library.selectors import lorebooks_named
from personalab.lib.filestore.account_modules import (
    account_module_read,
    account_module_update,
    account_module_usernames,
)
from personalab.lib.filestore.store import FileStore

MODULE = "world_info_global"
NAME_SHOWN_CHARS = 200  # a missing name as the answer repeats it


def global_lorebook_ids(store: FileStore, *, username: str | None) -> list[str]:
    """The account's books in all its chats, in the order it chose them."""
    found = account_module_read(store, module=MODULE, username=username).get("accounts")
    ids = found.get("lorebook_ids") if isinstance(found, dict) else None
    return [item for item in ids if isinstance(item, str)] if isinstance(ids, list) else []


def global_lorebooks_set(store: FileStore, *, user, lorebook_ids: Any) -> list[str]:
    """The account's books in all its chats, as a whole list: each one an existing book the
    account may read (a 400 naming `lorebook_ids` otherwise); one chosen before and since made
    unreadable may stay, as a link to it does."""
    current = global_lorebook_ids(store, username=user.get_username())
    chosen = lorebook_ids_checked(store, lorebook_ids, user=user, linked=current)
    return _update(store, username=user.get_username(), change=lambda ids: chosen)


def global_lorebook_choose(store: FileStore, *, user, lorebook_id: str, chosen: bool
                           ) -> list[str]:
    """One book added to or taken from the account's books in all its chats (two tabs at
    once each keep their change: the list is changed under the file's lock)."""
    if chosen:
        lorebook_ids_checked(store, [lorebook_id], user=user)
    return _update(store, username=user.get_username(), change=lambda ids: (
        [*ids, lorebook_id] if chosen and lorebook_id not in ids
        else [item for item in ids if chosen or item != lorebook_id]))


def global_lorebooks_from_settings(store: FileStore, *, user, data: bytes) -> dict[str, Any]:
    """The books a SillyTavern settings.json selects for every chat (`world_info.globalSelect`,
    by name), added to the account's: for each name the account's own book of that name.
    Names with no such book are listed (import the book,
    then again); nothing chosen before is taken away."""
    names = global_select_names(data)
    named = lorebooks_named(names, user=user)
    found = [{"name": name, "lorebook_id": named[name]} for name in names if name in named]
    ids = _update(store, username=user.get_username(), change=lambda ids: list(dict.fromkeys(
        [*ids, *(book["lorebook_id"] for book in found)])))
    return {"lorebook_ids": ids, "chosen": found,
            "missing": [_shown(name) for name in names if name not in named]}


def _shown(name: str) -> str:
    return name if len(name) <= NAME_SHOWN_CHARS else name[:NAME_SHOWN_CHARS - 1] + "…"


def _update(store: FileStore, *, username: str,
            change: Callable[[list[str]], list[str]]) -> list[str]:
    def written(record: dict[str, Any]) -> dict[str, Any]:
        found = record.get("accounts") if isinstance(record.get("accounts"), dict) else {}
        ids = found.get("lorebook_ids") if isinstance(found.get("lorebook_ids"), list) else []
        return {**record, "accounts": {
            **found, "lorebook_ids": change([i for i in ids if isinstance(i, str)])}}

    account_module_update(store, module=MODULE, username=username, change=written)
    return global_lorebook_ids(store, username=username)


def global_lorebook_forget(store: FileStore, *, lorebook_id: str) -> None:
    """A deleted book taken from every account's list (a book later made under the same id is
    not chosen by anyone)."""
    def written(record: dict[str, Any]) -> dict[str, Any] | None:
        found = record.get("accounts")
        if not isinstance(found, dict) or lorebook_id not in (found.get("lorebook_ids") or []):
            return None
        return {**record, "accounts": {**found, "lorebook_ids": [
            i for i in found.get("lorebook_ids") or [] if i != lorebook_id]}}

    for username in account_module_usernames(store, module=MODULE):
        account_module_update(store, module=MODULE, username=username, change=written)
