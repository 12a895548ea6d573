"""History routes of /api/v1/ under instances/{instance_id}/: the sessions of a chat, a
page of its messages, and the history manager's changes (edit, delete, undo, swipe,
branch, archive), with a chat file imported into a chat, regrouped or exported."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from ninja import File, Router, Status
from ninja.files import UploadedFile

from chat.api.schemas import (
    BranchIn,
    BranchOut,
    HistoryChange,
    MessageEditIn,
    MessagesPage,
    SessionList,
    SwipeIn,
    SwipeOut,
    UndoIn,
)
from chat.history_manager import edits as history
from chat.history_manager import reads as history_read
from chat.import_export.exports import (
    export_filename,
    export_response,
    session_export_limited,
    session_import_limited,
    session_regroup_limited,
)
from chat.services.index import instance_index
from chat.services.instances import instance_for_user
from chat.services.sessions import (
    session_archive_and_restart,
    session_live_check,
)
from personalab.lib.errors import TooLarge
from personalab.storage import get_store

history_router = Router(tags=["history"])
SESSION = "/instances/{instance_id}/sessions/{session_id}"


@history_router.get("/instances/{instance_id}/sessions", response=SessionList)
def sessions_list(request: HttpRequest, instance_id: str):
    instance_for_user(request.auth, instance_id)
    return {"sessions": history_read.session_list(get_store(), instance_id=instance_id)}


@history_router.get(SESSION + "/messages", response=MessagesPage,
                    description="One page of messages and summaries, oldest first; no `page` is "
                                "the last page. Each row's `index` and `fingerprint` name the "
                                "line for edit, delete and branch. `session_id` may be an "
                                "archived session's key from the session list.")
def messages_page(request: HttpRequest, instance_id: str, session_id: str,
                  page: int | None = None, q: str = ""):
    instance_for_user(request.auth, instance_id)
    return history_read.messages_page(get_store(), instance_id=instance_id, session_key=session_id,
                                 page=page, query=q)


@history_router.get(SESSION + "/messages/{index}", response=dict[str, Any],
                    description="One line as the file holds it (macros as written), as a row of "
                                "the messages page; 409 when `fingerprint` no longer matches.")
def message_detail(request: HttpRequest, instance_id: str, session_id: str, index: int,
                   fingerprint: str):
    instance_for_user(request.auth, instance_id)
    return history_read.message_read(get_store(), instance_id=instance_id, session_key=session_id,
                                index=index, fingerprint=fingerprint)


@history_router.put(SESSION + "/messages/{index}", response=HistoryChange,
                    description="`text` replaces the message's text (answers an `undo_token`); "
                                "`hidden: true` hides it from the model (kept in the session and "
                                "on the page; not sent, not scanned for lore, not summarized, not "
                                "recalled), `false` shows it again. Either or both; neither is a "
                                "400 naming `text`.")
def message_edit(request: HttpRequest, instance_id: str, session_id: str, index: int,
                 payload: MessageEditIn):
    instance_for_user(request.auth, instance_id)
    return history.message_change(get_store(), instance_id=instance_id, session_id=session_id,
                                  index=index, fingerprint=payload.fingerprint,
                                  text=payload.text, hidden=payload.hidden)


@history_router.delete(SESSION + "/messages/{index}", response=HistoryChange)
def message_delete(request: HttpRequest, instance_id: str, session_id: str, index: int,
                   fingerprint: str):
    instance_for_user(request.auth, instance_id)
    return history.message_delete(get_store(), instance_id=instance_id, session_id=session_id,
                                  index=index, fingerprint=fingerprint)


@history_router.post("/instances/{instance_id}/history/undo", response=dict[str, Any])
def history_undo(request: HttpRequest, instance_id: str, payload: UndoIn):
    instance_for_user(request.auth, instance_id)
    return history.undo(get_store(), instance_id=instance_id, token=payload.token)


@history_router.post(SESSION + "/swipe", response=SwipeOut,
                     description="Show another version of the latest reply; `alternative` is an "
                                 "index into the line's `alternatives`.")
def reply_swipe(request: HttpRequest, instance_id: str, session_id: str, payload: SwipeIn):
    instance_for_user(request.auth, instance_id)
    return history.reply_choose_alternative(get_store(), instance_id=instance_id,
                                            session_id=session_id, turn=payload.turn,
                                            alternative_index=payload.alternative)


@history_router.post(SESSION + "/branch", response={201: BranchOut},
                     description="A new current session with the lines up to and including "
                                 "`index`; the source session is kept as it is.")
def session_branch(request: HttpRequest, instance_id: str, session_id: str, payload: BranchIn):
    instance_for_user(request.auth, instance_id)
    store = get_store()
    result = history.session_branch(store, instance_id=instance_id, session_id=session_id,
                                    index=payload.index, fingerprint=payload.fingerprint)
    instance_index(store, instance_id)
    return Status(201, result)


@history_router.post(SESSION + "/archive", response=dict[str, Any],
                     description="Moves the session to sessions/archive/ (never destroyed); "
                                 "archiving the current one starts a fresh session.")
def session_archive(request: HttpRequest, instance_id: str, session_id: str):
    instance_for_user(request.auth, instance_id)
    store = get_store()
    session_live_check(store, instance_id=instance_id, session_id=session_id)
    return session_archive_and_restart(store, instance_id=instance_id,
                                       session_id=session_id)


# --- chats of other front ends ------------------------------------------------------------

MAX_CHAT_BYTES = 10 * 1024 * 1024


@history_router.post("/instances/{instance_id}/import_chat", response={201: dict[str, Any]},
                     description="A chat exported by SillyTavern (JSONL), Agnai or RisuAI (JSON), "
                                 "multipart field `file`, at most 10 MB, becomes a new current "
                                 "session.")
def chat_import(request: HttpRequest, instance_id: str, file: File[UploadedFile]):
    instance_for_user(request.auth, instance_id)
    if file.size > MAX_CHAT_BYTES:
        raise TooLarge("file is larger than 10 MB", fields={"file": "at most 10 MB"})
    session_id, report = session_import_limited(request.auth, instance_id=instance_id,
                                                data=file.read())
    return Status(201, {"session_id": session_id, "imported": report})


@history_router.post(SESSION + "/regroup", response={201: dict[str, Any]},
                     description="An imported group chat (its `chat_metadata.personalab_group`) "
                                 "goes on in a new conversation with every member it lists, "
                                 "each one a character you may use.")
def chat_regroup(request: HttpRequest, instance_id: str, session_id: str):
    new_id, new_session_id, report = session_regroup_limited(
        request.auth, instance_id=instance_id, session_id=session_id)
    return Status(201, {"instance_id": new_id, "session_id": new_session_id,
                        "imported": report})


@history_router.get(SESSION + "/export", response={200: None},
                    description="The session as SillyTavern JSONL (`format=jsonl`) or Markdown; "
                                "`character=char_x`: one member's own chat from a group.")
def chat_export(request: HttpRequest, instance_id: str, session_id: str,
                format: Literal["jsonl", "md"] = "jsonl", character: str | None = None):
    body, content_type = session_export_limited(request.auth, instance_id=instance_id,
                                                session_id=session_id, fmt=format,
                                                character=character)
    return export_response(body, content_type=content_type, filename=export_filename(
        instance_id=instance_id, session_id=session_id, fmt=format, character=character))

