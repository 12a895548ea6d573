"""Pages of the history manager and the persona & memory page of one instance.

Every view checks ownership first (unknown and not-yours are both 404). The history manager
reads here (the page, its rows, related chats); its changes go through the REST API
(static/history.js), as the chat page's do. Persona actions answer with the re-rendered fragment
for htmx, or redirect back with a flash message without JavaScript.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_GET, require_POST

from chat import selectors
from chat.groups import conversations
from chat.history_manager import base as history_base
from chat.history_manager import reads as history_read
from chat.inspector.names import trace_chat_name
from chat.pages.instance_access import instance_or_404
from chat.pages.message_forms import undo_offer_take
from library.selectors import character_for_chat_optional, persona_effective
from memory.character.biography import (
    biography_add,
    biography_from_persona,
    biography_items,
    biography_remove,
    biography_reorder,
    biography_update,
)
from memory.character.evolved_persona import (
    evolved_persona_read,
    persona_restore,
    persona_set_manual,
)
from memory.character.pinned import (
    PINNED_FILE,
    pinned_members,
    pinned_override_set,
    pinned_prompt_effective,
    pinned_prompt_set,
)
from memory.errors import MemoryActionError
from memory.summaries.recaps import (
    recap_items,
    recap_pending,
    recap_remove,
    recap_reorder,
    recap_update,
)
from memory.summaries.source_changes import summaries_source_changed, summary_source_checked
from personalab.lib.errors import error_read
from personalab.lib.ids import validate_id
from personalab.lib.participants import member_ids
from personalab.lib.store_errors import InstanceBusy, StoreError
from personalab.storage import get_store


def _is_htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true"


def _int(value: Any, default: int | None = None) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return default


def _character_name(store, state: dict, character_id: str | None = None) -> str:
    """The story's character (or member `character_id`) named as this chat may read it."""
    return character_for_chat_optional(
        store, state=state, character_id=character_id or state.get("character_id")).get(
            "name") or ""


# --- history ---------------------------------------------------------------------------------


def _history_context(request: HttpRequest, instance_id: str, *, source=None) -> dict[str, Any]:
    """The rows of the session, page and search given in the query string or the posted form."""
    source = source if source is not None else request.GET
    store = get_store()
    state = store.instance_state_read(instance_id)
    key = source.get("session") or state["current_session_id"]
    try:
        page = history_read.messages_page(store, instance_id=instance_id, session_key=key,
                                     page=_int(source.get("page")), query=source.get("q", ""))
    except history_base.HistoryError as exc:
        raise Http404(exc.message) from None
    shown = selectors.message_render_context(
        store, state=state, lines=[row["line"] for row in page["rows"]],
        depths={id(row["line"]): page["depths"][row["index"]] for row in page["rows"]
                if row["index"] in page["depths"]})
    return {"instance_id": instance_id, "page": page, "state": state,
            # The rows read as the chat page shows them: macros and the display-only regex
            # scripts here, Markdown and the sanitizer in the browser (static/history.js).
            **{key: shown[key] for key in ("line_display", "player_names")},
            "character_name": _character_name(store, state),
            # The page's title as the chat's: its name, else all its members (a group's title
            # follows who is in it on the next load), else its character.
            "chat_title": trace_chat_name(store, instance_id),
            # A player line with no name to show is the persona's, as the chat page shows it.
            "player_name": persona_effective(store, owner=state.get("owner"),
                                             persona_id=state.get("persona_id"))["name"],
            "undo_window": history_base.history_settings(store)["undo_window_seconds"]}


@login_required
@require_GET
def history_page(request: HttpRequest, instance_id: str) -> HttpResponse:
    row = instance_or_404(request, instance_id)
    context = _history_context(request, instance_id)
    context.update(instance=row,
                   sessions=history_read.session_list(get_store(), instance_id=instance_id),
                   related=_related_context(request, context["state"]),
                   member_changes=selectors.member_changes_shown(get_store(),
                                                                 instance_id=instance_id),
                   undo_offer=undo_offer_take(request, instance_id))
    return render(request, "chat/history.html", context)


def _related_context(request: HttpRequest, state: dict[str, Any]) -> dict[str, Any]:
    """The "related conversations" tab (seed 003 §5 Tab4): a participant picked from everyone
    in the user's conversations (this story's character first), and its conversations."""
    choices = conversations.participants_known(get_store(), user=request.user)
    wanted = request.GET.get("participant") or state.get("character_id") or ""
    picked = wanted if any(c["id"] == wanted for c in choices) else ""
    return {"choices": choices, "picked": picked, "current": state.get("instance_id"),
            "conversations": conversations.related_conversations(
                get_store(), user=request.user, participant_id=picked) if picked else []}


@login_required
@require_GET
def history_related(request: HttpRequest, instance_id: str) -> HttpResponse:
    instance_or_404(request, instance_id)
    state = get_store().instance_state_read(instance_id)
    return render(request, "chat/_related.html",
                  {"related": _related_context(request, state), "instance_id": instance_id})


@login_required
@require_GET
def history_rows(request: HttpRequest, instance_id: str) -> HttpResponse:
    instance_or_404(request, instance_id)
    return render(request, "chat/_history_rows.html", _history_context(request, instance_id))


# --- persona & memory ------------------------------------------------------------------------


def _pinned_members_named(store, instance_id: str) -> list[dict[str, str]]:
    """With several characters: each member's convKey override, named (seed 003 §3.5)."""
    _, members = pinned_members(store, instance_id=instance_id)
    if len(members) < 2:
        return []
    state = store.instance_state_read(instance_id)
    return [{**m, "name": _character_name(store, state, m["character_id"])
             or m["character_id"]} for m in members]


def _persona_context(instance_id: str, character_id: str | None = None) -> dict[str, Any]:
    """The page for one member (`character_id`, default the instance's character): its own
    evolved persona and versions; pinned prompt, recaps and biography are the story's."""
    store = get_store()
    state = store.instance_state_read(instance_id)
    persona = evolved_persona_read(store, instance_id=instance_id,
                                   character_id=character_id)
    # The pinned prompt in use for the member shown; the instance's own override belongs to
    # the instance's character, so only its page offers that form.
    pinned_text, pinned_source = pinned_prompt_effective(
        store, instance_id=instance_id, character_id=persona["character_id"])
    override = store.memory_json_read(instance_id, PINNED_FILE, {})
    members = [{"character_id": c, "name": _character_name(store, state, c) or c}
               for c in member_ids(state)]
    return {
        "instance_id": instance_id, "state": state,
        "character_name": _character_name(store, state, persona["character_id"]),
        "member_id": persona["character_id"],
        "persona_members": members if len(members) > 1 else [],
        "base_persona": persona["base_persona"],
        "evolved_persona": persona["evolved_persona"],
        "versions": list(reversed(persona["versions"])),
        "pinned_text": pinned_text, "pinned_source": pinned_source,
        "pinned_instance_form": persona["character_id"] == state.get("character_id"),
        "pinned_override": override.get("text", "") if isinstance(override, dict) else "",
        "pinned_members": _pinned_members_named(store, instance_id),
        "recaps": recap_items(store, instance_id=instance_id),
        "recap_pending": recap_pending(store, instance_id=instance_id),
        "summaries_changed": summaries_source_changed(store, instance_id=instance_id),
        "biography": biography_items(store, instance_id=instance_id),
    }


@login_required
@require_GET
def persona_page(request: HttpRequest, instance_id: str) -> HttpResponse:
    row = instance_or_404(request, instance_id)
    try:
        context = _persona_context(instance_id, request.GET.get("character") or None)
    except MemoryActionError:
        raise Http404("not a member of this conversation") from None
    return render(request, "chat/persona.html", {**context, "instance": row})


def _persona_apply(store, instance_id: str, action: str, form) -> str:
    """Run one action (the caller holds the lock); returns what to tell the author."""
    text = form.get("text", "")
    item_id = form.get("item", "")
    member = form.get("character_id") or None
    if action == "persona_save":
        result = persona_set_manual(store, instance_id=instance_id, text=text.strip(),
                                    character_id=member)
        return (gettext("Saved as version %(version)s.") % {"version": result["version"]}
                if result["changed"] else gettext("Nothing changed."))
    if action == "persona_restore":
        result = persona_restore(store, instance_id=instance_id,
                                 version=_int(form.get("version"), -1),
                                 character_id=member)
        return gettext("Restored; it is now version %(version)s.") % {"version": result["version"]}
    if action == "pinned_save":
        pinned_prompt_set(store, instance_id=instance_id, character_id=None,
                          text=text.strip())
        if text.strip():
            return gettext("Pinned prompt saved.")
        return gettext("Override removed; the character's own pinned prompt applies.")
    if action == "pinned_member_save":
        pinned_override_set(store, instance_id=instance_id,
                            character_id=form.get("character_id", ""), text=text)
        return (gettext("Saved for this set of characters.") if text.strip()
                else gettext("Override removed."))
    if action in ("recap_update", "bio_update"):
        update = recap_update if action == "recap_update" else biography_update
        update(store, instance_id=instance_id, item_id=item_id, text=text)
        return gettext("Saved.")
    if action in ("recap_remove", "bio_remove"):
        remove = recap_remove if action == "recap_remove" else biography_remove
        remove(store, instance_id=instance_id, item_id=item_id)
        return gettext("Removed.")
    if action in ("recap_move", "bio_move"):
        reorder = recap_reorder if action == "recap_move" else biography_reorder
        reorder(store, instance_id=instance_id, item_id=item_id,
                new_index=_int(form.get("to"), 0))
        return gettext("Moved.")
    if action == "summary_checked":
        summary_source_checked(store, instance_id=instance_id,
                               session_id=validate_id(form.get("session_id", ""),
                                                      kind="session_id"))
        return gettext("Marked as checked.")
    if action == "bio_add":
        biography_add(store, instance_id=instance_id, text=text)
        return gettext("Paragraph added.")
    if action == "bio_from_persona":
        added = biography_from_persona(store, instance_id=instance_id)
        return ngettext("%(count)s paragraph added from the evolved persona.",
                        "%(count)s paragraphs added from the evolved persona.",
                        len(added)) % {"count": len(added)}
    raise Http404("unknown action")


@login_required
@require_POST
def persona_action(request: HttpRequest, instance_id: str, action: str) -> HttpResponse:
    instance_or_404(request, instance_id)
    store = get_store()
    error, status, note = "", 200, ""
    try:
        with store.instance_lock(instance_id):
            note = _persona_apply(store, instance_id, action, request.POST)
    except InstanceBusy:
        error, status = gettext("busy: a reply is streaming or another change is running on "
                                "this instance; try again when it has finished"), 409
    except (MemoryActionError, StoreError) as exc:
        error, status = error_read(exc), 400
    except ValueError as exc:
        error, status = str(exc), 400
    member = request.POST.get("character_id") or None
    if not _is_htmx(request):
        (messages.error if error else messages.info)(request, error or note)
        url = reverse("persona", args=[instance_id])
        return redirect(f"{url}?{urlencode({'character': member})}" if member else url)
    try:
        context = _persona_context(instance_id, member)
    except MemoryActionError:
        context = _persona_context(instance_id)
    return render(request, "chat/_persona_body.html",
                  {**context, "note": note, "error": error}, status=status)
