"""Reads for the chat page: which lines of a session the page shows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.urls import reverse

from chat.groups.members import is_group, member_ids, members_of, members_title
from chat.history_manager.base import line_fingerprint
from chat.models import Trace
from chat.play.macros import page_macro_values
from chat.play.regex_scripts import line_display_for
from library.avatars import avatar_file
from library.background_picture import background_picture_file
from library.errors import ItemWithheld
from library.selectors import (
    ChatCharacters,
    background_for_chat,
    character_for_chat_optional,
    persona_effective,
)
from personalab.lib.filestore.session_read import SessionRead
from personalab.lib.filestore.store import FileStore
from personalab.lib.jsontext import json_loads
from personalab.lib.line_macros import line_macros_replace
from personalab.lib.lines import session_line_problem
from personalab.lib.llm_providers import provider_for
from personalab.lib.markers import markers_removed
from personalab.lib.membership import member_changes_read
from personalab.lib.store_errors import StoreError
from personalab.llm_config import llm_settings_from_env

CHAT_PAGE_SIZE = 40


class ShownLine(dict):
    """A session line as the page's templates read it: a field the line does not have is None,
    as `{% if %}` already took it. On a missing key Django's template engine tries it as an
    attribute, then lists the dict's attributes (`dir`) and tries it as a number before it
    gives up: the message template asks each line for a dozen fields most lines lack (hidden,
    edited, reasoning, interrupted, …), and that was a fifth of the chat page's render."""

    # id() of the read's own line it copies: what display_depths keys a depth by.
    source_id: int = 0

    def __missing__(self, key: str) -> None:
        return None


def _shown_line(line: dict[str, Any]) -> ShownLine:
    shown = ShownLine(line)
    shown.source_id = id(line)
    return shown


@dataclass
class MessageItem:
    line: dict[str, Any]
    index: int
    fingerprint: str
    is_last_reply: bool
    # The point of this reply's marker the director did not take (the beat was held).
    held_point: int | None = None


@dataclass
class MessageWindow:
    items: list[MessageItem]
    # The line index to ask for when the player scrolls up (None: nothing older).
    older_before: int | None


def _shown(line: dict[str, Any]) -> bool:
    return bool(line.get("role")) or line.get("type") in ("summary", "note")


def chat_messages_window(read: SessionRead, *, before: int | None = None,
                         size: int = CHAT_PAGE_SIZE) -> MessageWindow:
    """The newest `size` shown lines before line index `before` (the end when None), oldest
    first. Walks back from the end so a huge session costs only the lines it shows. `read` may
    hold only a stretch of the session (read_session_stretch): indexes stay the session's."""
    lines, base = read.lines, read.first_index
    end = len(lines) if before is None else max(0, min(before - base, len(lines)))
    last_reply = read.last_message_index
    if last_reply is None:
        last_reply = next((base + i for i in range(len(lines) - 1, -1, -1)
                           if lines[i].get("role") in ("user", "assistant")), None)
    picked: list[int] = []
    index = end - 1
    while index >= 0 and len(picked) < size:
        if _shown(lines[index]):
            picked.append(index)
        index -= 1
    while index >= 0 and not _shown(lines[index]):
        index -= 1
    items = [MessageItem(line=_shown_line(lines[i]), index=base + i,
                         fingerprint=line_fingerprint(lines[i]),
                         is_last_reply=base + i == last_reply
                         and lines[i].get("role") == "assistant")
             for i in reversed(picked)]
    _held_points_add(items)
    older = index >= 0 and picked
    return MessageWindow(items=items, older_before=base + picked[-1] if older else None)


def _held_points_add(items: list[MessageItem]) -> None:
    """Each reply whose marker a held beat kept from the story learns which point it named:
    one query, for the replies that carry a marker."""
    traced = {str(item.line.get("trace_id")): item for item in items
              if item.line.get("role") == "assistant" and item.line.get("trace_id")
              and "[PROGRESS:" in str(item.line.get("content") or "")}
    if not traced:
        return
    rows = Trace.objects.filter(trace_id__in=list(traced), held_point__isnull=False)
    for trace_id, point in rows.values_list("trace_id", "held_point"):
        traced[trace_id].held_point = point


def chat_message_item(read: SessionRead, *, index: int) -> MessageItem:
    """One line of a session as the chat page shows it (after an edit or a swipe)."""
    window = chat_messages_window(read, before=index + 1, size=1)
    return window.items[-1]


def memory_settings_effective(store: FileStore) -> dict[str, Any]:
    """The memory settings, rolling recaps resolved: unset, they are on when a model is
    configured (a long chat keeps its story once older messages leave the window) and off in
    the offline demo, whose canned recaps would only fill the prompt."""
    memory = store.module_read("memory")
    if memory.get("recaps_enabled") is None:
        llm = provider_for(llm_settings_from_env(store.module_read("llm")))
        memory["recaps_enabled"] = llm.name != "offline"
    return memory


def recap_next_due(*, last_turn: int, memory_settings: dict[str, Any]) -> int | None:
    """The turn at which the next rolling recap is written, or None when recaps are off."""
    if not memory_settings.get("recaps_enabled"):
        return None
    try:
        every = max(int(memory_settings.get("recap_every_n_rounds") or 5), 1)
    except (TypeError, ValueError):
        every = 5
    return (last_turn // every + 1) * every


def character_avatar_url(store: FileStore, character_id: str | None) -> str | None:
    if character_id and avatar_file(store.character_dir(character_id)) is not None:
        return f"/library/characters/{character_id}/avatar.png"
    return None


def background_picture_url(store: FileStore, *, state: dict[str, Any]) -> str | None:
    """The chat's background picture, while the chat reads the author's file (a kept copy
    holds no picture, and a private one would be a 404 to this reader)."""
    background = background_for_chat(store, state=state) if state.get("background_id") else {}
    if not background.get("name") or background.get("kept_at"):
        return None
    if background_picture_file(store, state["background_id"]) is None:
        return None
    return reverse("background_picture", args=[state["background_id"]])


def member_pictures(characters: ChatCharacters, character_ids: list[str]) -> dict[str, str]:
    """Each member's picture URL, for those that have one the reader may see."""
    return {character_id: url for character_id in character_ids
            if (url := _avatar_in_chat(characters, character_id))}


def _avatar_in_chat(characters: ChatCharacters, character_id: str | None) -> str | None:
    """The picture while the chat reads the author's file: a kept copy holds no picture, and
    the author's is theirs once made private (its URL would be a 404 to this reader)."""
    character = characters.optional(character_id)
    return character_avatar_url(characters.store, character_id) if character and \
        not character.get("kept_at") else None


def members_withheld(store: FileStore, *, state: dict[str, Any],
                     characters: ChatCharacters | None = None) -> list[str]:
    """The members this chat cannot play: their author made them private (or deleted them)
    and the chat kept no copy (one from before copies were kept)."""
    characters = characters or ChatCharacters(store, state=state)
    withheld = []
    for character_id in member_ids(state):
        try:
            characters.playable(character_id)
        except ItemWithheld:
            withheld.append(character_id)
    return withheld


def chat_last_reply_item(read: SessionRead) -> MessageItem:
    index = next(i for i in range(len(read.lines) - 1, -1, -1)
                 if read.lines[i].get("role") in ("user", "assistant"))
    return chat_message_item(read, index=index)


def message_render_context(store: FileStore, *, state: dict[str, Any],
                           lines: list[dict[str, Any]],
                           characters: ChatCharacters | None = None,
                           depths: dict[int, int] | None = None) -> dict[str, Any]:
    """What _message.html needs besides the item: who speaks, their pictures, the macros.
    `characters`: the page's reads of the chat's characters, when it has made some; `depths`:
    the messages' depths when `lines` end before the session does (display_depths)."""
    characters = characters or ChatCharacters(store, state=state)
    character_id = state.get("character_id")
    values = page_macro_values(store, state=state, lines=lines, characters=characters)
    return {"state": state, "character": characters.optional(character_id),
            "character_avatar": _avatar_in_chat(characters, character_id),
            # members, and whoever else said a line shown (a member who has left)
            "speaker_avatars": {
                speaker: _avatar_in_chat(characters, speaker) for speaker in dict.fromkeys(
                    [*member_ids(state), *(str(line.get("speaker") or "") for line in lines)])
                if speaker},
            "player_avatar": _persona_avatar_url(store, state),
            "player_names": player_names_carried(lines),
            "macro_values": values,
            "line_display": line_display_for(store, state=state, lines=lines, values=values,
                                             character=characters.optional(character_id),
                                             depths=depths)}


def player_line_key(line: dict[str, Any]) -> tuple:
    """A player line's key in player_names_carried: the page's templates get copies
    (ShownLine), not the read's own dicts."""
    return line.get("turn"), line.get("timestamp"), line.get("content")


def player_names_carried(lines: list[dict[str, Any]]) -> dict[tuple, str]:
    """The name each player line of `lines` shows (by player_line_key): the one stored on it,
    the persona the player was playing then (a persona chosen later never renames it); for a
    line stored without one (the demo's, a chat's lines from before names were kept), the name
    of the next player line that has one; "" after the last named line (the page shows the
    current persona there, as a new line has)."""
    names: dict[tuple, str] = {}
    carried = ""
    for line in reversed(lines):
        if line.get("role") == "user":
            carried = str(line.get("name") or "") or carried
            names.setdefault(player_line_key(line), carried)
    return names


def _persona_avatar_url(store: FileStore, state: dict[str, Any]) -> str | None:
    persona_id = persona_effective(store, owner=state.get("owner"),
                                   persona_id=state.get("persona_id"))["persona_id"]
    if persona_id and store.persona_read(persona_id).get("avatar"):
        return f"/library/personas/{persona_id}/avatar"
    return None


_TAIL_BYTES = 64 * 1024


def session_last_message(store: FileStore, *, instance_id: str,
                         session_id: str) -> dict[str, Any] | None:
    """The newest whole user/assistant line, read from the file's tail only (a session may hold
    hundreds of thousands of lines)."""
    try:
        with store.session_path(instance_id, session_id).open("rb") as handle:
            handle.seek(0, 2)
            handle.seek(max(0, handle.tell() - _TAIL_BYTES))
            tail = handle.read()
    except (OSError, ValueError):
        return None
    for raw in reversed(tail.split(b"\n")):
        try:
            line = json_loads(raw)
        except ValueError:
            continue
        if (isinstance(line, dict) and line.get("role") in ("user", "assistant")
                and session_line_problem(line) is None):
            return line
    return None


def instances_overview(store: FileStore, rows) -> list[dict[str, Any]]:
    """The instance list: each row with the character's picture, the latest message, and the
    name and archived flag the user gave it (kept in the instance's state file)."""
    overview = []
    for row in rows:
        state = store.instance_state_read(row.instance_id)
        last = session_last_message(store, instance_id=row.instance_id,
                                    session_id=row.current_session_id)
        # from the files the chat may read, not the index (another author's name made
        # private is theirs)
        characters = ChatCharacters(store, state=state)
        character = characters.optional(state.get("character_id"))
        overview.append({"row": row, "avatar": _avatar_in_chat(characters, row.character_id),
                         "name": str(state.get("name") or ""),
                         "character_name": character.get("name") or "",
                         "background_name": (background_for_chat(store, state=state).get("name")
                                             if state.get("background_id") else ""),
                         "members_title": (members_title(members_of(store, state, characters))
                                           if is_group(state) else ""),
                         "archived": bool(state.get("archived")),
                         "last": last,
                         "last_speaker": _last_speaker(last, character),
                         "last_text": last_message_preview(store, state=state, line=last)})
    # The chat played last first, as SillyTavern's recent chats: in the order they were made,
    # the one played tonight sank under every chat started since.
    return sorted(overview, key=_last_active, reverse=True)


def _last_active(entry: dict[str, Any]) -> datetime:
    """When the chat's newest line was written (else when the chat was made)."""
    for stamp in ((entry["last"] or {}).get("timestamp"), entry["row"].created_at):
        try:
            moment = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
        except ValueError:
            continue
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return datetime.min.replace(tzinfo=UTC)


def _last_speaker(line: dict[str, Any] | None, character: dict[str, Any]) -> str:
    """Who said the newest line, as the chat page names them: the line's own name (a group
    member, the player's persona), else the chat's character; "" for the player unnamed
    (the page then says "You")."""
    if not line:
        return ""
    if line.get("name"):
        return str(line["name"])
    return "" if line.get("role") == "user" else str(character.get("name") or "")


def last_message_preview(store: FileStore, *, state: dict[str, Any],
                         line: dict[str, Any] | None) -> str:
    """The newest line as the chat page reads it ({{user}}, {{char}}… filled in), without the
    emphasis asterisks the page renders as italics and the director's progress markers the page
    shows as a badge (the home page showed "[PROGRESS:5:in_progress]"), on one line."""
    if not line or not isinstance(line.get("content"), str):
        return ""
    text = markers_removed(line["content"])
    if "{{" in text or "<" in text:  # the macro values cost a persona and a character read
        text = line_macros_replace(line, page_macro_values(store, state=state, lines=[line]))
    return " ".join(text.replace("*", "").split())


def member_changes_shown(store: FileStore, *, instance_id: str) -> list[dict[str, Any]]:
    """The journal of member changes (who joined, left, was muted), newest first, with names;
    `hand_over_to` names the member who became the story's character when the first one left."""
    names: dict[str, str] = {}
    try:
        state = store.instance_state_read(instance_id)
    except (StoreError, ValueError):
        state = {"instance_id": instance_id, "owner": ""}  # nobody's: only shared files

    def name(character_id: Any) -> str:
        character_id = str(character_id or "")
        if character_id not in names:
            names[character_id] = character_for_chat_optional(
                store, state=state, character_id=character_id).get("name") or character_id
        return names[character_id]

    shown = []
    for record in reversed(member_changes_read(store, instance_id)):
        handed = record.get("character_id_before") != record.get("character_id_after")
        shown.append({**record, "name": name(record.get("character_id")),
                      "hand_over_to": name(record.get("character_id_after")) if handed else ""})
    return shown
