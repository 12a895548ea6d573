"""Memory routes of /api/v1/ under instances/{instance_id}/: the persona & memory page's
actions (persona versions, pinned prompt, recaps, biography), the author's note, summarize and
update-memory. Owner or staff only; others get 404. Changes hold the instance lock (409 while a
reply streams)."""

from __future__ import annotations

import contextlib
from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpRequest
from django.utils.translation import gettext_noop
from ninja import Router, Status

from chat.play.account_turns import account_turn_awaited
from chat.play.regex_scripts import lines_for_model
from chat.services.instances import instance_for_user
from chat.services.memory_actions import memory_action, provider_fitted
from memory import authors_note, runtime
from memory.authors_note import authors_note_save
from memory.character import biography, evolved_persona
from memory.character.biography import biography_items, biography_reorder
from memory.character.evolved_persona import evolved_persona_read, persona_set_manual
from memory.character.pinned import (
    PINNED_FILE,
    pinned_members,
    pinned_override_set,
    pinned_prompt_effective,
    pinned_prompt_set,
)
from memory.schemas import (
    AuthorsNote,
    AuthorsNoteIn,
    Items,
    MoveIn,
    PersonaChange,
    PersonaOut,
    PersonaTextIn,
    PinnedIn,
    PinnedOut,
    RecapsOut,
    TextIn,
    VersionIn,
)
from memory.summaries import recaps
from memory.summaries.recaps import recap_items, recap_pending, recap_rebuild, recap_reorder
from memory.summaries.source_changes import summaries_source_changed, summary_source_checked
from personalab.lib.ids import validate_id
from personalab.lib.locks import lock_awaited
from personalab.lib.uncancelled import thread_whole
from personalab.storage import get_store

router = Router(tags=["memory"])
BASE = "/instances/{instance_id}"


def _locked(request: HttpRequest, instance_id: str, action, **kwargs: Any) -> Any:
    instance_for_user(request.auth, instance_id)
    store = get_store()
    with store.instance_lock(instance_id):
        return action(store, instance_id=instance_id, **kwargs)


def _owned_store(request: HttpRequest, instance_id: str):
    instance_for_user(request.auth, instance_id)
    return get_store()


# --- summarize, update memory ------------------------------------------------------------


@router.post(BASE + "/summarize", response=dict[str, Any],
             description="Summarize the current session into events and continue in a new "
                         "session (422 when the model's answer is unusable, 502 when it fails).")
async def summarize(request: HttpRequest, instance_id: str):
    await sync_to_async(instance_for_user)(request.auth, instance_id)
    return await memory_action(instance_id, "summarize")


@router.post(BASE + "/update_memory", response=dict[str, Any],
             description="Grow a member's evolved persona from the recent turns (a new "
                         "version); `character_id` names the member, default the instance's "
                         "character.")
async def update_memory(request: HttpRequest, instance_id: str, character_id: str | None = None):
    await sync_to_async(instance_for_user)(request.auth, instance_id)
    return await memory_action(instance_id, "update_memory", character_id=character_id)


# --- evolved persona versions (each member its own) ---------------------------------------


@router.get(BASE + "/persona", response=PersonaOut,
            description="A member's base and evolved persona and its versions (`character_id`, "
                        "default the instance's character).")
def persona_read(request: HttpRequest, instance_id: str, character_id: str | None = None):
    store = _owned_store(request, instance_id)
    return evolved_persona_read(store, instance_id=instance_id, character_id=character_id)


@router.put(BASE + "/persona", response=PersonaChange,
            description="Set a member's evolved persona by hand; it becomes a new version.")
def persona_set(request: HttpRequest, instance_id: str, payload: PersonaTextIn):
    return _locked(request, instance_id, persona_set_manual, text=payload.text.strip(),
                   character_id=payload.character_id)


@router.post(BASE + "/persona/restore", response=PersonaChange,
             description="An older version of a member's evolved persona becomes current "
                         "again, as a new version.")
def persona_restore(request: HttpRequest, instance_id: str, payload: VersionIn):
    return _locked(request, instance_id, evolved_persona.persona_restore, version=payload.version,
                   character_id=payload.character_id)


# --- pinned prompt ------------------------------------------------------------------------


def _pinned(store, instance_id: str) -> dict[str, Any]:
    state = store.instance_state_read(instance_id)
    text, source = pinned_prompt_effective(
        store, instance_id=instance_id, character_id=state.get("character_id") or "")
    override = store.memory_json_read(instance_id, PINNED_FILE, {})
    own = override.get("text") if isinstance(override, dict) else ""
    key, members = pinned_members(store, instance_id=instance_id)
    return {"text": text, "source": source, "override": own if isinstance(own, str) else "",
            "conv_key": key, "members": members}


@router.get(BASE + "/pinned", response=PinnedOut)
def pinned_read(request: HttpRequest, instance_id: str):
    return _pinned(_owned_store(request, instance_id), instance_id)


@router.put(BASE + "/pinned", response=PinnedOut,
            description="Without character_id: this instance's pinned prompt (empty text removes "
                        "the override so the character's own pinned prompt applies). With a "
                        "member's character_id: that member's override for conversations of "
                        "exactly these participants (convKey); it wins; empty text removes it.")
def pinned_set(request: HttpRequest, instance_id: str, payload: PinnedIn):
    if payload.character_id:
        _locked(request, instance_id, pinned_override_set,
                character_id=validate_id(payload.character_id, kind="character_id"),
                text=payload.text)
    else:
        _locked(request, instance_id, pinned_prompt_set, character_id=None,
                text=payload.text.strip())
    return _pinned(get_store(), instance_id)


# --- recaps -------------------------------------------------------------------------------


def _recaps(store, instance_id: str) -> dict[str, Any]:
    return {"items": recap_items(store, instance_id=instance_id),
            "pending": recap_pending(store, instance_id=instance_id),
            "summaries_source_changed": summaries_source_changed(store,
                                                                 instance_id=instance_id)}


@router.get(BASE + "/recaps", response=RecapsOut)
def recaps_read(request: HttpRequest, instance_id: str):
    return _recaps(_owned_store(request, instance_id), instance_id)


# Before the {item_id} routes: their pattern would take "rebuild" as an item id.
@router.post(BASE + "/recaps/rebuild", response=dict[str, Any],
             description="Recompute the current session's recaps from its turns with the model; "
                         "earlier sessions' recaps are kept.")
async def recaps_rebuild(request: HttpRequest, instance_id: str):
    await sync_to_async(instance_for_user)(request.auth, instance_id)
    store = get_store()
    held = contextlib.AsyncExitStack()  # the lock, then the account's count
    await held.enter_async_context(lock_awaited(store.instance_lock(instance_id)))
    try:
        await held.enter_async_context(account_turn_awaited(store, instance_id))  # at once
    except BaseException:  # AccountTurnsBusy, or the request cancelled meanwhile
        await held.aclose()
        raise
    # Its stage, for a page to poll (`instance_memory_progress`), as summarize's.
    runtime.progress_set(instance_id, gettext_noop("Starting"))
    try:
        llm, window = await provider_fitted(store, instance_id)
        shown = await thread_whole(lambda: lines_for_model(
            store, state=store.instance_state_read(instance_id)))
        return await recap_rebuild(
            store, instance_id=instance_id, llm=llm, settings=store.module_read("memory"),
            prompt_tokens=window.prompt_room, shown=shown,
            progress=lambda text, values=None: runtime.progress_set(instance_id, text, values))
    finally:
        runtime.progress_set(instance_id, None)
        await held.aclose()


@router.post(BASE + "/summaries/{session_id}/checked", response=dict[str, Any],
             description="The player checked the summary written from this session against its "
                         "turns edited or deleted since: its `source_changed` mark goes.")
def summary_checked(request: HttpRequest, instance_id: str, session_id: str):
    changed = _locked(request, instance_id, summary_source_checked,
                      session_id=validate_id(session_id, kind="session_id"))
    return {"changed": changed}


@router.put(BASE + "/recaps/{item_id}", response=dict[str, Any])
def recap_update(request: HttpRequest, instance_id: str, item_id: str, payload: TextIn):
    return _locked(request, instance_id, recaps.recap_update, item_id=item_id, text=payload.text)


@router.delete(BASE + "/recaps/{item_id}", response=dict[str, Any])
def recap_remove(request: HttpRequest, instance_id: str, item_id: str):
    return _locked(request, instance_id, recaps.recap_remove, item_id=item_id)


@router.post(BASE + "/recaps/{item_id}/move", response=Items)
def recap_move(request: HttpRequest, instance_id: str, item_id: str, payload: MoveIn):
    return {"items": _locked(request, instance_id, recap_reorder, item_id=item_id,
                             new_index=payload.to)}


# --- biography ----------------------------------------------------------------------------


@router.get(BASE + "/biography", response=Items)
def biography_read(request: HttpRequest, instance_id: str):
    store = _owned_store(request, instance_id)
    return {"items": biography_items(store, instance_id=instance_id)}


@router.post(BASE + "/biography", response={201: dict[str, Any]})
def biography_add(request: HttpRequest, instance_id: str, payload: TextIn):
    return Status(201, _locked(request, instance_id, biography.biography_add, text=payload.text))


@router.post(BASE + "/biography/from_persona", response={201: Items},
             description="Keep the current evolved persona as paragraphs of the biography.")
def biography_from_persona(request: HttpRequest, instance_id: str):
    return Status(201, {"items": _locked(request, instance_id, biography.biography_from_persona)})


@router.put(BASE + "/biography/{item_id}", response=dict[str, Any])
def biography_update(request: HttpRequest, instance_id: str, item_id: str, payload: TextIn):
    return _locked(request, instance_id, biography.biography_update, item_id=item_id,
                   text=payload.text)


@router.delete(BASE + "/biography/{item_id}", response=dict[str, Any])
def biography_remove(request: HttpRequest, instance_id: str, item_id: str):
    return _locked(request, instance_id, biography.biography_remove, item_id=item_id)


@router.post(BASE + "/biography/{item_id}/move", response=Items)
def biography_move(request: HttpRequest, instance_id: str, item_id: str, payload: MoveIn):
    return {"items": _locked(request, instance_id, biography_reorder, item_id=item_id,
                             new_index=payload.to)}


# --- author's note ------------------------------------------------------------------------


@router.get(BASE + "/authors_note", response=AuthorsNote)
def authors_note_read(request: HttpRequest, instance_id: str):
    return authors_note.authors_note_read(_owned_store(request, instance_id),
                                          instance_id=instance_id)


@router.put(BASE + "/authors_note", response=AuthorsNote,
            description="Text woven into the history at `depth`, every `frequency` turns; "
                        "empty text turns it off.")
def authors_note_set(request: HttpRequest, instance_id: str, payload: AuthorsNoteIn):
    return _locked(request, instance_id, authors_note_save, note=payload.model_dump())
