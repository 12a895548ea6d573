"""The database index of instances, sessions and traces, rebuilt from the files (SPEC §1):
files first, then the index."""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction

from chat.groups.conversations import conversation_index, ledger_rebuild
from chat.models import Instance, Session, Trace
from library.index_rows import (
    background_index,
    character_index,
    lorebook_index,
    persona_index,
    user_for_username,
)
from library.models import Background, Character, Lorebook, Persona
from library.trash_owners import trash_owners_rebuild
from memory.summaries.journal import summarize_recover_waiting
from personalab.lib.filestore.store import FileStore
from personalab.lib.membership import member_change_recover_waiting
from personalab.lib.store_errors import StoreError

log = logging.getLogger(__name__)


@transaction.atomic
def instance_index(store: FileStore, instance_id: str) -> Instance:
    state = store.instance_state_read(instance_id)
    # One INSERT … ON CONFLICT statement per table (as trace_index): update_or_create's SELECT,
    # savepoint and INSERT per row were most of an instance's creation and import outside the
    # files.
    row = Instance(instance_id=instance_id, owner=user_for_username(state.get("owner")),
                   character_id=state.get("character_id"),
                   background_id=state.get("background_id") or None,
                   current_session_id=state["current_session_id"],
                   created_at=state.get("created_at", ""))
    Instance.objects.bulk_create(
        [row], update_conflicts=True, unique_fields=["instance_id"],
        update_fields=["owner", "character", "background", "current_session_id", "created_at"])
    sessions = []
    for session_id in store.session_ids(instance_id):
        metadata = store.session_read_head(instance_id, session_id).metadata
        sessions.append(Session(instance=row, session_id=session_id,
                                continued_from=metadata.get("continued_from") or "",
                                created_at=metadata.get("created_at", "")))
    Session.objects.bulk_create(sessions, update_conflicts=True,
                                unique_fields=["instance", "session_id"],
                                update_fields=["continued_from", "created_at"])
    Session.objects.filter(instance=row).exclude(
        session_id__in=[session.session_id for session in sessions]).delete()
    conversation_index(store, instance_id, state)
    return row


def trace_index(store: FileStore, instance_id: str, trace_id: str, *,
                trace: dict[str, Any] | None = None) -> None:
    """`trace`: the trace just written, so a turn does not read its own trace file back."""
    if trace is None:
        trace = store.trace_read(instance_id, trace_id)
    # One INSERT … ON CONFLICT statement: update_or_create's SELECT, savepoint and INSERT
    # were the largest step between a reply's last token and its `done`.
    Trace.objects.bulk_create(
        [Trace(trace_id=trace_id, instance_id=instance_id,
               session_id=trace.get("session_id", ""), turn=trace.get("turn") or 0,
               created_at=trace.get("created_at", ""), held_point=trace_held_point(trace))],
        update_conflicts=True, unique_fields=["trace_id"],
        update_fields=["instance", "session_id", "turn", "created_at", "held_point"])


def trace_held_point(trace: dict[str, Any]) -> int | None:
    """The point of the reply's marker a held beat kept the director from taking, or None."""
    report = trace.get("director_result")
    held = report.get("held_marker") if isinstance(report, dict) else None
    index = held.get("index") if isinstance(held, dict) else None
    return index if isinstance(index, int) and not isinstance(index, bool) and index > 0 else None


def instances_index_catch_up(store: FileStore) -> list[str]:
    """Re-index each instance whose row's current session is not its file's: a server killed
    between a session switch in the files and its row (kill -9 while a summarize embedded its
    events) left the API naming the old session until a manual `reindex`. Run at a server's
    start (personalab/asgi.py); the ids it fixed."""
    rows = dict(Instance.objects.values_list("instance_id", "current_session_id"))
    fixed = []
    for instance_id in store.instance_ids():
        try:
            current = store.instance_state_read(instance_id).get("current_session_id")
        except (StoreError, ValueError):
            continue
        if current and rows.get(instance_id) != current:
            instance_index(store, instance_id)
            fixed.append(instance_id)
    return fixed


def instances_index_catch_up_start(store: FileStore) -> None:
    """instances_index_catch_up on a thread of its own: a server serves while it reads."""
    def run() -> None:
        try:
            if fixed := instances_index_catch_up(store):
                log.info("re-indexed %d instance(s) whose session had moved on: %s",
                         len(fixed), ", ".join(fixed[:20]))
        except Exception:  # noqa: BLE001 — the next start tries again; serving goes on
            log.exception("instance index catch-up failed")
        finally:
            connection.close()

    threading.Thread(target=run, name="instance-index-catch-up", daemon=True).start()


def index_empty() -> bool:
    """No library or chat row: a new database (one rebuilt from the files, or a new install)."""
    return not any(model.objects.exists()
                   for model in (Character, Background, Lorebook, Persona, Instance))


def reindex_all(store: FileStore) -> dict[str, int]:
    """Rebuild every index row from the files (SPEC §1)."""
    counts = {"characters": 0, "backgrounds": 0, "lorebooks": 0, "personas": 0, "instances": 0,
              "traces": 0}
    accounts_before = set(get_user_model().objects.values_list("username", flat=True))
    fresh = index_empty()
    for character_id in store.character_ids():
        character_index(store, character_id)
        counts["characters"] += 1
    Character.objects.exclude(character_id__in=store.character_ids()).delete()
    for background_id in store.background_ids():
        background_index(store, background_id)
        counts["backgrounds"] += 1
    Background.objects.exclude(background_id__in=store.background_ids()).delete()
    for lorebook_id in store.lorebook_ids():
        lorebook_index(store, lorebook_id)
        counts["lorebooks"] += 1
    for persona_id in store.persona_ids():
        persona_index(store, persona_id)
        counts["personas"] += 1
    Persona.objects.exclude(persona_id__in=store.persona_ids()).delete()
    for instance_id in store.instance_ids():
        if summarize_recover_waiting(store, instance_id=instance_id):
            counts["summarize_recovered"] = counts.get("summarize_recovered", 0) + 1
        if member_change_recover_waiting(store, instance_id):
            counts["member_changes_recovered"] = counts.get("member_changes_recovered", 0) + 1
        instance_index(store, instance_id)
        counts["instances"] += 1
        for trace_id in store.trace_ids(instance_id):
            trace_index(store, instance_id, trace_id)
            counts["traces"] += 1
    Instance.objects.exclude(instance_id__in=store.instance_ids()).delete()
    ledger_rebuild(store)
    if dated := trash_owners_rebuild(store, accounts_before=accounts_before, fresh=fresh):
        counts["trash_owners_dated"] = dated
    return counts
