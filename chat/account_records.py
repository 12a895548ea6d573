"""What an account keeps besides its items, by its username: its generation and reading
defaults, prompt manager, regex scripts and the cards whose scripts it allowed, the books it
reads in every chat, its global variables, its kept SillyTavern tag names and the imports
waiting for its decision. An account may be deleted or renamed only while it owns no item
(chat/accounts.py); these records then go with it, or move to its new name. Left behind,
a new account given the old name would read them: another person's prompts, scripts and
variables."""

from __future__ import annotations

import shutil

from chat.import_export.import_check import pending_imports_dir
from chat.services.account_presets import MODULE as PRESETS_MODULE
from library.find_replace.services import KEYS as SCRIPTS_KEYS
from library.find_replace.services import MODULE as SCRIPTS_MODULE
from library.lore.global_books import MODULE as GLOBAL_BOOKS_MODULE
from library.lore.st_tag_list import st_tags_forget, st_tags_keep, st_tags_kept
from personalab.lib.filestore.account_modules import (
    Split,
    account_module_forget,
    account_module_move,
    account_module_split,
)
from personalab.lib.filestore.store import FileStore
from personalab.lib.filestore.variables import (
    account_variables_locked,
    account_variables_path,
    account_variables_read,
    account_variables_update,
)

# module -> the keys of its old shared file that held {username: the account's part}; each
# account's record of the module is a file of its own (personalab/lib/filestore/account_modules.py)
ACCOUNT_MODULES = {
    "generation": ("accounts",),
    "reading": ("accounts",),
    PRESETS_MODULE: ("accounts",),
    GLOBAL_BOOKS_MODULE: ("accounts",),
    SCRIPTS_MODULE: SCRIPTS_KEYS,
}


def account_records_forget(store: FileStore, *, username: str) -> None:
    """Every record kept for `username`, gone (the account was deleted)."""
    _modules_rekeyed(store, old=username, new=None)
    with account_variables_locked(store, username=username):
        account_variables_path(store, username=username).unlink(missing_ok=True)
    st_tags_forget(store, username=username)
    shutil.rmtree(pending_imports_dir(store, username=username), ignore_errors=True)


def account_records_move(store: FileStore, *, old: str, new: str) -> None:
    """Every record kept for `old`, now kept for `new` (the account was renamed). Whatever
    `new` held was left by a deleted account of that name: it belongs to nobody, and goes."""
    _modules_rekeyed(store, old=old, new=new)
    variables = account_variables_read(store, username=old)
    if variables:
        account_variables_update(store, username=new, changes=variables, clear=True)
    else:
        with account_variables_locked(store, username=new):
            account_variables_path(store, username=new).unlink(missing_ok=True)
    with account_variables_locked(store, username=old):
        account_variables_path(store, username=old).unlink(missing_ok=True)
    tags = st_tags_kept(store, username=old)
    st_tags_forget(store, username=new)
    if tags:
        st_tags_keep(store, username=new, names=tags)
    st_tags_forget(store, username=old)
    waiting, moved = (pending_imports_dir(store, username=old),
                      pending_imports_dir(store, username=new))
    shutil.rmtree(moved, ignore_errors=True)
    if waiting.is_dir():
        waiting.rename(moved)


def account_records_split(store: FileStore) -> dict[str, Split]:
    """Every record an older version left in a module's shared file, moved to the account's
    own file, module by module (a server's start, `manage.py account_records_split`)."""
    return {module: account_module_split(store, module=module, keys=keys)
            for module, keys in ACCOUNT_MODULES.items()}


def _modules_rekeyed(store: FileStore, *, old: str, new: str | None) -> None:
    for module, keys in ACCOUNT_MODULES.items():
        if new is None:
            account_module_forget(store, module=module, username=old, keys=keys)
        else:
            account_module_move(store, module=module, old=old, new=new, keys=keys)
