"""Reading a session (repairing what a crash left), its summary, and archiving it."""

from __future__ import annotations

from typing import Any

from chat.services.errors import NotFound
from chat.services.index import instance_index
from chat.services.quotas import session_room_check
from memory import runtime as memory_runtime
from personalab.lib.filestore.session_read import SessionRead
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import validate_id


def session_live_check(store: FileStore, *, instance_id: str, session_id: str) -> None:
    """404 unless the instance has this session as a live file (an archived one was moved
    out); a malformed id is a 400."""
    validate_id(session_id, kind="session id")
    if not store.session_path(instance_id, session_id).exists():
        raise NotFound(f"session {session_id!r} not found")


def session_read_repaired(store: FileStore, instance_id: str, session_id: str, *,
                          newest: int | None = None, shown: int | None = None,
                          before: int | None = None) -> SessionRead:
    """Read a session (only part of it with newest/shown/before: FileStore.session_read); a
    line left unfinished by a crash, or a tail change a crash cut short, is completed in the
    file first, under the instance lock. A line still streaming is left alone."""
    only = {"newest": newest, "shown": shown, "before": before}
    read = store.session_read(instance_id, session_id, **only)
    if (read.partial is None and not store.session_tail_pending(instance_id, session_id)
            and not (read.problems and read.problems[-1].reason == "unfinished line")):
        return read
    if not store.session_repair_when_idle(instance_id, session_id):
        return read  # a turn is writing it
    return store.session_read(instance_id, session_id, **only)


def session_summary(store: FileStore, instance_id: str, session_id: str,
                    *, recent: int = 10) -> dict[str, Any]:
    """The session summary of seeds/npc-session-memory.md."""
    read = session_read_repaired(store, instance_id, session_id)
    messages = read.messages
    stamps = [m.get("timestamp") for m in messages if m.get("timestamp")]
    return {
        "session_id": session_id,
        "instance_id": instance_id,
        "message_count": len(messages),
        "recent_messages": [
            {k: m.get(k) for k in ("role", "content", "turn", "timestamp")}
            for m in messages[-recent:]
        ],
        "first_message_at": stamps[0] if stamps else None,
        "last_message_at": stamps[-1] if stamps else None,
        "continued_from": read.metadata.get("continued_from"),
        "problems": [p.describe() for p in read.problems],
    }


def session_archive_and_restart(store: FileStore, *, instance_id: str, session_id: str) -> dict:
    """seeds/npc-session-memory.md "delete" archives the file (SPEC §9) and starts a fresh one."""
    with store.instance_lock(instance_id):
        state = store.instance_state_read(instance_id)
        if state["current_session_id"] == session_id:
            session_room_check(store, instance_id=instance_id)  # before the archive
        archived = store.session_archive(instance_id, session_id)
        new_session_id = None
        if state["current_session_id"] == session_id:
            new_session_id = store.session_next_id(instance_id)
            store.session_create(instance_id, new_session_id, continued_from=None)
            state["current_session_id"] = new_session_id
            store.instance_state_write(instance_id, state)
    instance_index(store, instance_id)
    memory_runtime.files_follow(store, instance_id=instance_id)  # its turns leave the index
    return {"success": True, "session_id": session_id, "archived_to": archived.name,
            "current_session_id": new_session_id or state["current_session_id"]}
