"""Instance and session actions. Files first, then the index."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from chat.conversations import conversation_index, ledger_add, ledger_rebuild
from chat.group_prompt import said_by_another, unnamed_lines_by
from chat.imported_groups import NAME_SHOWN_CHARS, chat_group, group_found
from chat.members import (first_member_hand_over, is_group, members_of, members_title,
                          participant_entry)
from chat.models import Instance, Session, Trace
from chat.speakers import STRATEGIES, Member
from chat.st_note import note_from_st, st_metadata_with_note
from director.services import instance_switch_background
from library.models import Background, Character, Persona
from memory import fill as memory_fill
from memory import runtime as memory_runtime
from memory.services import authors_note_read, authors_note_save
from memory.summarize_journal import summarize_recover_waiting
from library.selectors import (background_for_use, character_for_chat_optional,
                               character_for_use, lorebooks_visible_to, persona_effective,
                               persona_for_user, personas_visible_to)
from library.services import (background_index, character_index, lorebook_ids_checked,
                              lorebook_index, persona_create, persona_index, user_for_username)
from personalab.lib.errors import AppError, Invalid, naming_field
from personalab.lib.filestore import (DEFAULT_CONFIG, DEFAULT_MODULES, FileStore, IdTaken,
                                      SessionRead, StoreError, read_session_bytes, utc_now)
from personalab.lib.generation import GenerationError, generation_effective, generation_update
from personalab.lib.ids import is_valid_id, numbered_candidates, validate_id
from personalab.lib.membership import (member_change_apply, member_change_recover,
                                        member_change_recover_waiting)
from personalab.lib.participants import member_ids, member_state_write
from personalab.lib.session_tail import states_back
from personalab.lib.trace_refs import conversation_matches, messages_rebuild

INITIAL_PLOT_STATE = {"current_plot_index": 1, "current_status": "pending", "no_update_count": 0}


class NotFound(AppError, LookupError):
    code, status = "not_found", 404

    def __init__(self, message: str) -> None:
        super().__init__(message=message)


def instance_create(store: FileStore, *, owner, character_id: str | None = None,
                    background_id: str | None = None, instance_id: str | None = None,
                    persona_id: str | None = None, character_ids: list[str] | None = None,
                    reply_order: str | None = None) -> str:
    """`owner` may start instances only of characters and backgrounds it can see; None (the
    system) any. `character_ids`: the members of a conversation with several characters, the
    first one also `character_id`."""
    members = _members_validated(character_ids or ([character_id] if character_id else []),
                                 reply_order)
    character_id = members[0]
    with naming_field("character_ids" if character_ids else "character_id"):
        definitions = [character_for_use(store, user=owner, character_id=c) if owner is not None
                       else store.character_read(c) for c in members]
    definition = definitions[0]
    if background_id:
        with naming_field("background_id"):
            if owner is not None:
                background_for_use(store, user=owner, background_id=background_id)
            else:
                store.background_read(background_id)
    if persona_id and owner is not None:
        with naming_field("persona_id"):
            persona_for_user(user=owner, persona_id=persona_id)
    try:
        instance_id = store.dir_claim("instances", [instance_id] if instance_id else
                                      numbered_candidates("inst", store.instance_ids()))
    except IdTaken:
        raise IdTaken(f"instance {instance_id} already exists") from None
    session_id = "sess_001"
    state = {
        "instance_id": instance_id,
        "character_id": character_id,
        "background_id": background_id or None,
        "current_session_id": session_id,
        "created_at": utc_now(),
        "plot_state": dict(INITIAL_PLOT_STATE),
        "participants": [{"character_id": character_id, "state_file": "character_state.json"}],
        "owner": owner.get_username() if owner else None,
        "persona_id": persona_id or None,
    }
    if len(members) > 1:
        state["participants"] = [participant_entry({**d, "character_id": c}, first=i == 0)
                                 for i, (c, d) in enumerate(zip(members, definitions))]
        state["reply_order"] = reply_order or "natural"
    lines = (_greeting_lines(definition) if len(members) == 1
             else _group_greeting_lines(members, definitions))
    for member, member_definition in zip(members, definitions):
        member_state_write(store, instance_id, state, member, {
            "base_persona": member_definition.get("base_persona", ""), "evolved_persona": ""})
    store.session_create(instance_id, session_id, lines=lines)
    store.instance_state_write(instance_id, state)
    ledger_add(store, instance_id, state)
    instance_index(store, instance_id)
    return instance_id


MAX_MEMBERS = 16


def _members_validated(character_ids: list[str], reply_order: str | None) -> list[str]:
    if not isinstance(character_ids, list) or not character_ids:
        raise Invalid("character_ids", "name at least one character")
    members = list(dict.fromkeys(validate_id(c, kind="character id") for c in character_ids))
    if len(members) > MAX_MEMBERS:
        raise Invalid("character_ids", f"at most {MAX_MEMBERS} characters")
    if reply_order is not None and reply_order not in STRATEGIES:
        raise Invalid("reply_order", f"reply_order must be one of {', '.join(STRATEGIES)}")
    return members


def _group_greeting_lines(members: list[str], definitions: list[dict[str, Any]]
                          ) -> list[dict[str, Any]]:
    """Every member's first message, each marked with who says it (SillyTavern does the same)."""
    lines = []
    for character_id, definition in zip(members, definitions):
        for line in _greeting_lines(definition):
            lines.append({**line, "speaker": character_id,
                          "name": definition.get("name") or character_id})
    return lines


def _greeting_lines(definition: dict[str, Any]) -> list[dict[str, Any]]:
    """The first message; a card's alternate greetings are its swipes (the first shown)."""
    greeting = definition.get("greeting", "")
    data = (definition.get("card") or {}).get("data") or {}
    alternates = [g for g in data.get("alternate_greetings") or []
                  if isinstance(g, str) and g.strip()]
    if not greeting and alternates:
        greeting, alternates = alternates[0], alternates[1:]
    if not greeting:
        return []
    line = {"role": "assistant", "content": greeting, "turn": 0, "timestamp": utc_now(),
            "greeting": True}
    if alternates:
        line.update(alternatives=[{"content": g} for g in alternates], alternative_position=0)
    return [line]


@transaction.atomic
def instance_index(store: FileStore, instance_id: str) -> Instance:
    state = store.instance_state_read(instance_id)
    owner = user_for_username(state.get("owner"))
    row, _ = Instance.objects.update_or_create(
        instance_id=instance_id,
        defaults={
            "owner": owner,
            "character_id": state.get("character_id"),
            "background_id": state.get("background_id") or None,
            "current_session_id": state["current_session_id"],
            "created_at": state.get("created_at", ""),
        },
    )
    seen = []
    for session_id in store.session_ids(instance_id):
        read = store.session_read_head(instance_id, session_id)
        Session.objects.update_or_create(
            instance=row, session_id=session_id,
            defaults={"continued_from": read.metadata.get("continued_from") or "",
                      "created_at": read.metadata.get("created_at", "")},
        )
        seen.append(session_id)
    Session.objects.filter(instance=row).exclude(session_id__in=seen).delete()
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
               created_at=trace.get("created_at", ""))],
        update_conflicts=True, unique_fields=["trace_id"],
        update_fields=["instance", "session_id", "turn", "created_at"])


def trace_rebuild(store: FileStore, *, instance_id: str, trace_id: str) -> dict[str, Any]:
    """A trace as the pages and the API show it: its conversation part (kept as references
    into the session, personalab/lib/trace_refs.py) read back from the session file or, when
    the session was edited or archived since, from the copy that still holds those lines,
    and the trace says which (`conversation_source`, `session_edited`)."""
    trace = store.trace_read(instance_id, trace_id)
    if "finished_at" not in trace:
        _reply_unfinished(store, instance_id, trace)
    conversation = trace.get("conversation")
    if not isinstance(conversation, dict):
        return trace  # an older trace with the messages copied in, or nothing referred to
    session_id = str(conversation.get("session_id") or trace.get("session_id") or "")
    lines = None
    for source, path, data in _session_states(store, instance_id, session_id):
        read = read_session_bytes(path, data)
        if conversation_matches(conversation, read.lines):
            lines = read.lines
            trace["conversation_source"] = source
            break
    trace["session_edited"] = trace.get("conversation_source") != "session"
    if lines is None:
        trace["conversation_source"] = None
    trace["messages"] = messages_rebuild(trace.get("messages") or [], lines)
    return trace


TRACE_FIGURES = ("trace_id", "instance_id", "session_id", "turn", "created_at", "total_tokens",
                 "middle_tokens", "max_total_tokens")
SECTION_FIGURES = ("name", "region", "tokens", "chars", "cut", "omitted")


def trace_sections(store: FileStore, *, instance_id: str, trace_id: str) -> dict[str, Any]:
    """The trace's token figures and its sections without their texts: what a budget bar
    draws, read from the trace file alone (the session is not read)."""
    trace = store.trace_read(instance_id, trace_id)
    return {**{key: trace.get(key) for key in TRACE_FIGURES},
            "unfinished": "finished_at" not in trace,
            "sections": [{key: section.get(key) for key in SECTION_FIGURES}
                         for section in trace.get("sections") or [] if isinstance(section, dict)]}


def _reply_unfinished(store: FileStore, instance_id: str, trace: dict[str, Any]) -> None:
    """A trace written as the request went out and never completed: the reply is still
    streaming (`reply.streaming`) or the server stopped during it (`reply`: the line it kept,
    marked interrupted, or None). `unfinished` says so."""
    trace["unfinished"] = True
    session_id = str(trace.get("session_id") or "")
    if not (is_valid_id(session_id) and store.session_path(instance_id, session_id).is_file()):
        return
    # A line a crash left unfinished is completed (marked interrupted) first, as on the chat page.
    read = session_read_repaired(store, instance_id, session_id, newest=2)
    if read.partial is not None and read.partial.get("trace_id") == trace.get("trace_id"):
        trace["reply"] = {**read.partial, "streaming": True}
        return

    def kept(lines: list[dict[str, Any]]) -> dict[str, Any] | None:
        return next((line for line in reversed(lines)
                     if line.get("trace_id") == trace.get("trace_id")), None)

    trace["reply"] = kept(read.lines) or (None if read.complete else kept(
        store.session_read(instance_id, session_id, cached=True).lines))


def _session_states(store: FileStore, instance_id: str,
                    session_id: str) -> Iterator[tuple[str, Path, bytes]]:
    """The session's file now, then each earlier state its backups under sessions/history/
    give back (newest first; a backup of a tail change holds only the lines it replaced,
    personalab/lib/session_tail.py), then its archived copies: (source, path, bytes)."""
    sessions = store.sessions_dir(instance_id)
    path = store.session_path(instance_id, session_id)
    data = path.read_bytes() if is_valid_id(session_id) and path.is_file() else b""
    if data:
        yield "session", path, data
    backups = sorted((sessions / "history").glob(f"{session_id}.*.jsonl"), reverse=True)
    for source, state in states_back(data, ((f"history/{backup.name}", backup.read_bytes())
                                             for backup in backups)):
        yield source, path, state
    for archived in sorted((sessions / "archive").glob(f"{session_id}.*.jsonl"), reverse=True):
        yield f"archive/{archived.name}", archived, archived.read_bytes()


def reindex_all(store: FileStore) -> dict[str, int]:
    """Rebuild every index row from the files (SPEC §1)."""
    counts = {"characters": 0, "backgrounds": 0, "lorebooks": 0, "personas": 0, "instances": 0,
              "traces": 0}
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
    return counts


def instances_visible_to(user):
    rows = Instance.objects.select_related("character", "background", "owner")
    return rows if user.is_staff else rows.filter(owner=user)


def instance_for_user(user, instance_id: str) -> Instance:
    """Unknown and not-yours look the same: both are 404."""
    try:
        validate_id(instance_id, kind="instance id")
        return instances_visible_to(user).get(instance_id=instance_id)
    except (Instance.DoesNotExist, ValueError):
        raise NotFound(f"instance {instance_id!r} not found") from None


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
        archived = store.session_archive(instance_id, session_id)
        new_session_id = None
        if state["current_session_id"] == session_id:
            new_session_id = store.session_next_id(instance_id)
            store.session_create(instance_id, new_session_id, continued_from=None)
            state["current_session_id"] = new_session_id
            store.instance_state_write(instance_id, state)
    instance_index(store, instance_id)
    memory_runtime.schedule_sync(store, instance_id=instance_id)  # its turns leave the index
    return {"success": True, "session_id": session_id, "archived_to": archived.name,
            "current_session_id": new_session_id or state["current_session_id"]}


def session_import(store: FileStore, *, instance_id: str,
                   data: bytes) -> tuple[str, dict[str, Any]]:
    """A chat exported by another role-play app becomes a new session, made current. Returns
    the session id and what was imported (counts, speakers, skipped lines with reasons)."""
    from chat.chat_formats import chat_import

    imported = chat_import(data)
    origin = {"source": imported.source, "header": imported.original_header}
    report = imported.report()
    with store.instance_lock(instance_id):
        state = store.instance_state_read(instance_id)
        if is_group(state):
            report.update(_speakers_matched(imported.lines, members_of(store, state)))
        if imported.first_message is not None and not is_group(state):
            report["notes"] = [*report["notes"], *_first_message_taken(
                store, state, imported.lines, imported.first_message)]
        regroup_notes, group_names = _regroup_offer(
            store, owner=state.get("owner"), header=imported.original_header,
            lines=imported.lines, state=state)
        report["notes"] = [*report["notes"], *regroup_notes]
        report["regroup"] = group_names
        session_id = store.session_next_id(instance_id)
        store.session_create(instance_id, session_id, continued_from=state["current_session_id"],
                             lines=imported.lines, imported=origin)
        state["current_session_id"] = session_id
        bound = _chat_lorebook_taken(state, imported.original_header)
        store.instance_state_write(instance_id, state)
        play_as = _players_not_playing(store, state, report.get("players") or [])
        report["play_as"] = [name for name in play_as
                             if name.strip() and len(name.strip()) <= MAX_PERSONA_NAME]
        report["notes"] = [*report["notes"], *_authors_note_taken(store, instance_id,
                                                                  imported.original_header),
                           *_player_named(store, state, play_as), *bound]
    instance_index(store, instance_id)
    memory_fill.session_imported(store, instance_id=instance_id, session_id=session_id)
    return session_id, report


def _first_message_taken(store: FileStore, state: dict[str, Any], lines: list[dict[str, Any]],
                         index: int) -> list[str]:
    """A chat that names its greeting without holding it (RisuAI's) starts with the story
    character's greeting it names, its other greetings as swipes, as it did there. Changes
    `lines`."""
    greeting = _greeting_lines(character_for_chat_optional(
        store, state=state, character_id=state.get("character_id")))
    if not greeting or any(line.get("greeting") for line in lines):
        return []
    line = greeting[0]
    versions = [line["content"], *(a["content"] for a in line.get("alternatives") or [])]
    shown = index + 1 if index + 1 < len(versions) else 0
    line = {**line, "content": versions[shown],
            "timestamp": next((x["timestamp"] for x in lines if x.get("timestamp")),
                              line["timestamp"])}
    line.pop("alternatives", None)
    if len(versions) > 1:
        line.update(alternatives=[{"content": v} for i, v in enumerate(versions) if i != shown],
                    alternative_position=shown)
    lines.insert(0, line)
    return ["The chat starts with the character's first message, which RisuAI keeps outside "
            "the chat file" + (f" (greeting {shown + 1} of {len(versions)})."
                               if len(versions) > 1 else ".")]


def _chat_lorebook_taken(state: dict[str, Any], header: Any) -> list[str]:
    """SillyTavern binds a lorebook to a chat by name (`chat_metadata.world_info`): the one of
    that name the owner may use is read in this story too. Changes `state`."""
    metadata = header.get("chat_metadata") if isinstance(header, dict) else None
    name = metadata.get("world_info") if isinstance(metadata, dict) else None
    if not isinstance(name, str) or not name.strip():
        return []
    owner = get_user_model().objects.filter(username=state.get("owner") or "").first()
    found = (lorebooks_visible_to(user=owner).filter(name=name.strip()).first()
             if owner else None)
    shown = name.strip()[:NAME_SHOWN_CHARS]
    if found is None:
        return [f"The chat's lorebook \"{shown}\" is not in your library: import it, then pick "
                "it under \"Lorebooks of this chat\"."]
    ids = state.get("lorebook_ids") if isinstance(state.get("lorebook_ids"), list) else []
    if found.lorebook_id not in ids:
        state["lorebook_ids"] = [*ids, found.lorebook_id]
    return [f"The chat's lorebook \"{shown}\" is read in this story."]


def _playing(store: FileStore, state: dict[str, Any]) -> str:
    return persona_effective(store, owner=state.get("owner"),
                             persona_id=state.get("persona_id"))["name"]


def _players_not_playing(store: FileStore, state: dict[str, Any],
                         players: list[str]) -> list[str]:
    """The chat's players (at most five) when none of them is who plays here."""
    if not players or _playing(store, state) in players:
        return []
    return players[:5]


def _player_named(store: FileStore, state: dict[str, Any], players: list[str]) -> list[str]:
    """The chat's player is not who plays here: say how to go on as them."""
    if not players:
        return []
    names = ", ".join(str(name)[:NAME_SHOWN_CHARS] for name in players)
    return [f"In this chat the player was {names}; your new lines are "
            f"{_playing(store, state)[:NAME_SHOWN_CHARS]}'s. To go on as them, press "
            "\"Play as\" below, or pick or make that persona under \"You are\"."]


def _authors_note_taken(store: FileStore, instance_id: str, header: Any) -> list[str]:
    """The chat's author's note becomes the story's when the story has none; what happened,
    for the import report."""
    note = note_from_st(header.get("chat_metadata") if isinstance(header, dict) else None)
    if note is None:
        return []
    current = authors_note_read(store, instance_id=instance_id)
    shown = note["text"][:NAME_SHOWN_CHARS]
    if current["text"] and current != note:
        return [f"The chat's author's note was not applied (this story has its own): {shown}"]
    authors_note_save(store, instance_id=instance_id, note=note)
    return [f"Author's note (depth {note['depth']}, every {note['frequency']} turns): {shown}"]


def _regroup_offer(store: FileStore, *, owner: str | None, header: Any,
                   lines: list[dict[str, Any]], state: dict[str, Any]
                   ) -> tuple[list[str], list[str]]:
    """(report notes, names of the whole group when it can go on as one) for a group chat
    imported into a conversation that lacks some of its characters."""
    group = chat_group(header, lines)
    user = get_user_model().objects.filter(username=owner or "").first()
    found = group_found(store, user=user, group=group, state=state, limit=MAX_MEMBERS)
    if not found.missing:
        return [], []
    said = (f"This chat has lines of {', '.join(found.missing)} too, who are not in this "
            "conversation: their lines are kept by name.")
    if not found.absent and 1 < len(found.usable) <= MAX_MEMBERS:
        return [f"{said} \"Go on as a group\" starts a new conversation with all of them and "
                "this chat in it."], found.names
    return [f"{said} To go on with all of them, start a scene with those characters and "
            "import the chat there" + (f" (not in your library: {', '.join(found.absent[:5])})."
                                       if found.absent else ".")], []


def _speakers_matched(lines: list[dict[str, Any]], members: list[Member]) -> dict[str, Any]:
    """A group chat's replies are told apart by `name`: each line whose name is a member's
    (case and spaces aside) gets that member as its `speaker`; other names are kept as they are
    and reported."""
    by_name = {m.name.strip().casefold(): m.character_id for m in members}
    matched: dict[str, str] = {}
    unmatched: list[str] = []
    for line in lines:
        name = line.get("name")
        if line.get("role") != "assistant" or not isinstance(name, str):
            continue
        speaker = by_name.get(name.strip().casefold())
        if speaker:
            line["speaker"] = speaker
            matched[name] = speaker
        elif name not in unmatched:
            unmatched.append(name)
    return {"members": matched, "unmatched_speakers": unmatched}


def session_export(store: FileStore, *, instance_id: str, session_id: str,
                   fmt: str, character: str | None = None) -> tuple[bytes, str]:
    """An imported session goes back out with its own header (chat_metadata, names, date).
    `character`: a conversation with several characters as that one member's own chat."""
    from chat.chat_formats import chat_export_jsonl, chat_export_markdown

    read = session_read_repaired(store, instance_id, session_id)
    state = store.instance_state_read(instance_id)
    lines = read.lines
    character_name = character_for_chat_optional(
        store, state=state, character_id=state.get("character_id")).get(
            "name", state.get("character_id", ""))
    if character is not None:
        member = next((m for m in members_of(store, state) if m.character_id == character), None)
        if member is None:
            raise Invalid("character", f"{character!r} is not a member of this conversation")
        character_name, lines = member.name, _lines_of_one(lines, member, unnamed_lines_by(state))
    user_name = persona_effective(store, owner=state.get("owner"),
                                  persona_id=state.get("persona_id"))["name"]
    if fmt == "md":
        if character is None and is_group(state):
            character_name = members_title(members_of(store, state)) or character_name
        text = chat_export_markdown(lines=lines, user_name=user_name,
                                    character_name=character_name,
                                    title=f"{character_name} · {instance_id} · {session_id}")
        return text.encode("utf-8"), "text/markdown; charset=utf-8"
    imported = read.metadata.get("imported")
    header = imported.get("header") if isinstance(imported, dict) else None
    header = dict(header) if isinstance(header, dict) else {}
    header["chat_metadata"] = st_metadata_with_note(
        header.get("chat_metadata") or {}, authors_note_read(store, instance_id=instance_id))
    if is_group(state) and character is None:
        header = _group_header(header, members_of(store, state), state)
    body = chat_export_jsonl(lines=lines, user_name=user_name,
                             character_name=character_name,
                             created_at=read.metadata.get("created_at", ""), header=header)
    return body, "application/jsonl"


def session_regroup(store: FileStore, *, user, instance_id: str,
                    session_id: str) -> tuple[str, str, dict[str, Any]]:
    """An imported group chat goes on as a group: a new conversation with every member its
    header lists (each one `user` may use), on this story's background, with this chat in it.
    Returns (instance id, session id, import report)."""
    instance_for_user(user, instance_id)
    session_live_check(store, instance_id=instance_id, session_id=session_id)
    read = session_read_repaired(store, instance_id, session_id)
    imported = read.metadata.get("imported")
    group = chat_group(imported.get("header") if isinstance(imported, dict) else None,
                       read.lines)
    state = store.instance_state_read(instance_id)
    found = group_found(store, user=user, group=group, state=state, limit=MAX_MEMBERS)
    if found.absent or not 1 < len(found.usable) <= MAX_MEMBERS:
        raise Invalid("session_id", "this chat's characters are not a group of characters in "
                                    "your library" + (f" (missing: {', '.join(found.absent[:5])})"
                                                      if found.absent else ""))
    order = group.reply_order
    new_id = instance_create(store, owner=user, character_ids=found.usable,
                             background_id=_still_usable(
                                 lambda b: background_for_use(store, user=user, background_id=b),
                                 state.get("background_id")),
                             persona_id=_still_usable(
                                 lambda p: persona_for_user(user=user, persona_id=p),
                                 state.get("persona_id")),
                             reply_order=order if order in STRATEGIES else None)
    data, _ = session_export(store, instance_id=instance_id, session_id=session_id, fmt="jsonl")
    new_session_id, report = session_import(store, instance_id=new_id, data=data)
    return new_id, new_session_id, report


def _still_usable(check: Any, item_id: Any) -> str | None:
    """The id when `check(item_id)` passes: a background or persona deleted or made private
    since is left out of the new conversation."""
    if not isinstance(item_id, str) or not item_id:
        return None
    try:
        check(item_id)
    except (AppError, StoreError):
        return None
    return item_id


def _lines_of_one(lines: list[dict[str, Any]], member: Member,
                  unnamed_by: str | None) -> list[dict[str, Any]]:
    """The member's replies and the player's lines as they are; the other members' replies as
    named narrator notes (SillyTavern shows them and leaves them out of the prompt)."""
    kept = []
    for line in lines:
        if said_by_another(line, speaker_id=member.character_id, speaker_name=member.name,
                           unnamed_by=unnamed_by):
            kept.append({"type": "note", "content": line.get("content", ""),
                         "name": line.get("name") or line.get("speaker"), "is_system": True,
                         "timestamp": line.get("timestamp")})
        else:
            kept.append(line)
    return kept


def _group_header(header: dict[str, Any] | None, members: list[Member],
                  state: dict[str, Any]) -> dict[str, Any]:
    """The group's members go into chat_metadata (SillyTavern keeps unknown keys there), so an
    export says who took part even for members who never spoke."""
    header = dict(header or {})
    # An uploaded header's chat_metadata that is not an object has nothing an export can keep.
    metadata = header.get("chat_metadata")
    metadata = dict(metadata) if isinstance(metadata, dict) else {}
    metadata["personalab_group"] = {
        "members": [{"character_id": m.character_id, "name": m.name, "muted": m.muted}
                    for m in members],
        "reply_order": state.get("reply_order") or "natural"}
    header["chat_metadata"] = metadata
    return header


# --- instance settings ---------------------------------------------------------------------

UNSET: Any = object()
MAX_INSTANCE_NAME = 200
MAX_PERSONA_NAME = 200  # as the persona form's


class InstanceUpdateError(AppError, ValueError):
    """A refused instance update; `fields` names each wrong field."""

    code = "invalid"

    def __init__(self, fields: dict[str, str]) -> None:
        super().__init__(message="; ".join(f"{name}: {problem}"
                                           for name, problem in fields.items()), fields=fields)


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


def _instance_changes(store: FileStore, state: dict[str, Any], *, user, name: Any, archived: Any,
                      generation: Any, persona_id: Any, lorebook_ids: Any,
                      reply_order: Any) -> dict[str, Any]:
    changes, problems = {}, {}
    if reply_order is not UNSET:
        if reply_order not in STRATEGIES:
            problems["reply_order"] = f"must be one of {', '.join(STRATEGIES)}"
        else:
            changes["reply_order"] = reply_order
    if name is not UNSET:
        if not isinstance(name, str) or len(name.strip()) > MAX_INSTANCE_NAME:
            problems["name"] = f"must be text of at most {MAX_INSTANCE_NAME} characters"
        else:
            changes["name"] = name.strip()
    if archived is not UNSET:
        if not isinstance(archived, bool):
            problems["archived"] = "must be true or false"
        else:
            changes["archived"] = archived
    if generation is not UNSET:
        try:
            changes["generation"] = generation_update(state.get("generation") or {}, generation)
        except GenerationError as error:
            problems.update({f"generation.{k}": v for k, v in error.fields.items()})
    if persona_id is not UNSET:
        try:
            if persona_id is not None:
                persona_for_user(user=user, persona_id=persona_id)
            changes["persona_id"] = persona_id or None
        except AppError as error:
            problems["persona_id"] = error.message
    if lorebook_ids is not UNSET:
        try:
            # null detaches every book; books attached earlier stay allowed (see the check)
            changes["lorebook_ids"] = lorebook_ids_checked(
                store, [] if lorebook_ids is None else lorebook_ids, user=user,
                linked=state.get("lorebook_ids"))
        except AppError as error:
            problems.update(error.fields or {"lorebook_ids": error.message})
    if problems:
        raise InstanceUpdateError(problems)
    return changes


def instance_update(store: FileStore, *, user, instance_id: str, name: Any = UNSET,
                    archived: Any = UNSET, generation: Any = UNSET,
                    persona_id: Any = UNSET, lorebook_ids: Any = UNSET,
                    reply_order: Any = UNSET) -> dict[str, Any]:
    """Change an instance's name, archived flag, generation settings, persona, attached
    lorebooks (read by every turn besides the characters' and background's own) or who speaks
    next; every field is checked before anything is written. Returns the new instance state."""
    instance_for_user(user, instance_id)
    lock = store.instance_lock(instance_id).acquire()
    try:
        state = store.instance_state_read(instance_id)
        state.update(_instance_changes(store, state, user=user, name=name, archived=archived,
                                       generation=generation, persona_id=persona_id,
                                       lorebook_ids=lorebook_ids, reply_order=reply_order))
        store.instance_state_write(instance_id, state)
    finally:
        lock.release()
    return state


def instance_play_as(store: FileStore, *, user, instance_id: str, name: Any) -> dict[str, Any]:
    """Go on as the player of an imported chat: the persona of that name this user may use
    (their own before a shared one), else a new one of theirs; picked for this conversation."""
    instance_for_user(user, instance_id)
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_PERSONA_NAME:
        raise Invalid("name", f"must be a persona name of 1 to {MAX_PERSONA_NAME} characters")
    name = name.strip()
    visible = personas_visible_to(user=user).filter(name=name).order_by("persona_id")
    found = visible.filter(owner=user).first() or visible.first()
    persona_id = found.persona_id if found else persona_create(
        store, owner=user, data={"name": name, "description": ""})
    instance_update(store, user=user, instance_id=instance_id, persona_id=persona_id)
    return {"persona_id": persona_id, "name": name, "created": found is None}


def instance_background_switch(store: FileStore, *, user, instance_id: str,
                               background_id: str | None) -> dict[str, Any]:
    """Play the instance on another background (one the user may use) or none; the story
    progress is kept (clamped to the new outline)."""
    if background_id is not None:
        validate_id(background_id, kind="background id")
        with naming_field("background_id"):
            background_for_use(store, user=user, background_id=background_id)
    with store.instance_lock(instance_id):
        result = instance_switch_background(store, instance_id=instance_id,
                                            background_id=background_id)
    instance_index(store, instance_id)
    return result


# --- members of a conversation ------------------------------------------------------------

def instance_member_add(store: FileStore, *, user, instance_id: str, character_id: Any,
                        muted: Any = False, talkativeness: Any = None) -> dict[str, Any]:
    """A character (one the user may use) joins the conversation from the next round on. Its
    own state starts from its card; a character that was a member before gets its state back.
    Every member change is journaled (personalab.lib.membership) before it is applied."""
    instance_for_user(user, instance_id)
    if not isinstance(character_id, str):
        raise Invalid("character_id", "name a character")
    character_id = validate_id(character_id, kind="character id")
    with naming_field("character_id"):
        definition = character_for_use(store, user=user, character_id=character_id)
    with store.instance_lock(instance_id):
        before = _member_state_read(store, instance_id)
        participants = _participants_complete(store, before)
        if character_id in [p["character_id"] for p in participants]:
            raise Invalid("character_id", f"{character_id} is already a member")
        if len(participants) >= MAX_MEMBERS:
            raise Invalid("character_id", f"at most {MAX_MEMBERS} characters")
        entry = participant_entry({**definition, "character_id": character_id}, first=False)
        entry.update(_member_settings(muted=muted, talkativeness=talkativeness))
        after = {**before, "participants": [*participants, entry]}
        if len(participants) == 1:
            # the story's lines so far carry no speaker: they stay this character's
            after.setdefault("solo_character_id", participants[0]["character_id"])
        after.setdefault("reply_order", "natural")
        files = {} if (store.instance_dir(instance_id) / entry["state_file"]).exists() else {
            entry["state_file"]: {"base_persona": definition.get("base_persona", ""),
                                  "evolved_persona": ""}}
        member_change_apply(store, instance_id, before=before, after=after, action="add",
                            character_id=character_id, files=files)
    _members_indexed(store, instance_id, after)
    return after


def instance_member_remove(store: FileStore, *, user, instance_id: str,
                           character_id: str) -> dict[str, Any]:
    """The character leaves; its lines stay in the story and its state file stays on disk (a
    later add restores it). When the first member leaves, the next one becomes the instance's
    character (chat.members.first_member_hand_over); the last one cannot leave."""
    instance_for_user(user, instance_id)
    with store.instance_lock(instance_id):
        before = _member_state_read(store, instance_id)
        participants = _participants_complete(store, before)
        index = _member_index(participants, character_id)
        if len(participants) == 1:
            raise Invalid("character_id", "a conversation needs a character: the last one "
                                          "cannot leave")
        if index == 0:
            hand_over = first_member_hand_over(store, instance_id,
                                               {**before, "participants": participants})
            after, files, remove = hand_over.state, hand_over.files, hand_over.remove
        else:
            after = {**before, "participants": participants[:index] + participants[index + 1:]}
            files, remove = {}, []
        member_change_apply(store, instance_id, before=before, after=after, action="remove",
                            character_id=character_id, files=files, remove=remove)
    _members_indexed(store, instance_id, after)
    return after


def instance_member_change(store: FileStore, *, user, instance_id: str, character_id: str,
                           muted: Any = UNSET, talkativeness: Any = UNSET) -> dict[str, Any]:
    """Mute a member (it answers only when the player picks it) or set how talkative it is."""
    instance_for_user(user, instance_id)
    changes = _member_settings(muted=muted, talkativeness=talkativeness)
    with store.instance_lock(instance_id):
        before = _member_state_read(store, instance_id)
        participants = _participants_complete(store, before)
        entry = participants[_member_index(participants, character_id)]
        changes = {key: value for key, value in changes.items() if entry.get(key) != value}
        if not changes:
            return before
        entry.update(changes)
        after = {**before, "participants": participants}
        member_change_apply(store, instance_id, before=before, after=after, action="change",
                            character_id=character_id, changes=changes)
    return after


def _member_state_read(store: FileStore, instance_id: str) -> dict[str, Any]:
    """The instance state for a member change (the lock is held): a change a killed process
    left half done is finished first."""
    member_change_recover(store, instance_id)
    return store.instance_state_read(instance_id)


def _participants_complete(store: FileStore, state: dict[str, Any]) -> list[dict[str, Any]]:
    """The participants with every member setting written out (a one-character instance
    records only the character and its state file; its talkativeness comes from its card, as
    for a member named at creation)."""
    participants = [dict(p) for p in state.get("participants") or [] if isinstance(p, dict)]
    if not participants:
        participants = [{"character_id": state["character_id"],
                         "state_file": "character_state.json"}]
    for entry in participants:
        entry.setdefault("muted", False)
        if "talkativeness" not in entry:
            definition = character_for_chat_optional(store, state=state,
                                                     character_id=entry["character_id"])
            entry["talkativeness"] = participant_entry(
                {**definition, "character_id": entry["character_id"]},
                first=False)["talkativeness"]
    return participants


def _member_index(participants: list[dict[str, Any]], character_id: str) -> int:
    for index, entry in enumerate(participants):
        if entry.get("character_id") == character_id:
            return index
    raise NotFound(f"{character_id!r} is not a member of this conversation")


def _member_settings(*, muted: Any, talkativeness: Any) -> dict[str, Any]:
    settings, problems = {}, {}
    if muted is not UNSET:
        if not isinstance(muted, bool):
            problems["muted"] = "must be true or false"
        else:
            settings["muted"] = muted
    if talkativeness not in (UNSET, None):
        if isinstance(talkativeness, bool) or not isinstance(talkativeness, (int, float)) \
                or not 0 <= talkativeness <= 1:
            problems["talkativeness"] = "must be a number from 0 to 1"
        else:
            settings["talkativeness"] = float(talkativeness)
    if problems:
        raise InstanceUpdateError(problems)
    return settings


def _members_indexed(store: FileStore, instance_id: str, state: dict[str, Any]) -> None:
    ledger_add(store, instance_id, state)
    instance_index(store, instance_id)


# Each section of the settings page and what "restore defaults" puts back in it.
SETTINGS_SECTIONS = ("thresholds", "limits", "preferences", "director", "memory", "history",
                     "llm")


def settings_section_reset(store: FileStore, *, section: str) -> None:
    """Put one section of the settings page back to its defaults; other sections keep their
    values. The LLM section goes back to the environment's endpoint (or the offline demo)
    and forgets the key stored for the old base URL."""
    from director.services import config_save

    if section not in SETTINGS_SECTIONS:
        raise Invalid("reset", f"unknown settings section {section!r}")
    if section in DEFAULT_CONFIG:
        config_save(store, changes={section: copy.deepcopy(DEFAULT_CONFIG[section])})
        if section == "preferences":  # the prompt language is shown among the preferences
            store.module_write("prompt", {**store.module_read("prompt"),
                                          "locale": DEFAULT_MODULES["prompt"]["locale"]})
        return
    current = store.module_read(section)
    if section == "director":  # its threshold follows config.json's, restored with that section
        current["enabled"] = DEFAULT_MODULES["director"]["enabled"]
    elif section == "llm":
        current.update({"base_url": "", "model": "", "api_key": ""})
    else:
        current.update(copy.deepcopy(DEFAULT_MODULES[section]))
    store.module_write(section, current)
