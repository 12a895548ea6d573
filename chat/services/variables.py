"""A chat's variables as a player sees and clears them (SillyTavern's `chat_metadata.variables`
and its global variables; docs/decisions/macros.md, "Variables")."""

from __future__ import annotations

from typing import Any, Literal

from chat.play.variables import chat_variables_read
from personalab.lib.filestore.store import FileStore
from personalab.lib.filestore.variables import (
    account_variables_read,
    account_variables_update,
    session_variables_write,
)

Scope = Literal["local", "global", "all"]


def instance_variables_read(store: FileStore, *, instance_id: str) -> dict[str, Any]:
    """The current session's variables (`local`) and its owner's global ones (`global`)."""
    state = store.instance_state_read(instance_id)
    session_id = state["current_session_id"]
    metadata = store.session_read_head(instance_id, session_id).metadata
    return {"session_id": session_id,
            "local": chat_variables_read(store, instance_id=instance_id, session_id=session_id,
                                         metadata=metadata),
            "global": account_variables_read(store, username=state.get("owner"))}


def instance_variables_clear(store: FileStore, *, instance_id: str,
                             scope: Scope = "local") -> dict[str, Any]:
    """Forget the chat's variables (`local`), its owner's global ones (`global`) or both. An
    emptied chat keeps an empty file, so an imported chat's variables do not come back."""
    with store.instance_lock(instance_id):
        state = store.instance_state_read(instance_id)
        if scope in ("local", "all"):
            session_variables_write(store, instance_id=instance_id,
                                    session_id=state["current_session_id"], variables={})
        if scope in ("global", "all") and state.get("owner"):
            account_variables_update(store, username=state["owner"], changes={}, clear=True)
    return instance_variables_read(store, instance_id=instance_id)
