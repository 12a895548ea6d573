"""Variable files: a chat's own variables (SillyTavern's `chat_metadata.variables`) beside its
session file, and an account's global variables (SillyTavern keeps them in its settings; here
one file per account, never read by another account's chats).

    instances/{instance_id}/sessions/{session_id}.variables.json
        {"variables": {name: text}, "before": {"trace_id": id, "variables": {name: text}}}
    variables/{digest of the username}.json
        {"username": name, "variables": {name: text}}

`before` holds what the chat's variables were when the prompt of the reply `trace_id` began,
so a regenerate or continue of that reply starts from there again. Written atomically (temp,
fsync, rename): a kill -9 leaves the old or the new file.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from personalab.lib.filestore.account_modules import username_digest
from personalab.lib.filestore.jsonfile import read_json, write_json_atomic
from personalab.lib.filestore.layout import StoreLayout
from personalab.lib.ids import validate_id
from personalab.lib.macro_variables import variables_as_text
from personalab.lib.store_errors import StoreError


def session_variables_path(store: StoreLayout, *, instance_id: str, session_id: str) -> Path:
    return store.sessions_dir(instance_id) / (
        f"{validate_id(session_id, kind='session id')}.variables.json")


def session_variables_read(store: StoreLayout, *, instance_id: str,
                           session_id: str) -> dict[str, Any] | None:
    """The chat's variable file (`variables` as text, `before` when there is one), or None
    when the chat has none yet (or it cannot be read: the chat goes on from its import)."""
    path = session_variables_path(store, instance_id=instance_id, session_id=session_id)
    try:
        found = read_json(path, what=f"variables of {session_id}")
    except StoreError:
        return None
    if not isinstance(found, dict):
        return None
    document: dict[str, Any] = {"variables": variables_as_text(found.get("variables"))}
    before = found.get("before")
    if isinstance(before, dict) and isinstance(before.get("trace_id"), str):
        document["before"] = {"trace_id": before["trace_id"],
                              "variables": variables_as_text(before.get("variables"))}
    return document


def session_variables_write(store: StoreLayout, *, instance_id: str, session_id: str,
                            variables: dict[str, str],
                            before: dict[str, Any] | None = None) -> None:
    document: dict[str, Any] = {"variables": variables}
    if before is not None:
        document["before"] = before
    write_json_atomic(session_variables_path(store, instance_id=instance_id,
                                             session_id=session_id), document)


def session_variables_carry(store: StoreLayout, *, instance_id: str, session_id: str,
                            source_id: str | None) -> None:
    """A new session's variables: those of `source_id` (the session it branches from or
    continues; the chat goes on with them, as SillyTavern's branch keeps chat_metadata), or
    none: a file an unfinished earlier session of this id left is removed."""
    found = (session_variables_read(store, instance_id=instance_id, session_id=source_id)
             if source_id else None)
    if found is not None:
        session_variables_write(store, instance_id=instance_id, session_id=session_id,
                                variables=found["variables"])
    else:
        session_variables_path(store, instance_id=instance_id,
                               session_id=session_id).unlink(missing_ok=True)


def account_variables_path(store: StoreLayout, *, username: str) -> Path:
    return store.root / "variables" / f"{username_digest(username)}.json"


_held = threading.local()  # the usernames whose variables lock this thread holds


@contextlib.contextmanager
def account_variables_locked(store: StoreLayout, *, username: str | None) -> Iterator[None]:
    """The account's variables lock, held by this thread until the block ends (taken again
    inside it, it is already held; no username: nothing to hold). A turn holds it from reading
    the global variables to saving them: two chats' turns at once each added one to the same
    value read before either wrote (40 turns of {{incglobalvar}} in 4 chats counted 21)."""
    held = getattr(_held, "names", None)
    if held is None:
        held = _held.names = set()
    if not username or username in held:
        yield
        return
    path = account_variables_path(store, username=username)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = store.lock_factory(path.with_name(f".{path.stem}.lock"), f"variables-{path.stem}")
    with lock.acquire(blocking=True):
        held.add(username)
        try:
            yield
        finally:
            held.discard(username)


def account_variables_read(store: StoreLayout, *, username: str | None) -> dict[str, str]:
    if not username:
        return {}
    try:
        found = read_json(account_variables_path(store, username=username),
                          what="global variables")
    except StoreError:
        return {}
    if not isinstance(found, dict) or found.get("username") != username:
        return {}
    return variables_as_text(found.get("variables"))


def account_variables_update(store: StoreLayout, *, username: str, changes: dict[str, str],
                             clear: bool = False) -> dict[str, str]:
    """The account's global variables with `changes` written over them (all of them dropped
    first when `clear`), under the account's lock: two chats of one account may end a turn
    at the same moment, and each writes only the names its own prompt changed."""
    with account_variables_locked(store, username=username):
        variables = {} if clear else account_variables_read(store, username=username)
        variables.update(changes)
        write_json_atomic(account_variables_path(store, username=username),
                          {"username": username, "variables": variables})
    return variables
