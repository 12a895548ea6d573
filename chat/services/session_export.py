"""A session exported (SillyTavern JSONL or Markdown, a group member's own chat), and an
imported group chat going on as a group (export, then import into a new conversation)."""

from __future__ import annotations

from typing import Any, Protocol

from chat.groups.cards import card_join_settings
from chat.groups.members import is_group, members_of, members_title
from chat.groups.prompt import said_by_another, unnamed_lines_by
from chat.groups.speakers import STRATEGIES, Member
from chat.import_export.chat_markdown import chat_export_markdown
from chat.import_export.imported_groups import chat_group, group_found
from chat.import_export.st_avatars import st_avatar_files
from chat.import_export.st_chat_export import chat_export_jsonl
from chat.import_export.st_note import st_metadata_with_note
from chat.play.macros import greeting_as_shown, page_macro_values
from chat.services.instances import MAX_MEMBERS, instance_create, instance_for_user
from chat.services.session_import import session_import
from chat.services.sessions import session_live_check, session_read_repaired
from chat.templatetags.sessions import session_label
from library.selectors import (
    background_for_use,
    character_for_chat_optional,
    persona_effective,
    persona_for_user,
)
from memory.authors_note import authors_note_read
from personalab.lib.errors import AppError, Invalid
from personalab.lib.filestore.store import FileStore
from personalab.lib.filestore.variables import session_variables_read
from personalab.lib.shown import value_shown
from personalab.lib.store_errors import StoreError


def session_export(store: FileStore, *, instance_id: str, session_id: str,
                   fmt: str, character: str | None = None) -> tuple[bytes, str]:
    """An imported session goes back out with its own header (chat_metadata, names, date).
    `character`: a conversation with several characters as that one member's own chat."""
    read = session_read_repaired(store, instance_id, session_id)
    state = store.instance_state_read(instance_id)
    lines = _greetings_as_shown(store, state, read.lines)
    character_name = character_for_chat_optional(
        store, state=state, character_id=state.get("character_id")).get(
            "name", state.get("character_id", ""))
    if character is not None:
        member = next((m for m in members_of(store, state) if m.character_id == character), None)
        if member is None:
            raise Invalid(f"{value_shown(character)} is not a member of this conversation",
                          field="character")
        character_name, lines = member.name, _lines_of_one(lines, member, unnamed_lines_by(state))
    user_name = persona_effective(store, owner=state.get("owner"),
                                  persona_id=state.get("persona_id"))["name"]
    if fmt == "md":
        cast = character_name
        if character is None and is_group(state):
            cast = members_title(members_of(store, state)) or character_name
            # Replies written before a second member joined carry no name: they are the solo
            # character's, not the group's ("Lyra & Bram" headed each of them).
            character_name = character_for_chat_optional(
                store, state=state, character_id=unnamed_lines_by(state)).get(
                    "name", character_name)
        text = chat_export_markdown(lines=lines, user_name=user_name,
                                    character_name=character_name, cast=cast,
                                    title=_markdown_title(state, cast, session_id))
        return text.encode("utf-8"), "text/markdown; charset=utf-8"
    imported = read.metadata.get("imported")
    header = imported.get("header") if isinstance(imported, dict) else None
    header = dict(header) if isinstance(header, dict) else {}
    header["chat_metadata"] = st_metadata_with_note(
        header.get("chat_metadata") or {}, authors_note_read(store, instance_id=instance_id))
    if state.get("scenario_override"):  # where SillyTavern keeps its scenario override
        header["chat_metadata"] = {**header["chat_metadata"],
                                   "scenario": state["scenario_override"]}
    own = session_variables_read(store, instance_id=instance_id, session_id=session_id)
    if own is not None:  # the chat's {{setvar}}s, where SillyTavern saves them
        header["chat_metadata"] = {**header["chat_metadata"], "variables": own["variables"]}
    avatars = None
    if is_group(state) and character is None:
        header = _group_header(header, members_of(store, state), state)
        avatars = _member_avatars(members_of(store, state), lines)
    body = chat_export_jsonl(lines=lines, user_name=user_name,
                             character_name=character_name,
                             created_at=read.metadata.get("created_at", ""), header=header,
                             avatars=avatars)
    return body, "application/jsonl"


def _greetings_as_shown(store: FileStore, state: dict[str, Any],
                        lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The greetings as the player saw them, as SillyTavern saves them: an export opened there
    would fill {{user}} with its own persona and roll {{roll}} again."""
    if not any(line.get("greeting") and not line.get("macros_filled") for line in lines):
        return lines
    values = page_macro_values(store, state=state, lines=lines)
    return [greeting_as_shown(line, values) if line.get("greeting") else line for line in lines]


class ChatExport(Protocol):
    """A session as SillyTavern JSONL (chat/import_export/exports.py passes the export workers)."""

    def __call__(self, *, instance_id: str, session_id: str) -> bytes: ...


def session_regroup(store: FileStore, *, user, instance_id: str, session_id: str,
                    export: ChatExport | None = None) -> tuple[str, str, dict[str, Any]]:
    """An imported group chat goes on as a group: a new conversation with every member its
    header lists (each one `user` may use), on this story's background, with this chat in it.
    The chat is exported before the conversation is made, so a refused export leaves none.
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
        raise Invalid("this chat's characters are not a group of characters in "
                                    "your library" + (f" (missing: {', '.join(found.absent[:5])})"
                                                      if found.absent else ""), field="session_id")
    if export is None:
        data = session_export(store, instance_id=instance_id, session_id=session_id,
                              fmt="jsonl")[0]
    else:
        data = export(instance_id=instance_id, session_id=session_id)
    order = group.reply_order
    new_id = instance_create(store, owner=user, character_ids=found.usable,
                             background_id=_still_usable(
                                 lambda b: background_for_use(store, user=user, background_id=b),
                                 state.get("background_id")),
                             persona_id=_still_usable(
                                 lambda p: persona_for_user(user=user, persona_id=p),
                                 state.get("persona_id")),
                             reply_order=order if order in STRATEGIES else None,
                             card_join=group.card_join)
    new_session_id, report = session_import(store, instance_id=new_id, data=data, new_chat=True)
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


def _member_avatars(members: list[Member], lines: list[dict[str, Any]]) -> dict[str, str]:
    """Each speaker's avatar file in SillyTavern by character id, members first, then those who
    left: the one its imported lines came with, else the one SillyTavern gives its card."""
    names = {m.character_id: m.name for m in members}
    carried: dict[str, str] = {}
    for line in lines:
        speaker = line.get("speaker")
        if line.get("role") != "assistant" or not isinstance(speaker, str) or not speaker:
            continue
        names.setdefault(speaker, str(line.get("name") or speaker))
        own = line.get("carried") if isinstance(line.get("carried"), dict) else {}
        if isinstance(own.get("original_avatar"), str) and own["original_avatar"]:
            carried.setdefault(speaker, own["original_avatar"])
    named = [speaker for speaker in names if speaker not in carried]
    files = st_avatar_files([names[speaker] for speaker in named], taken=carried.values())
    return {**carried, **dict(zip(named, files))}


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
        "reply_order": state.get("reply_order") or "natural",
        "allow_self_responses": state.get("allow_self_responses") is True,
        **card_join_settings(state)}
    header["chat_metadata"] = metadata
    return header


def _markdown_title(state: dict[str, Any], character_name: str, session_id: str) -> str:
    """"Night run · Mira · conversation 2": what the player calls the chat and the session,
    never their ids (the newcomer round found "Mira · inst_004 · sess_001")."""
    return " · ".join(part for part in (state.get("name"), character_name,
                                        session_label(session_id)) if part)
