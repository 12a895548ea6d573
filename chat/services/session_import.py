"""A chat exported by another role-play app imported as a new session, with its
greeting, lorebook, author's note, players and group members matched."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from chat.groups.members import is_group, members_of
from chat.groups.speakers import Member
from chat.import_export.chat_formats import ChatImport, chat_import
from chat.import_export.import_warnings import speakers_warned
from chat.import_export.imported_groups import NAME_SHOWN_CHARS, chat_group, group_found
from chat.import_export.st_note import note_from_st, note_position_moved
from chat.services.index import instance_index
from chat.services.instance_settings import MAX_PERSONA_NAME, MAX_SCENARIO_OVERRIDE
from chat.services.instances import MAX_MEMBERS, greeting_lines
from chat.services.quotas import session_room_check
from library.selectors import character_for_chat_optional, lorebook_named, persona_effective
from memory import runtime as memory_runtime
from memory.authors_note import authors_note_read, authors_note_save
from personalab.lib.filestore.kept_tally import kept_tally_drop
from personalab.lib.filestore.store import FileStore
from personalab.lib.line_index import index_path

PLAYER_WAS = "In this chat the player was"


def session_import(store: FileStore, *, instance_id: str, data: bytes,
                   imported: ChatImport | None = None,
                   new_chat: bool = False) -> tuple[str, dict[str, Any]]:
    """A chat exported by another role-play app becomes a new session, made current. Returns
    the session id and what was imported (counts, speakers, skipped lines with reasons, and
    `warnings`: speakers that are not this chat's characters). `imported`: `data` already read
    (a new chat reads the file before it is made, so a bad file makes none). `new_chat`: the
    instance was just made for this chat, whose greeting session it replaces (the imported chat
    is its only session)."""
    imported = imported if imported is not None else chat_import(data)
    origin = {"source": imported.source, "header": imported.original_header}
    report = imported.report()
    with store.instance_lock(instance_id):
        if not new_chat:
            session_room_check(store, instance_id=instance_id)
        state = store.instance_state_read(instance_id)
        if is_group(state):
            report.update(_speakers_matched(imported.lines, members_of(store, state)))
        report["warnings"] = speakers_warned(store, state, report)
        if imported.first_message is not None and not is_group(state):
            report["notes"] = [*report["notes"], *_first_message_taken(
                store, state, imported.lines, imported.first_message)]
        regroup_notes, group_names = _regroup_offer(
            store, owner=state.get("owner"), header=imported.original_header,
            lines=imported.lines, state=state)
        report["notes"] = [*report["notes"], *regroup_notes]
        report["regroup"] = group_names
        replaced = new_chat and _greeting_session_dropped(store, instance_id,
                                                          state["current_session_id"])
        session_id = store.session_next_id(instance_id)
        store.session_create(instance_id, session_id,
                             continued_from=None if replaced else state["current_session_id"],
                             lines=imported.lines, imported=origin)
        state["current_session_id"] = session_id
        bound = [*_chat_lorebook_taken(state, imported.original_header),
                 *_scenario_override_taken(state, imported.original_header)]
        store.instance_state_write(instance_id, state)
        play_as = _players_not_playing(store, state, report.get("players") or [])
        report["play_as"] = [name for name in play_as
                             if name.strip() and len(name.strip()) <= MAX_PERSONA_NAME]
        report["notes"] = [*report["notes"], *_authors_note_taken(store, instance_id,
                                                                  imported.original_header),
                           *_player_named(store, state, play_as), *bound]
    instance_index(store, instance_id)
    memory_runtime.session_imported(store, instance_id=instance_id, session_id=session_id)
    return session_id, report


def _greeting_session_dropped(store: FileStore, instance_id: str, session_id: str) -> bool:
    """Remove a session that holds nothing but the greetings a new chat starts with (and its
    line index); a session anyone spoke in stays. True when it was removed."""
    read = store.session_read(instance_id, session_id)
    if read.problems or any(not line.get("greeting") for line in read.lines if line.get("role")):
        return False
    path = store.session_path(instance_id, session_id)
    path.unlink()
    index_path(path).unlink(missing_ok=True)
    kept_tally_drop(path)
    return True


def _first_message_taken(store: FileStore, state: dict[str, Any], lines: list[dict[str, Any]],
                         index: int) -> list[str]:
    """A chat that names its greeting without holding it (RisuAI's) starts with the story
    character's greeting it names, its other greetings as swipes, as it did there. Changes
    `lines`."""
    greeting = greeting_lines(character_for_chat_optional(
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
    """SillyTavern binds a lorebook to a chat by name (`chat_metadata.world_info`): the
    owner's own book of that name is read in this story too (never another account's shared
    one: anyone may name a book after one others bind). Changes `state`."""
    metadata = header.get("chat_metadata") if isinstance(header, dict) else None
    name = metadata.get("world_info") if isinstance(metadata, dict) else None
    if not isinstance(name, str) or not name.strip():
        return []
    owner = get_user_model().objects.filter(username=state.get("owner") or "").first()
    found = lorebook_named(name, user=owner) if owner else None
    shown = name.strip()[:NAME_SHOWN_CHARS]
    if found is None:
        return [(f"The chat's lorebook \"{shown}\" is not in your library: import it, then pick "
                 "it under \"Lorebooks of this chat\".")]
    ids = state.get("lorebook_ids") if isinstance(state.get("lorebook_ids"), list) else []
    if found not in ids:
        state["lorebook_ids"] = [*ids, found]
    return [f"The chat's lorebook \"{shown}\" is read in this story."]


def _scenario_override_taken(state: dict[str, Any], header: Any) -> list[str]:
    """SillyTavern's scenario override (`chat_metadata.scenario`) goes on being read in place
    of the cards' scenarios. Changes `state`."""
    metadata = header.get("chat_metadata") if isinstance(header, dict) else None
    scenario = metadata.get("scenario") if isinstance(metadata, dict) else None
    if not isinstance(scenario, str) or not scenario.strip():
        return []
    state["scenario_override"] = scenario.strip()[:MAX_SCENARIO_OVERRIDE]
    return ["The chat's scenario override is read in place of the character's scenario."]


def _playing(store: FileStore, state: dict[str, Any]) -> str:
    return persona_effective(store, owner=state.get("owner"),
                             persona_id=state.get("persona_id"))["name"]


def import_report_play_as(store: FileStore, *, state: dict[str, Any],
                          report: dict[str, Any]) -> dict[str, Any]:
    """The import report as the chat page shows it now: "Play as" for each name the import
    offered but the one played now (after "Play as Ann", Ann's button goes and the others stay),
    and the note saying who the player was gone once one of them plays."""
    playing = _playing(store, state)
    offered = [name for name in report.get("play_as") or [] if name != playing]
    notes = report.get("notes") or []
    if playing in (report.get("players") or []):
        notes = [note for note in notes
                 if not (isinstance(note, str) and note.startswith(PLAYER_WAS))]
    return {**report, "play_as": offered, "notes": notes}


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
    return [(f"{PLAYER_WAS} {names}; your new lines are "
             f"{_playing(store, state)[:NAME_SHOWN_CHARS]}'s. To go on as them, press "
             "\"Play as\" below, or pick or make that persona under \"You are\".")]


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
    return [f"Author's note (depth {note['depth']}, every {note['frequency']} turns): {shown}"
            + note_position_moved(header["chat_metadata"])]


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
        return [(f"{said} \"Go on as a group\" starts a new conversation with all of them and "
                 "this chat in it.")], found.names
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
