"""Pages: the instance list, the chat page, the trace inspector (the settings page is
chat/pages/settings_page.py)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from chat import selectors
from chat.groups.members import is_group
from chat.import_export.chat_formats import ChatFormatError
from chat.import_export.export_process import export_worker_warm
from chat.import_export.exports import session_import_limited, session_regroup_limited
from chat.import_export.refusal_words import chat_refusal_words
from chat.inspector.names import (
    LoreNamer,
    copy_taken_at,
    trace_chat_name,
    trace_lore_named,
    trace_sections_named,
    trace_timings_named,
)
from chat.inspector.notes import trace_notes_named
from chat.inspector.reasons import trace_reasons_named
from chat.inspector.sources import (
    recall_hits_named,
    recall_sources_named,
    recall_speaker_names,
)
from chat.live.followers import plot_changed_publish
from chat.models import Trace
from chat.pages.aside_form import aside_shown_take
from chat.pages.chat_strings import chat_page_strings
from chat.pages.import_report import import_report_for_page, import_report_key
from chat.pages.instance_access import instance_or_404
from chat.pages.members import members_context, reply_orders
from chat.pages.message_forms import undo_offer_take
from chat.pages.regex_allow import regex_asks
from chat.pages.send import draft_take
from chat.pages.variables import variables_context
from chat.play.aside import asides_read
from chat.services import instance_settings
from chat.services.errors import InstanceUpdateError
from chat.services.generation import generation_defaults_read
from chat.services.instance_settings import instance_background_switch, instance_update
from chat.services.instances import instance_create, instances_visible_to
from chat.services.sessions import session_read_repaired
from chat.services.traces import trace_prompt_limit, trace_rebuild
from director.services import director_status
from library.character_picker import character_choices_found
from library.lore.global_books import global_lorebook_ids
from library.personas.services import (
    name_ask_context,
    persona_first_named,
    persona_first_undone,
)
from library.selectors import (
    ChatCharacters,
    backgrounds_visible_to,
    lorebooks_visible_to,
    persona_effective,
    personas_visible_to,
)
from library.start_kept import start_choices_keep, start_choices_taken, start_ids_kept
from memory.authors_note import NOTE_ROLES, authors_note_save
from personalab.lib.config_schema import digits_int
from personalab.lib.errors import (
    AppError,
    Busy,
    Forbidden,
    LimitReached,
    error_read,
    errors_back_to,
)
from personalab.lib.filestore.store import FileStore
from personalab.lib.letter_colours import letter_class
from personalab.lib.lines import display_depths
from personalab.lib.store_errors import InstanceBusy, StoreError
from personalab.limit_words import error_words
from personalab.storage import get_store


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    overview = selectors.instances_overview(get_store(),
                                            instances_visible_to(request.user))
    find = request.GET.get("find")
    kept = start_choices_taken(request)
    characters, find_error = character_choices_found(user=request.user, find=find,
                                                     also=start_ids_kept(kept))
    return render(request, "chat/home.html", {
        "start_kept": kept,
        "instances": [entry for entry in overview if not entry["archived"]],
        "archived_instances": [entry for entry in overview if entry["archived"]],
        "characters": characters, "find": find, "find_error": find_error,
        "backgrounds": backgrounds_visible_to(user=request.user),
        "account_generation": generation_defaults_read(get_store(), user=request.user),
        "reply_orders": reply_orders(),
        **name_ask_context(user=request.user),
    })


@errors_back_to("home")
@login_required
@require_POST
def instance_new(request: HttpRequest) -> HttpResponse:
    """One character (`character_id`), or with `?group=1` the characters ticked
    (`character_ids`, the page's own character first) and a reply order; `player_name`, asked
    while the account has no persona, makes its first (library/personas). A refusal (a limit,
    a character this account may not play, too many ticked) is said by personalab.middleware
    in the reader's language, back on the page the form is on."""
    group = request.GET.get("group") == "1"
    named = None
    try:
        named = persona_first_named(get_store(), owner=request.user,
                                    name=request.POST.get("player_name"))
        if group:
            instance_id = instance_create(
                get_store(), owner=request.user, character_ids=_ticked(request),
                background_id=request.POST.get("background_id") or None,
                reply_order=request.POST.get("reply_order") or None)
        else:
            instance_id = instance_create(
                get_store(), owner=request.user, character_id=request.POST.get("character_id", ""),
                background_id=request.POST.get("background_id") or None)
    except Exception:
        persona_first_undone(get_store(), owner=request.user, persona_id=named)
        start_choices_keep(request, group=group)
        raise
    return redirect("instance", instance_id=instance_id)


def _ticked(request: HttpRequest) -> list[str]:
    """The ticked characters in the order they were ticked (`order`, which the page's script
    keeps; without it, the page's order), `first` (the character page's own) before them."""
    ticked = request.POST.getlist("character_ids")
    order = dict.fromkeys(request.POST.get("order", "").split(","))  # first place of each id
    position = {c: i for i, c in enumerate(order)}
    ticked = sorted(ticked, key=lambda c: position.get(c, len(position)))
    first = request.POST.get("first", "")
    return [first, *(c for c in ticked if c != first)] if first in ticked else ticked


@login_required
@require_POST
def instance_manage(request: HttpRequest, instance_id: str) -> HttpResponse:
    """Rename, archive or restore an instance from the list or the chat page; archiving only
    moves it aside (its files stay), restoring brings it back to the list."""
    instance_or_404(request, instance_id)
    changes: dict = {}
    if "name" in request.POST:
        changes["name"] = request.POST["name"]
    if request.POST.get("archived") in ("0", "1"):
        changes["archived"] = request.POST["archived"] == "1"
    try:
        instance_update(get_store(), user=request.user, instance_id=instance_id,
                        **changes)
    except InstanceUpdateError as error:
        # The page sends a name and the archived flag; each refusal in the player's language.
        said = {"name": gettext("the name must be text of at most %(count)s characters")
                % {"count": instance_settings.MAX_INSTANCE_NAME},
                "archived": gettext("archived must be true or false")}
        messages.error(request, gettext("Nothing was changed: %(problems)s.") % {"problems": "; ".join(
            said.get(field, f"{field} {problem}") for field, problem in error.fields.items())})
    else:
        if changes.get("archived") is True:
            messages.info(request, gettext("Archived: the chat is kept under “Archived” on the "
                                           "home page, where you can restore it."))
        elif changes.get("archived") is False:
            messages.info(request, gettext("Restored: the chat is back in your list."))
        elif "name" in changes:
            messages.info(request, gettext("Renamed."))
    if request.POST.get("back") == "instance" and not changes.get("archived"):
        return redirect("instance", instance_id=instance_id)
    return redirect("home")




def _chat_context(request: HttpRequest, instance_id: str) -> dict:
    row = instance_or_404(request, instance_id)
    store = get_store()
    state = store.instance_state_read(instance_id)
    before = _int_or_none(request.GET.get("before"))
    size = _page_size(request.GET.get("shown"))
    read = session_read_repaired(store, instance_id, state["current_session_id"],
                                 shown=size, before=before)
    window = selectors.chat_messages_window(read, before=before, size=size)
    characters = ChatCharacters(store, state=state)
    shown = selectors.message_render_context(
        store, state=state, lines=read.lines, characters=characters,
        depths=display_depths(read.lines, after=read.depth_after))
    return {
        "instance": row,
        "personas": personas_visible_to(user=request.user),
        "default_persona_name": persona_effective(store, owner=state.get("owner"),
                                                  persona_id=None)["name"],
        "state": state,
        "instance_entry": {"name": str(state.get("name") or ""),
                           "character_name": shown["character"].get("name") or ""},
        **shown,
        "import_report": import_report_for_page(request, store, instance_id=instance_id,
                                                state=state),
        "withheld": selectors.members_withheld(store, state=state, characters=characters),
        "session": read,
        "window": window,
        "older_page": before is not None,  # without scripts, a page of older lines
        "draft": draft_take(request, instance_id),
        "partial": read.partial,
        "problems": [p.describe() for p in read.problems],
        "director": director_status(store, instance_id=instance_id),
        "backgrounds": backgrounds_visible_to(user=request.user),
        "lorebooks": lorebooks_visible_to(user=request.user),
        "global_lorebooks": _global_lorebook_names(store, state=state, user=request.user),
        "authors_note": store.memory_json_read(instance_id, "authors_note", {}),
        **variables_context(store, instance_id=instance_id),
        "note_roles": NOTE_ROLES,
        "recap_due": _recap_due_text(store, read),
        "background_picture": selectors.background_picture_url(store, state=state),
        "chat_strings": {**chat_page_strings(), **_bubble_names(state, shown)},
        **members_context(store, user=request.user, state=state, characters=characters,
                          find=request.GET.get("find")),
        "regex_asks": regex_asks(store, username=request.user.get_username(), state=state,
                                 characters=characters),
        "asides": asides_read(store, instance_id=instance_id)[-ASIDES_SHOWN:],
        "aside_shown": aside_shown_take(request, instance_id),
    }


def _global_lorebook_names(store: FileStore, *, state: dict, user) -> list[str]:
    """The names of the chat owner's books in all its chats (library/lore/global_books.py)
    that the reader may see, in the owner's order: the drawer says they are read too."""
    chosen = global_lorebook_ids(store, username=state.get("owner"))
    named = dict(lorebooks_visible_to(user=user).filter(lorebook_id__in=chosen)
                 .values_list("lorebook_id", "name"))
    return [named[lorebook_id] for lorebook_id in chosen if lorebook_id in named]


ASIDES_SHOWN = 20  # kept asides the side panel shows when the page opens
JUMP_PAGE_MAX = 1000  # messages one read of older ones may hold (static/chat/messages.js)


def _bubble_names(state: dict[str, Any], shown: dict[str, Any]) -> dict[str, str]:
    """The player's line before the file holds it is named and pictured as the persona, and a
    one-character chat's reply as its character from the moment it is asked for, each letter
    avatar in the colour its finished message has (a group's speaker is named by the reply's
    first event)."""
    you = shown["macro_values"].get("user") or gettext("You")
    reply = "" if is_group(state) else shown["character"].get("name") or ""
    return {"you": you, "youAvatar": shown["player_avatar"] or "", "youLetter": letter_class(you),
            "replyName": reply, "replyAvatar": shown["character_avatar"] or "",
            "replyLetter": letter_class(reply) if reply else ""}


def _page_size(raw: str | None) -> int:
    """How many messages a page of older ones holds: 40, or what "Go to message number" asks
    (up to JUMP_PAGE_MAX) to reach an early line in one read, not one 40-line page after
    another (#5 of a 1,236-message chat took 9 s on a phone, 30 reads)."""
    asked = _int_or_none(raw)
    if asked is None or asked < 1:
        return selectors.CHAT_PAGE_SIZE
    return min(asked, JUMP_PAGE_MAX)


def _int_or_none(raw: str | None) -> int | None:
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def _recap_due_text(store, read) -> str:
    last = read.turn_max if read.turn_max is not None else max(
        (line.get("turn") for line in read.messages if isinstance(line.get("turn"), int)),
        default=0)
    due = selectors.recap_next_due(last_turn=last, memory_settings=selectors.memory_settings_effective(store))
    if due is None:
        return gettext("Rolling recaps are off.")
    return gettext("Next recap after turn %(due)s (now at turn %(last)s).") % {
        "due": due, "last": last}


@login_required
@require_GET
def instance_page(request: HttpRequest, instance_id: str) -> HttpResponse:
    jump = _int_or_none(request.GET.get("index"))  # "Go to message number" without scripts
    if jump is not None and jump >= 0 and "before" not in request.GET:
        around = jump + 1 + selectors.CHAT_PAGE_SIZE // 2  # the line amid its page of 40
        return redirect(f"{reverse('instance', args=[instance_id])}?before={around}#m-{jump}")
    context = _chat_context(request, instance_id)
    context["undo_offer"] = undo_offer_take(request, instance_id)
    page = render(request, "chat/instance.html", context)
    # The page offers this chat's export; a large one's worker starts now, not when asked,
    # and after the page is rendered: a starting worker takes a core for seconds.
    export_worker_warm(instance_id=instance_id, session_id=context["state"]["current_session_id"])
    return page


@login_required
@require_GET
def instance_messages(request: HttpRequest, instance_id: str) -> HttpResponse:
    """The newest messages; with ?before=INDEX the page of older ones above that line."""
    template = "chat/_older.html" if request.GET.get("before") else "chat/_messages.html"
    return render(request, template, _chat_context(request, instance_id))


@login_required
@require_http_methods(["GET", "POST"])
def instance_outline(request: HttpRequest, instance_id: str) -> HttpResponse:
    """The outline; a POST first moves the story to one of its points by hand (skip to, go
    back to, mark done), as PUT /api/v1/instances/{id}/plot_state, or holds or releases the
    beat (`hold`), as PUT …/plot_hold. Without a script the page comes back with what happened."""
    note = refusal = None
    if request.method == "POST":
        instance_or_404(request, instance_id)
        note, refusal = _outline_change(request, instance_id)
    context = _chat_context(request, instance_id)
    if request.method == "POST" and refusal is None:
        plot_changed_publish(instance_id, director=context["director"])
    if request.method == "POST" and not request.htmx:
        (messages.error if refusal else messages.info)(request, refusal or note)
        return redirect(reverse("instance", args=[instance_id]) + "#drawer")
    return render(request, "chat/_outline.html", {**context, "outline_refusal": refusal})


def _outline_change(request: HttpRequest, instance_id: str) -> tuple[str, str | None]:
    """Moves or holds the story as the form asks: (what happened, what refused it or None)."""
    form = request.POST
    try:
        if "hold" in form:
            held = form["hold"] == "1"
            instance_settings.instance_plot_hold(get_store(), user=request.user,
                                                 instance_id=instance_id, held=held)
            return (gettext("This beat is held: the director does not move the story on "
                            "until you release it.") if held else
                    gettext("The beat is released: the director moves the story on again.")
                    ), None
        index = digits_int(form.get("index"))
        status = form.get("status", "in_progress")
        instance_settings.instance_plot_set(get_store(), user=request.user,
                                            instance_id=instance_id, index=index, status=status)
    except Forbidden as exc:
        return "", error_read(exc)
    except AppError:
        # the buttons send only points and statuses the outline had when it was shown
        return "", gettext("The story was not moved: the outline has changed since this "
                           "page showed it. Here it is as it is now.")
    return (gettext("Point %(n)s is done.") if status == "completed"
            else gettext("The story is at point %(n)s now.")) % {"n": index}, None


CHAT_IMPORT_MAX_BYTES = 10 * 1024 * 1024


@login_required
@require_POST
def instance_import_chat(request: HttpRequest, instance_id: str) -> HttpResponse:
    """The report waits in the login session for the chat page it redirects to."""
    instance_or_404(request, instance_id)
    upload = request.FILES.get("file")
    try:
        if upload is None:
            raise ChatFormatError("choose a chat file (.jsonl, or Agnai or RisuAI .json)")
        if upload.size > CHAT_IMPORT_MAX_BYTES:
            raise ChatFormatError("the chat file is larger than 10 MB")
        # In one of the account's import slots, as the API's import (red team, twelfth pass).
        session_id, report = session_import_limited(request.user, instance_id=instance_id,
                                                    data=upload.read())
        request.session[import_report_key(instance_id)] = {**report, "session_id": session_id}
    except (ChatFormatError, InstanceBusy, StoreError, LimitReached, Busy) as exc:
        messages.error(request, gettext("The chat was not imported: %(error)s") % {
            "error": error_words(exc) if isinstance(exc, LimitReached)
            else error_read(exc) if isinstance(exc, Busy) else chat_refusal_words(str(exc))})
    return redirect("instance", instance_id=instance_id)


@errors_back_to("instance")
@login_required
@require_POST
def instance_regroup(request: HttpRequest, instance_id: str) -> HttpResponse:
    """An imported group chat in a new conversation with all its members; its report waits
    on that conversation's page."""
    instance_or_404(request, instance_id)
    new_id, session_id, report = session_regroup_limited(
        request.user, instance_id=instance_id,
        session_id=request.POST.get("session_id") or "")
    request.session[import_report_key(new_id)] = {**report, "session_id": session_id}
    return redirect("instance", instance_id=new_id)


@errors_back_to("instance")
@login_required
@require_POST
def instance_persona(request: HttpRequest, instance_id: str) -> HttpResponse:
    return _instance_update_from_page(request, instance_id,
                                      gettext("From the next turn on you play this persona."),
                                      persona_id=request.POST.get("persona_id") or None)


@errors_back_to("instance")
@login_required
@require_POST
def instance_play_as(request: HttpRequest, instance_id: str) -> HttpResponse:
    instance_or_404(request, instance_id)
    played = instance_settings.instance_play_as(get_store(), user=request.user,
                                                instance_id=instance_id,
                                                name=request.POST.get("name"))
    done = (gettext("New persona %(name)s made; from the next turn on you play them.")
            if played["created"] else
            gettext("From the next turn on you play your persona %(name)s."))
    messages.info(request, done % {"name": played["name"]})
    return redirect("instance", instance_id=instance_id)


@errors_back_to("instance")
@login_required
@require_POST
def instance_lorebooks(request: HttpRequest, instance_id: str) -> HttpResponse:
    return _instance_update_from_page(request, instance_id,
                                      gettext("From the next turn on these lorebooks are read."),
                                      lorebook_ids=request.POST.getlist("lorebook_ids"))


def _instance_update_from_page(request: HttpRequest, instance_id: str, done: str,
                               **changes: Any) -> HttpResponse:
    """One instance setting changed from the chat page's drawer; the outcome is a message (a
    refusal's comes from personalab.middleware)."""
    instance_or_404(request, instance_id)
    instance_update(get_store(), user=request.user, instance_id=instance_id, **changes)
    messages.info(request, done)
    return redirect("instance", instance_id=instance_id)


@errors_back_to("instance")
@login_required
@require_POST
def instance_background(request: HttpRequest, instance_id: str) -> HttpResponse:
    """A refusal (busy, a background this account may not use, an id that is no id) is said
    by personalab.middleware, in the reader's language."""
    instance_or_404(request, instance_id)
    result = instance_background_switch(get_store(), user=request.user, instance_id=instance_id,
                                        background_id=request.POST.get("background_id") or None)
    note = gettext("Background switched; the story progress is kept.")
    if result.get("clamped"):
        note += " " + gettext("The current plot point is beyond the new outline, so the "
                              "director uses its last point.")
    messages.info(request, note)
    return redirect("instance", instance_id=instance_id)


@login_required
@require_GET
def trace_page(request: HttpRequest, trace_id: str) -> HttpResponse:
    row = Trace.objects.filter(trace_id=trace_id).first()
    if row is None:
        raise Http404("trace not found")
    instance_or_404(request, row.instance_id)
    trace = trace_rebuild(get_store(), instance_id=row.instance_id, trace_id=trace_id)
    budget = trace_prompt_limit(trace)
    store = get_store()
    lore = trace.get("lore") or {}
    lore_fired = trace_lore_named(store, lore.get("fired") or [])
    sources = recall_sources_named(trace, names=recall_speaker_names(store, row.instance_id))
    sections = trace_sections_named([{**s, "share": round(100 * s["tokens"] / budget, 2)}
                                     for s in trace.get("sections", [])], lore_fired,
                                    sources=sources)
    return render(request, "chat/trace.html", {
        "trace": trace, "sections": sections, "budget": budget, "instance": row.instance,
        "recall_hits": recall_hits_named(trace, sources),
        "chat_name": trace_chat_name(store, row.instance_id), "lore_fired": lore_fired,
        "copy_taken_at": copy_taken_at(trace.get("conversation_source")),
        "timings": trace_timings_named(trace.get("timings") or {}),
        "reasons": trace_reasons_named(trace, lore_fired),
        "notes": trace_notes_named(trace, trace_lore_named(store, lore.get("dropped") or []),
                                   lore_fired=lore_fired, namer=LoreNamer(store))})



@login_required
@require_POST
def instance_authors_note(request: HttpRequest, instance_id: str) -> HttpResponse:
    """Author's note: text woven into the history at a depth, every N turns. A bad number is
    refused beside its field and nothing is saved; a missing one takes its default."""
    row = instance_or_404(request, instance_id)
    errors: dict[str, str] = {}
    note = {"text": _note_text(request.POST, errors),
            "depth": _note_number(request.POST, "depth", 4, 0, 50, errors),
            "frequency": _note_number(request.POST, "frequency", 1, 1, 100, errors),
            "role": request.POST.get("role") if request.POST.get("role") in NOTE_ROLES
            else "system"}
    if not errors:
        authors_note_save(get_store(), instance_id=instance_id, note=note)
    if request.htmx:
        shown = {**note, **{name: request.POST.get(name, "") for name in errors}}
        return render(request, "chat/_authors_note.html", {
            "instance": row, "authors_note": shown, "note_roles": NOTE_ROLES,
            "note_errors": errors, "note_saved": not errors}, status=400 if errors else 200)
    if errors:
        messages.error(request, " ".join(f"{name}: {text}" for name, text in errors.items()))
    else:
        messages.info(request, gettext("Author's note saved.") if note["text"]
                      else gettext("Author's note cleared."))
    return redirect("instance", instance_id=instance_id)


NOTE_MAX_CHARS = 4000  # as PUT …/authors_note


def _note_text(form, errors: dict[str, str]) -> str:
    """The note as typed; a longer one is refused beside its box (it was cut short unsaid)."""
    text = form.get("text", "").strip()
    if len(text) > NOTE_MAX_CHARS:
        errors["text"] = gettext("At most %(limit)s characters; this one has %(count)s.") % {
            "limit": NOTE_MAX_CHARS, "count": len(text)}
    return text


def _note_number(form, name: str, default: int, low: int, high: int,
                 errors: dict[str, str]) -> int:
    raw = (form.get(name) or "").strip()
    if not raw:
        return default
    number = digits_int(raw)  # int() refuses 5,000 digits: ValueError, a 500
    if number is None or not low <= number <= high:
        errors[name] = gettext("A whole number from %(low)s to %(high)s.") % {
            "low": low, "high": high}
        return default
    return number
