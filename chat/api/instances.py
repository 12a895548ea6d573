"""Chat routes of /api/v1/: instances, their members and settings, the turn (JSON or
SSE), sessions and traces. The history manager's routes are in chat/api/history.py."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpRequest
from ninja import Body, Router, Status

from chat import selectors
from chat.api.schemas import (
    AsideOut,
    BackgroundSwitchIn,
    ChatIn,
    ChatOut,
    CurrentResponse,
    GenerationSettings,
    GenerationSettingsIn,
    ImpersonateOut,
    InstanceCreated,
    InstanceDetail,
    InstanceIn,
    InstanceList,
    InstanceUpdateIn,
    MemberChangeIn,
    MemberChangesOut,
    MemberIn,
    PlayAsIn,
    PlayAsOut,
    PlotHoldIn,
    PlotStateIn,
    RedoOut,
)
from chat.groups.round import conversation_turn, round_going
from chat.live.followers import plot_changed_publish
from chat.live.refusal_words import refusal_said, warning_said
from chat.live.sse import aside_stream, chat_stream, impersonate_stream, redo_stream
from chat.models import Instance, Trace
from chat.play.aside import aside_run, aside_speaker
from chat.play.impersonate import impersonate_run
from chat.play.redo import redo_run
from chat.play.turn import TurnRefused, events_dropped, validate_user_text
from chat.services import instance_settings, instances
from chat.services.generation import (
    generation_defaults_read,
    generation_defaults_update,
    generation_for_instance,
)
from chat.services.instance_settings import instance_background_switch, instance_update
from chat.services.instances import instance_for_user, instances_visible_to
from chat.services.members import (
    instance_member_add,
    instance_member_change,
    instance_member_remove,
)
from chat.services.prompt_manager import instance_preset_apply, instance_preset_export
from chat.services.sessions import (
    session_archive_and_restart,
    session_live_check,
    session_read_repaired,
    session_summary,
)
from chat.services.traces import trace_info, trace_rebuild, trace_sections
from director.services import director_status
from memory.vectors.fill import progress_get as index_progress
from personalab.lib.body_fields import body_fields_check
from personalab.lib.errors import AppError, Invalid, NotFound, naming_field
from personalab.lib.ids import validate_id
from personalab.lib.participants import member_ids
from personalab.lib.store_errors import StoreError
from personalab.storage import get_store

router = Router(tags=["instances"])
chat_router = Router(tags=["chat"])


def instance_out(row: Instance, state: dict[str, Any] | None = None) -> dict:
    # A shared character its author deleted leaves the index row without one (SET_NULL) while
    # the chat plays on from its kept copy: the file still names it.
    state_ids = state or {}
    out = {"instance_id": row.instance_id,
           "character_id": row.character_id or str(state_ids.get("character_id") or ""),
           "background_id": row.background_id or state_ids.get("background_id"),
           "current_session_id": row.current_session_id,
           "created_at": row.created_at, "owner": row.owner.username if row.owner else None}
    if state is not None:  # what the player gave it, from its file (the index has neither)
        out.update(name=str(state.get("name") or ""), archived=bool(state.get("archived")),
                   character_ids=member_ids(state))
    return out


def _state_listed(store, instance_id: str) -> dict[str, Any] | None:
    try:
        return store.instance_state_read(instance_id)
    except StoreError:  # a broken instance is still listed; its own page says what is wrong
        return None


@router.get("/instances", response=InstanceList)
def instances_list(request: HttpRequest):
    store = get_store()
    return {"instances": [instance_out(row, _state_listed(store, row.instance_id))
                          for row in instances_visible_to(request.auth)]}


@router.post("/instances", response={201: InstanceCreated})
def instance_create(request: HttpRequest, payload: InstanceIn):
    """A field not listed here is a 400 `unknown_field`."""
    body_fields_check(payload.model_dump(exclude_unset=True), writable=InstanceIn.model_fields,
                      shown={})
    if payload.character_ids is None and payload.character_id is None:
        raise Invalid("name a character (character_id or character_ids)",
                      code="missing_field", field="character_id")
    if payload.background_id is not None:
        validate_id(payload.background_id, kind="background id")
    instance_id = instances.instance_create(get_store(), owner=request.auth,
                                            character_id=payload.character_id,
                                            character_ids=payload.character_ids,
                                            reply_order=payload.reply_order,
                                            background_id=payload.background_id,
                                            persona_id=payload.persona_id)
    return Status(201, {"instance_id": instance_id})


@router.get("/instances/{instance_id}", response=InstanceDetail)
def instance_detail(request: HttpRequest, instance_id: str):
    row = instance_for_user(request.auth, instance_id)
    store = get_store()
    state = store.instance_state_read(instance_id)
    return {**instance_out(row, state),
            "instance_state": state,
            "character_state": store.character_state_read(instance_id),
            "director": director_status(store, instance_id=instance_id),
            "sessions": store.session_ids(instance_id),
            "generation": state.get("generation") or {},
            "generation_effective": generation_for_instance(store, state),
            "index": index_progress(store, instance_id=instance_id)}


@router.put("/instances/{instance_id}", response=InstanceDetail)
def instance_change(request: HttpRequest, instance_id: str, payload: InstanceUpdateIn):
    """Only the fields listed here change; the others GET shows may be sent back unchanged (a
    changed one is a 400 `read_only_field`, one GET does not show a 400 `unknown_field`)."""
    if payload.model_extra:
        body_fields_check(payload.model_extra, writable=(),
                          shown=instance_detail(request, instance_id))
    changes = payload.listed()
    instance_update(get_store(), user=request.auth, instance_id=instance_id, **{
        name: value for name, value in changes.items()
        if value is not None or name in ("persona_id", "lorebook_ids")})
    return instance_detail(request, instance_id)


@router.post("/instances/{instance_id}/play_as", response=PlayAsOut)
def instance_play_as(request: HttpRequest, instance_id: str, payload: PlayAsIn):
    """Go on as the player of an imported chat: your persona of that name (or a shared one),
    else a new one, picked for this conversation."""
    return instance_settings.instance_play_as(get_store(), user=request.auth,
                                              instance_id=instance_id, name=payload.name)


MEMBER = "/instances/{instance_id}/members/{character_id}"


@router.get("/instances/{instance_id}/members/changes", response=MemberChangesOut,
            tags=["conversations"])
def member_changes(request: HttpRequest, instance_id: str):
    """The journal of member changes (join, leave, mute, talkativeness), newest first; each
    names the participants before and after, and the last turn said before it."""
    instance_for_user(request.auth, instance_id)
    return {"changes": selectors.member_changes_shown(get_store(), instance_id=instance_id)}


@router.post("/instances/{instance_id}/members", response={201: InstanceDetail},
             tags=["conversations"])
def member_add(request: HttpRequest, instance_id: str, payload: MemberIn):
    """A character joins the conversation (answers from the next round on)."""
    instance_member_add(get_store(), user=request.auth, instance_id=instance_id,
                        character_id=payload.character_id, muted=payload.muted,
                        talkativeness=payload.talkativeness)
    return Status(201, instance_detail(request, instance_id))


@router.put(MEMBER, response=InstanceDetail, tags=["conversations"])
def member_change(request: HttpRequest, instance_id: str, character_id: str,
                  payload: MemberChangeIn):
    instance_member_change(get_store(), user=request.auth, instance_id=instance_id,
                           character_id=character_id,
                           **payload.model_dump(exclude_unset=True))
    return instance_detail(request, instance_id)


@router.delete(MEMBER, response=InstanceDetail, tags=["conversations"])
def member_remove(request: HttpRequest, instance_id: str, character_id: str):
    """The character leaves; its lines stay in the story."""
    instance_member_remove(get_store(), user=request.auth, instance_id=instance_id,
                           character_id=character_id)
    return instance_detail(request, instance_id)


@router.post("/instances/{instance_id}/generation/preset", response=InstanceDetail)
def instance_preset_import(request: HttpRequest, instance_id: str,
                           preset: Body[dict[str, Any]]):
    """A SillyTavern Chat Completion preset JSON as the body: its sampling settings replace
    the instance's and its prompts become the instance's prompt blocks (what was left out, and
    why: `GET …/prompt_manager`)."""
    instance_preset_apply(get_store(), user=request.auth, instance_id=instance_id,
                          preset=preset)
    return instance_detail(request, instance_id)


@router.get("/instances/{instance_id}/generation/preset", response=dict[str, Any])
def instance_preset_get(request: HttpRequest, instance_id: str):
    """The instance's samplers and prompt blocks as a SillyTavern Chat Completion preset."""
    return instance_preset_export(get_store(), user=request.auth, instance_id=instance_id)


@router.get("/generation", response=GenerationSettings, tags=["generation"])
def generation_defaults(request: HttpRequest):
    """The account's default generation settings (an instance's own values win)."""
    return {"generation": generation_defaults_read(get_store(), user=request.auth)}


@router.put("/generation", response=GenerationSettings, tags=["generation"])
def generation_defaults_change(request: HttpRequest, payload: GenerationSettingsIn):
    body_fields_check(payload.model_dump(exclude_unset=True), writable=("generation",),
                      shown={})
    return {"generation": generation_defaults_update(
        get_store(), user=request.auth, changes=payload.generation)}


@router.post("/instances/{instance_id}/background", response=dict[str, Any],
             description="Switch to another background (one you may use) or none; the story "
                         "progress is kept.")
def instance_background(request: HttpRequest, instance_id: str, payload: BackgroundSwitchIn):
    instance_for_user(request.auth, instance_id)
    return instance_background_switch(get_store(), user=request.auth,
                                      instance_id=instance_id,
                                      background_id=payload.background_id)


@router.put("/instances/{instance_id}/plot_state", response=dict[str, Any],
            description="Move the story by hand: skip to, go back to or finish a point of the "
                        "outline (the director's plot state). Answers with the director's view "
                        "of the chat, as `GET /instances/{id}` shows it under `director`.")
def instance_plot_state(request: HttpRequest, instance_id: str, payload: PlotStateIn):
    store = get_store()
    instance_settings.instance_plot_set(store, user=request.auth, instance_id=instance_id,
                                        index=payload.current_plot_index,
                                        status=payload.current_status)
    director = director_status(store, instance_id=instance_id)
    plot_changed_publish(instance_id, director=director)
    return director


@router.put("/instances/{instance_id}/plot_hold", response=dict[str, Any],
            description="Hold this beat (owner only): while `held`, the director keeps the "
                        "story at the current outline point; a point set by hand keeps the "
                        "hold. Answers with the director's view of the chat (`held`).")
def instance_plot_hold(request: HttpRequest, instance_id: str, payload: PlotHoldIn):
    store = get_store()
    instance_settings.instance_plot_hold(store, user=request.auth, instance_id=instance_id,
                                         held=payload.held)
    director = director_status(store, instance_id=instance_id)
    plot_changed_publish(instance_id, director=director)
    return director


# --- the turn -------------------------------------------------------------------------------


@chat_router.post("/chat", response=ChatOut | AsideOut | ImpersonateOut,
                  description="One turn. With `stream: true` the answer is a text/event-stream of "
                              "`token` and `warning` events ending in one `done` or `error`. "
                              "With `mode: aside` a quick word with one character that is not "
                              "written into the story (answered as AsideOut, or with `stream: "
                              "true` as `aside_token` events ending in one `aside_done`). "
                              "With `mode: impersonate` a suggestion for the player's next "
                              "message, not written anywhere (ImpersonateOut, or with `stream: "
                              "true` `impersonate_token` events ending in one "
                              "`impersonate_done`); 409 while a reply streams.")
async def chat(request: HttpRequest, payload: ChatIn):
    instance_id = validate_id(payload.instance_id, kind="instance id")
    with naming_field("instance_id"):
        await sync_to_async(instance_for_user)(request.auth, instance_id)
    if payload.mode == "impersonate":
        return await _impersonate(instance_id, stream=payload.stream)
    if payload.query is None:
        raise Invalid("Field required", code="missing_field", field="query")
    try:
        query = validate_user_text(payload.query)
    except TurnRefused as exc:
        said = refusal_said(exc.code, exc.message)
        raise AppError(said, code=exc.code, status=exc.status, fields={"query": said}) from None
    speaker = None if payload.speaker is None else validate_id(payload.speaker, kind="speaker")
    if payload.mode == "aside":
        return await _aside(instance_id, query, speaker=speaker, stream=payload.stream)
    if payload.stream:
        return chat_stream(instance_id, query, speaker=speaker)
    warnings: list[dict] = []
    names: dict[str, str] = {}

    async def emit(event: dict) -> None:
        if event.get("type") == "warning":
            warnings.append(event)
        elif event.get("type") == "speaker":
            names[event["speaker"]] = event["name"]

    with _refusal_said():
        results = await conversation_turn(get_store(), instance_id=instance_id,
                                          user_text=query, emit=emit, speaker=speaker)
    if not results:  # nobody answered (manual order, every member muted): the line is kept
        kept = await asyncio.to_thread(_players_line_kept, instance_id)
        return {"trace_id": None, **kept, "instance_id": instance_id,
                "answer_text": "", "warnings": [warning_said(w) for w in warnings],
                "interrupted": False, "empty": True, "truncated": False, "error": None}
    result = results[-1]
    return {"trace_id": result.trace_id, "session_id": result.session_id,
            "instance_id": instance_id, "turn": result.turn, "answer_text": result.answer_text,
            "warnings": [warning_said(w) for w in result.warnings],
            "interrupted": result.interrupted,
            "empty": result.empty, "truncated": result.truncated, "error": result.error,
            "speaker": result.speaker,
            "replies": [{"speaker": r.speaker, "name": names.get(r.speaker, r.speaker),
                         "trace_id": r.trace_id, "turn": r.turn, "answer_text": r.answer_text}
                        for r in results if r.speaker]}


REDO_DESCRIPTION = ("The chat page's {sign} button: {what} (the old text is kept as an "
                    "alternative). When the chat ends with the player's line the missing reply "
                    "is asked for instead. No body; `?stream=true`: the same events as "
                    "`POST chat` with `stream`.")


@chat_router.post("/instances/{instance_id}/regenerate", response=RedoOut,
                  description=REDO_DESCRIPTION.format(sign="↻", what="a new version of the "
                                                                      "last reply"))
async def chat_regenerate(request: HttpRequest, instance_id: str, stream: bool = False):
    return await _redo(request, instance_id, action="regenerate", stream=stream)


@chat_router.post("/instances/{instance_id}/continue", response=RedoOut,
                  description=REDO_DESCRIPTION.format(sign="→", what="the last reply goes on"))
async def chat_continue(request: HttpRequest, instance_id: str, stream: bool = False):
    return await _redo(request, instance_id, action="continue", stream=stream)


async def _redo(request: HttpRequest, instance_id: str, *, action: str, stream: bool):
    validate_id(instance_id, kind="instance id")
    await sync_to_async(instance_for_user)(request.auth, instance_id)
    if stream:
        return redo_stream(instance_id, action=action)
    warnings: list[dict] = []

    async def emit(event: dict) -> None:
        if event.get("type") == "warning":
            warnings.append(event)

    with _refusal_said():
        done, text = await redo_run(instance_id, action=action, emit=emit)
    return {**{k: v for k, v in done.items() if k != "type"}, "instance_id": instance_id,
            "answer_text": text, "warnings": [warning_said(w) for w in warnings]}


async def _aside(instance_id: str, query: str, *, speaker: str | None, stream: bool):
    try:
        if stream:
            await sync_to_async(_aside_speaker_checked)(instance_id, speaker)
            return aside_stream(instance_id, query, speaker=speaker)
        result = await aside_run(get_store(), instance_id=instance_id, speaker=speaker,
                                 content=query, emit=events_dropped)
    except TurnRefused as exc:
        said = refusal_said(exc.code, exc.message)
        raise AppError(said, code=exc.code, status=exc.status, fields={"speaker": said}) from None
    return {"mode": "aside", "instance_id": instance_id, "speaker": result.speaker,
            "name": result.name, "answer_text": result.answer_text, "kept": result.kept,
            "error": result.error}


async def _impersonate(instance_id: str, *, stream: bool):
    if stream:
        return impersonate_stream(instance_id)
    with _refusal_said():
        result = await impersonate_run(get_store(), instance_id=instance_id,
                                       emit=events_dropped)
    return {"mode": "impersonate", "instance_id": instance_id, "answer_text": result.text,
            "error": result.error, "truncated": result.truncated}


@contextlib.contextmanager
def _refusal_said() -> Iterator[None]:
    """A turn's refusal in the request's language (LocaleMiddleware: the cookie, else
    Accept-Language), as the WebSocket says it; its `code` unchanged."""
    try:
        yield
    except TurnRefused as exc:
        exc.message = refusal_said(exc.code, exc.message)
        raise


def _aside_speaker_checked(instance_id: str, speaker: str | None) -> None:
    """A stream starts with a 200: who is asked is checked before it (400 naming `speaker`)."""
    aside_speaker(get_store().instance_state_read(instance_id), speaker)


@chat_router.get("/instances/{instance_id}/sessions/{session_id}/current_response",
                 response=CurrentResponse, exclude_none=True)
def current_response(request: HttpRequest, instance_id: str, session_id: str,
                     turn: int | None = None):
    """Seed reconnect: what the file holds for turn N (the single source of truth)."""
    instance_for_user(request.auth, instance_id)
    store = get_store()
    session_live_check(store, instance_id=instance_id, session_id=session_id)
    if turn is not None and turn < 1:
        raise Invalid("turn must be 1 or more", fields={"turn": "at least 1"})
    # A reconnect asks about the newest turn: only the file's last lines are parsed.
    read = session_read_repaired(store, instance_id, session_id, newest=2)
    turn = read.last_turn if turn is None else turn

    def reply_of(lines):
        return next((line for line in reversed(lines)
                     if line.get("role") == "assistant" and line.get("turn") == turn), None)

    reply = reply_of(read.messages)
    if reply is None and not read.complete:
        reply = reply_of(store.session_read(instance_id, session_id).messages)
    streaming = read.partial is not None and read.partial.get("turn") == turn
    if streaming:
        reply = read.partial
    if reply is None and turn > read.last_turn + 1:
        raise NotFound(f"session {session_id!r} has no turn {turn} "
                       f"(its last is {read.last_turn})", fields={"turn": "no such turn"})
    if reply is None:  # the player's line is in (or about to be): the reply may still come
        return {"turn": turn, "content": "", "status": "pending", "session_id": session_id}
    going = streaming or round_going(store, instance_id=instance_id, session_id=session_id,
                                     turn=turn)
    return {"turn": turn, "session_id": session_id,
            "status": "streaming" if going else "complete",
            "content": str(reply.get("content", "")),
            **{k: reply[k] for k in ("interrupted", "empty", "error", "truncated", "trace_id",
                                     "speaker") if k in reply}}


# --- sessions and traces --------------------------------------------------------------------


def _session_owner(user, session_id: str, wanted: str | None) -> str:
    """The visible instance holding `session_id` (session ids restart in every instance)."""
    validate_id(session_id, kind="session id")
    store = get_store()
    rows = instances_visible_to(user)
    if wanted:
        rows = rows.filter(instance_id=validate_id(wanted, kind="instance id"))
    owners = [row.instance_id for row in rows
              if store.session_path(row.instance_id, session_id).exists()]
    if not owners:
        raise NotFound(f"session {session_id!r} not found")
    if len(owners) > 1:
        current = [row.instance_id for row in rows.filter(current_session_id=session_id)]
        if len(current) != 1:
            raise Invalid(f"session {session_id!r} exists in several instances; "
                          "add ?instance_id=…", code="ambiguous_session",
                          fields={"instance_id": "required here"}, instances=owners)
        return current[0]
    return owners[0]


@chat_router.get("/sessions/{session_id}", response=dict[str, Any])
def session_detail(request: HttpRequest, session_id: str, instance_id: str | None = None):
    owner = _session_owner(request.auth, session_id, instance_id)
    return session_summary(get_store(), owner, session_id)


@chat_router.delete("/sessions/{session_id}", response=dict[str, Any],
                    description="Archives the session (never destroyed); deleting the current "
                                "one starts a fresh session.")
def session_delete(request: HttpRequest, session_id: str, instance_id: str | None = None):
    owner = _session_owner(request.auth, session_id, instance_id)
    return session_archive_and_restart(get_store(), instance_id=owner,
                                       session_id=session_id)


@chat_router.get("/traces/{trace_id}", response=dict[str, Any],
                 description="`fields=sections`: only the token figures and each section's "
                             "name, region, tokens and cut (no texts, no messages), for a budget "
                             "bar; `fields=info`: when, which model, the prompt's and the reply's "
                             "tokens and the timings, for a message's Info; without it, the "
                             "whole trace.")
def trace_detail(request: HttpRequest, trace_id: str, include_session: bool = False,
                 fields: str | None = None):
    validate_id(trace_id, kind="trace id")
    if fields not in (None, "", "sections", "info"):
        raise Invalid("fields must be 'sections', 'info' or left out",
                      fields={"fields": "only 'sections' or 'info'"})
    row = Trace.objects.filter(trace_id=trace_id).first()
    if row is None:
        raise NotFound(f"trace {trace_id!r} not found")
    try:
        instance_for_user(request.auth, row.instance_id)
    except NotFound:
        # Someone else's trace reads exactly like an unknown one: no instance id leaks.
        raise NotFound(f"trace {trace_id!r} not found") from None
    if fields in ("sections", "info"):
        read = trace_sections if fields == "sections" else trace_info
        return read(get_store(), instance_id=row.instance_id, trace_id=trace_id)
    trace = trace_rebuild(get_store(), instance_id=row.instance_id, trace_id=trace_id)
    if include_session:
        trace["session_summary"] = session_summary(get_store(), row.instance_id,
                                                   trace["session_id"])
    return trace


def _players_line_kept(instance_id: str) -> dict:
    """Where a round nobody answered kept the player's line: its session and turn (they were
    "" and 0, as if nothing was written)."""
    store = get_store()
    session_id = store.instance_state_read(instance_id)["current_session_id"]
    read = store.session_read(instance_id, session_id, newest=1)
    return {"session_id": session_id, "turn": read.last_turn}
