"""A chat's variables from one turn to the next (docs/decisions/macros.md, "Variables"): what
{{setvar}}, {{incvar}}... of the greeting, the player's messages, the card, the lore and the
author's note leave is saved with the chat (local) and with the account (global), as
SillyTavern saves `chat_metadata.variables` and its global variables.

When each runs, as SillyTavern 1.12.6: the greeting's variable macros once, when the chat
starts; a player's message's once, when it is sent; the prompt's texts at every prompt built
for a reply. A regenerate or continue of the last reply starts again from the variables its
first prompt started from (SillyTavern does not roll back; see the decision). A prompt built
and not sent as a turn (an impersonation, an inspection) saves nothing.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from chat.play.macros import imported_chat_variables, page_macro_values
from personalab.lib.filestore.store import FileStore
from personalab.lib.filestore.variables import (
    account_variables_locked,
    account_variables_read,
    account_variables_update,
    session_variables_path,
    session_variables_read,
    session_variables_write,
)
from personalab.lib.line_macros import last_messages_shown
from personalab.lib.macro_variables import MacroVariables, variables_merged
from personalab.lib.macros import macros_replace
from personalab.lib.store_errors import StoreError


@dataclass
class ChatVariables:
    """What a turn's prompt starts from: the chat's variables (`local`) and the account's
    (`shared`); `saved`: what the chat held before the turn; `shared_changes`: the global
    names the player's message wrote."""

    local: dict[str, str] = field(default_factory=dict)
    shared: dict[str, str] = field(default_factory=dict)
    saved: dict[str, str] = field(default_factory=dict)
    shared_changes: dict[str, str] = field(default_factory=dict)
    owner: str = ""
    player_text: str = ""


def chat_variables_read(store: FileStore, *, instance_id: str, session_id: str,
                        metadata: dict[str, Any]) -> dict[str, str]:
    """The chat's variables: its own file's, else what the SillyTavern chat it was imported
    from held (`chat_metadata.variables`)."""
    found = session_variables_read(store, instance_id=instance_id, session_id=session_id)
    return found["variables"] if found is not None else imported_chat_variables(metadata)


@contextmanager
def turn_variables_locked(store: FileStore, *, instance_id: str) -> Iterator[None]:
    """The chat owner's global variables held from a turn's load to its save (the caller holds
    the instance lock, taken first as everywhere)."""
    try:
        owner = store.instance_state_read(instance_id).get("owner")
    except StoreError:
        owner = None  # the turn's own read says why it cannot start
    with account_variables_locked(store, username=owner):
        yield


def turn_variables_load(store: FileStore, *, instance_id: str, session_id: str,
                        metadata: dict[str, Any], owner: str | None, redo_trace_id: str = "",
                        player_text: str = "", player_values: Mapping[str, str] | None = None,
                        player_seed: str = "") -> ChatVariables:
    """The variables a turn's prompt starts from. `redo_trace_id`: the reply a regenerate or
    continue replaces; `player_text`: the message the player is sending, whose macros are
    filled now, once, with `player_values` and these variables (its rolls drawn from
    `player_seed`, its {{pick}} by the chat), as SillyTavern's `sendMessageAsUser` fills a
    message and stores what it gave: the answer's `player_text`."""
    found = session_variables_read(store, instance_id=instance_id, session_id=session_id)
    saved = found["variables"] if found is not None else imported_chat_variables(metadata)
    before = (found or {}).get("before") or {}
    start = (before["variables"] if redo_trace_id and before.get("trace_id") == redo_trace_id
             else saved)
    variables = MacroVariables(base=start, shared_base=account_variables_read(
        store, username=owner))
    filled = player_text
    if player_text:
        filled = macros_replace(player_text, player_values or {}, variables=variables,
                                rng=random.Random(player_seed))
    local, shared = variables_merged(variables)
    return ChatVariables(local=local, shared=shared, saved=saved,
                         shared_changes=dict(variables.shared), owner=owner or "",
                         player_text=filled)


def turn_variables_save(store: FileStore, *, instance_id: str, session_id: str,
                        chat: ChatVariables, built: MacroVariables | None,
                        trace_id: str) -> None:
    """What the turn's prompt (`built`: its variables) left, saved: the chat's variables with
    what they were when this reply's prompt began (for its regenerate), the account's global
    names it wrote. Nothing is written when nothing changed."""
    local = variables_merged(built)[0] if built is not None else chat.local
    if local != chat.saved or chat.local != chat.saved:
        session_variables_write(store, instance_id=instance_id, session_id=session_id,
                                variables=local,
                                before={"trace_id": trace_id, "variables": chat.local})
    shared_changes = {**chat.shared_changes, **(built.shared if built is not None else {})}
    if shared_changes and chat.owner:
        account_variables_update(store, username=chat.owner, changes=shared_changes)


def greeting_variables_run(store: FileStore, *, instance_id: str, session_id: str,
                           lines: list[dict[str, Any]], owner: str | None) -> None:
    """The variable macros of a new chat's greetings, run once as the chat starts (SillyTavern
    fills the first message when it is first shown and keeps what it gave). The account's
    variables are held from their read to their save, as a turn holds them."""
    with account_variables_locked(store, username=owner):
        variables = MacroVariables(shared_base=account_variables_read(store, username=owner))
        for line in lines:
            content = line.get("content")
            if line.get("role") == "assistant" and isinstance(content, str) and "{{" in content:
                macros_replace(content, {}, variables=variables)
        if variables.local:
            session_variables_write(store, instance_id=instance_id, session_id=session_id,
                                    variables=dict(variables.local))
        if variables.shared and owner:
            account_variables_update(store, username=owner, changes=dict(variables.shared))


def stored_macros_fill(store: FileStore, *, instance_id: str, session_id: str,
                       line: dict[str, Any], text: str, metadata: dict[str, Any],
                       lines: list[dict[str, Any]]) -> str:
    """A message's text with its macros filled once, as it is stored outside a turn (an edit:
    SillyTavern's `updateMessage` stores `substituteParams(text)` for any message; a player's
    line a group round keeps unanswered): names for whoever said it, its rolls, and its
    variable macros against the chat's variables, whose changes are saved (`lines`: the chat
    from this line on, or before it; {{lastMessage}} is the newest)."""
    return stored_macros_filled(store, instance_id=instance_id, session_id=session_id,
                                line=line, text=text, metadata=metadata, lines=lines)[0]


@dataclass
class VariableChanges:
    """What one stored fill changed, name by name: (the value before or None, the value it
    left), for the chat (`local`) and the account (`shared`); `local_file_new`: the chat had
    no variable file before (it read its import's variables)."""

    local: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    shared: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    local_file_new: bool = False

    def as_json(self) -> dict[str, Any]:
        return {"local": {name: list(pair) for name, pair in self.local.items()},
                "global": {name: list(pair) for name, pair in self.shared.items()},
                "local_file_new": self.local_file_new}


def stored_macros_filled(store: FileStore, *, instance_id: str, session_id: str,
                         line: dict[str, Any], text: str, metadata: dict[str, Any],
                         lines: list[dict[str, Any]]) -> tuple[str, VariableChanges]:
    """stored_macros_fill's text, and what its variable macros changed (for the edit's undo)."""
    state = store.instance_state_read(instance_id)
    owner = state.get("owner")
    shown_with = page_macro_values(store, state=state, lines=lines)
    values = {**shown_with.for_line(line), **last_messages_shown(lines, shown_with)}
    found = session_variables_read(store, instance_id=instance_id, session_id=session_id)
    saved = found["variables"] if found is not None else imported_chat_variables(metadata)
    changes = VariableChanges()
    with account_variables_locked(store, username=owner):
        shared_base = account_variables_read(store, username=owner)
        variables = MacroVariables(base=saved, shared_base=shared_base)
        filled = macros_replace(text, values, variables=variables,
                                rng=random.Random(f"{line.get('turn')}:{line.get('timestamp')}"))
        local = variables_merged(variables)[0]
        if local != saved:  # a regenerate still starts from what its prompt started from
            session_variables_write(store, instance_id=instance_id, session_id=session_id,
                                    variables=local, before=(found or {}).get("before"))
            changes.local = _changed(saved, local)
            changes.local_file_new = found is None
        if variables.shared and owner:
            account_variables_update(store, username=owner, changes=dict(variables.shared))
            changes.shared = _changed(shared_base, {**shared_base, **variables.shared})
    return filled, changes


def _changed(before: Mapping[str, str], after: Mapping[str, str]
             ) -> dict[str, tuple[str | None, str]]:
    return {name: (before.get(name), value) for name, value in after.items()
            if before.get(name) != value}


def stored_variables_undo(store: FileStore, *, instance_id: str, session_id: str,
                          metadata: dict[str, Any], changes: Mapping[str, Any]) -> None:
    """Put back what one stored fill changed (`changes`: VariableChanges.as_json()), name by
    name, where the name still holds what the fill left: a value something else wrote since
    (another chat's global, a clear) stays. A chat that had no variable file before, and is
    back to what its import held, has none again."""
    state = store.instance_state_read(instance_id)
    owner = state.get("owner")
    with account_variables_locked(store, username=owner):
        found = session_variables_read(store, instance_id=instance_id, session_id=session_id)
        if found is not None:
            local = _undone(found["variables"], changes.get("local"))
            imported = imported_chat_variables(metadata)
            if changes.get("local_file_new") is True and local == imported:
                session_variables_path(store, instance_id=instance_id,
                                       session_id=session_id).unlink(missing_ok=True)
            elif local != found["variables"]:
                session_variables_write(store, instance_id=instance_id, session_id=session_id,
                                        variables=local, before=found.get("before"))
        if owner and changes.get("global"):
            shared = account_variables_read(store, username=owner)
            undone = _undone(shared, changes.get("global"))
            if undone != shared:
                account_variables_update(store, username=owner, changes=undone, clear=True)


def _undone(current: dict[str, str], changed: object) -> dict[str, str]:
    result = dict(current)
    if not isinstance(changed, dict):
        return result
    for name, pair in changed.items():
        if not (isinstance(pair, list) and len(pair) == 2) or result.get(name) != pair[1]:
            continue
        if isinstance(pair[0], str):
            result[name] = pair[0]
        else:
            result.pop(name, None)
    return result
