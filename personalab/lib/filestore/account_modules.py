"""An account's record of a module (its generation or reading defaults, default prompt manager,
global books, regex scripts and allowed cards): one file per account, read and written alone
under the account's lock, so one account's size never touches another's reads or writes.

    modules/{module}/accounts/{digest of the username}.json
        {"username": name, "record": {key: the account's part of that key}}

`key` is the key of the module's shared file (modules/{module}.json) that held every account's
part as {username: part} before: "accounts", and for regex scripts "allowed_cards" too.
A record still there is read from there while the account has no file of its own, and moves
to its own file at its first write (removed from the shared file under the module's lock), or
when the server starts (account_module_split, every record of the file at once, the same way;
`manage.py account_records_split` runs it alone): an upgraded data folder keeps none there.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from personalab.lib.filestore.jsonfile import read_json, write_json_atomic
from personalab.lib.ids import validate_id
from personalab.lib.locks import LockFactory
from personalab.lib.store_errors import MissingFile, StoreError

Record = dict[str, Any]  # {key of the shared file: the account's part of it}
ACCOUNTS = ("accounts",)


class ModuleStore(Protocol):
    root: Path
    lock_factory: LockFactory

    def module_read(self, module: str) -> dict[str, Any]: ...

    def module_path(self, module: str) -> Path: ...

    def module_update(self, module: str, change: Callable[[dict[str, Any]], dict | None]
                      ) -> dict[str, Any]: ...


def username_digest(username: str) -> str:
    """A username may hold characters a file name must not: files are named by its digest."""
    return hashlib.sha256(username.encode("utf-8", "replace")).hexdigest()[:40]


def account_module_path(store: ModuleStore, *, module: str, username: str) -> Path:
    return (store.root / "modules" / validate_id(module, kind="module") / "accounts"
            / f"{username_digest(username)}.json")


_held = threading.local()  # the (module, username) locks this thread holds


@contextlib.contextmanager
def account_module_locked(store: ModuleStore, *, module: str, username: str) -> Iterator[None]:
    """The account's lock for its record of `module` (taken again inside, already held)."""
    held = getattr(_held, "names", None)
    if held is None:
        held = _held.names = set()
    if (module, username) in held:
        yield
        return
    path = account_module_path(store, module=module, username=username)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = store.lock_factory(path.with_name(f".{path.stem}.lock"), f"{module}-{path.stem}")
    with lock.acquire(blocking=True):
        held.add((module, username))
        try:
            yield
        finally:
            held.discard((module, username))


def _own(store: ModuleStore, module: str, username: str, *, strict: bool = False
         ) -> Record | None:
    """The account's own file's record; None when it has no file yet. A file that cannot be
    read is read as empty, or raises when `strict` (a save never writes over it)."""
    path = account_module_path(store, module=module, username=username)
    try:
        found = read_json(path, what=f"{module} of an account")
    except MissingFile:
        return None
    except StoreError:
        if strict:
            raise
        return {}
    if not isinstance(found, dict) or found.get("username") != username:
        return {}
    record = found.get("record")
    return dict(record) if isinstance(record, dict) else {}


def _shared_part(shared: dict[str, Any], username: str, keys: tuple[str, ...]) -> Record:
    parts = {key: shared.get(key) for key in keys}
    return {key: found[username] for key, found in parts.items()
            if isinstance(found, dict) and username in found}


def _shared(store: ModuleStore, module: str, username: str, keys: tuple[str, ...]) -> Record:
    """The account's part of the module's shared file, read strictly: a file there that cannot
    be read raises (its record would be written over otherwise)."""
    try:
        stored = read_json(store.module_path(module), what=f"modules/{module}.json")
    except MissingFile:
        return {}
    return _shared_part(stored, username, keys) if isinstance(stored, dict) else {}


def account_module_read(store: ModuleStore, *, module: str, username: str | None,
                        keys: tuple[str, ...] = ACCOUNTS) -> Record:
    """The account's record: its own file's, or its part of the old shared file."""
    if not username:
        return {}
    own = _own(store, module, username)
    if own is not None:
        return own
    return _shared_part(store.module_read(module), username, keys)


def _shared_forget(store: ModuleStore, module: str, usernames: Collection[str],
                   keys: tuple[str, ...]) -> None:
    def forgotten(shared: dict[str, Any]) -> dict[str, Any] | None:
        if not any(_shared_part(shared, username, keys) for username in usernames):
            return None
        return {**shared, **{key: {name: part for name, part in shared[key].items()
                                   if name not in usernames}
                             for key in keys if isinstance(shared.get(key), dict)}}

    if store.module_path(module).exists():
        store.module_update(module, forgotten)


def account_module_update(store: ModuleStore, *, module: str, username: str,
                          change: Callable[[Record], Record | None],
                          keys: tuple[str, ...] = ACCOUNTS) -> Record:
    """The account's record changed by `change` (None: keep it) and written to its own file,
    under its lock. At its first write its part of the shared file moves out of it."""
    with account_module_locked(store, module=module, username=username):
        own = _own(store, module, username, strict=True)
        current = own if own is not None else _shared(store, module, username, keys)
        updated = change(dict(current))
        if updated is None:
            return current
        write_json_atomic(account_module_path(store, module=module, username=username),
                          {"username": username, "record": updated})
        if own is None and current:
            with contextlib.suppress(StoreError):  # its own file is read first from now on
                _shared_forget(store, module, {username}, keys)
        return updated


def account_module_forget(store: ModuleStore, *, module: str, username: str,
                          keys: tuple[str, ...] = ACCOUNTS) -> None:
    """The account's record gone, its own file and its part of the shared file."""
    with account_module_locked(store, module=module, username=username):
        path = account_module_path(store, module=module, username=username)
        had_own = path.exists()
        path.unlink(missing_ok=True)
        if had_own:  # its part moved out at its first write; a damaged shared file waits
            with contextlib.suppress(StoreError):
                _shared_forget(store, module, {username}, keys)
        else:
            _shared_forget(store, module, {username}, keys)


def account_module_move(store: ModuleStore, *, module: str, old: str, new: str,
                        keys: tuple[str, ...] = ACCOUNTS) -> None:
    """`old`'s record now `new`'s; whatever `new` held before goes."""
    with account_module_locked(store, module=module, username=old):
        record = account_module_read(store, module=module, username=old, keys=keys)
    account_module_forget(store, module=module, username=new, keys=keys)
    if record:
        account_module_update(store, module=module, username=new, keys=keys,
                              change=lambda current: record)
    account_module_forget(store, module=module, username=old, keys=keys)


def account_module_usernames(store: ModuleStore, *, module: str,
                             keys: tuple[str, ...] = ACCOUNTS) -> list[str]:
    """Every account with a record of `module`, in its own file or in the shared one."""
    names: set[str] = set()
    folder = store.root / "modules" / validate_id(module, kind="module") / "accounts"
    for path in folder.glob("*.json") if folder.is_dir() else ():
        with contextlib.suppress(StoreError):
            found = read_json(path, what=f"{module} of an account")
            if isinstance(found, dict) and isinstance(found.get("username"), str):
                names.add(found["username"])
    names.update(name for name in _shared_usernames(store.module_read(module), keys)
                 if isinstance(name, str))
    return sorted(names)


SPLIT_BATCH = 64  # accounts whose locks one rewrite of the shared file is made under


@dataclass
class Split:
    """What moving a module's records out of its shared file did."""

    moved: int = 0  # records written to a file of their own
    superseded: int = 0  # shared entries dropped: the account's own file is newer
    unreadable: dict[Path, str] = field(default_factory=dict)  # left as they were: why


def account_module_split(store: ModuleStore, *, module: str,
                         keys: tuple[str, ...] = ACCOUNTS) -> Split:
    """Every record still in the module's shared file moved to the account's own file, as
    each account's first write would: its own file written first, then its part removed
    from the shared file, so a run killed between the two loses nothing and the next run
    finishes it. An own file already there is newer and kept. A file that cannot be read is
    left as it is and reported."""
    split = Split()
    try:
        shared = read_json(store.module_path(module), what=f"modules/{module}.json")
    except MissingFile:
        return split
    except StoreError as error:
        split.unreadable[store.module_path(module)] = error.message
        return split
    usernames = sorted(_shared_usernames(shared, keys))
    for start in range(0, len(usernames), SPLIT_BATCH):
        _batch_split(store, module, usernames[start:start + SPLIT_BATCH], keys, split)
    return split


def _shared_usernames(shared: Any, keys: tuple[str, ...]) -> set[str]:
    if not isinstance(shared, dict):
        return set()
    return {name for key in keys if isinstance(shared.get(key), dict) for name in shared[key]}


def _batch_split(store: ModuleStore, module: str, usernames: list[str],
                 keys: tuple[str, ...], split: Split) -> None:
    # Locks taken in the usernames' order (every run sorts them), each account's before the
    # module's as a first write takes them: two runs at once never wait on each other in a ring.
    with contextlib.ExitStack() as held:
        for username in usernames:
            held.enter_context(account_module_locked(store, module=module, username=username))
        try:  # read again under the accounts' locks: a first write may have moved one since
            shared = read_json(store.module_path(module), what=f"modules/{module}.json")
        except StoreError as error:
            split.unreadable[store.module_path(module)] = error.message
            return
        if not isinstance(shared, dict):
            return
        settled = [username for username in usernames if _own_settled(
            store, module, username, split, _shared_part(shared, username, keys))]
        if settled:
            try:
                _shared_forget(store, module, set(settled), keys)
            except StoreError as error:
                split.unreadable[store.module_path(module)] = error.message


def _own_settled(store: ModuleStore, module: str, username: str, split: Split,
                 part: Record) -> bool:
    """The account's own file holds its record (written from `part` when it had none): its
    part of the shared file may go. False when it has no part or its own file is unreadable."""
    if not part:
        return False
    path = account_module_path(store, module=module, username=username)
    try:
        own = _own(store, module, username, strict=True)
    except StoreError as error:  # which of the two is newer cannot be told: both stay
        split.unreadable[path] = error.message
        return False
    if own is None:
        write_json_atomic(path, {"username": username, "record": part})
        split.moved += 1
    else:
        split.superseded += 1
    return True
