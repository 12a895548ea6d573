"""The page side of importing a chat as a new chat: the character page's "Import a chat with
this character" and the library's "Import a chat" post here. A file from the library (no
character picked yet), or whose speakers are not the picked characters or persona, goes to
the check page first: each speaker with a character proposed by name, changeable; import or
cancel (the waiting file is deleted). Nothing is made until then. The new chat opens with the
import report on top."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from chat.import_export.chat_formats import ChatFormatError
from chat.import_export.import_check import (
    characters_named,
    chat_import_check,
    import_players,
    import_report_shown,
    name_choices,
    pending_import_drop,
    pending_import_read,
    pending_import_save,
    pending_imports_sweep,
    speakers_matched,
)
from chat.import_export.import_new import CHAT_IMPORT_MAX_BYTES, chat_import_new
from chat.import_export.refusal_words import chat_refusal_words
from chat.pages.import_report import import_report_key
from library.character_picker import character_choices_found
from library.personas.services import (
    name_ask_context,
    persona_first_named,
    persona_first_undone,
)
from personalab.lib.errors import AppError, Invalid, LimitReached, TooLarge
from personalab.lib.store_errors import InstanceBusy, StoreError
from personalab.limit_words import error_words
from personalab.storage import get_store


def _back(request: HttpRequest) -> str:
    back = request.POST.get("next", "")
    return back if url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}) else "/library/"


def _posted_file(request: HttpRequest) -> tuple[bytes, str, str]:
    """(the chat file, its name, the token it waits under: "" for a new upload)."""
    token = request.POST.get("token", "")
    if token:
        data, name = pending_import_read(get_store(), user=request.user, token=token)
        return data, name, token
    upload = request.FILES.get("file")
    if upload is None:
        raise Invalid(gettext("choose a chat file (.jsonl, or Agnai or RisuAI .json)"),
                      code="invalid_chat")
    if upload.size > CHAT_IMPORT_MAX_BYTES:
        raise TooLarge(gettext("the chat file is larger than 10 MB"))
    return upload.read(), str(upload.name or ""), ""


def _check_page(request: HttpRequest, *, imported, warnings: list[str], token: str,
                file_name: str, picked: list[str], error: str = "",
                find: str | None = None) -> HttpResponse:
    """`find`: the page's search field without its script; the page then comes back with
    each speaker's pick and the typed name as they were, the characters found first."""
    characters, find_error = character_choices_found(user=request.user, find=find, also=picked)
    rows = speakers_matched(imported, picked=picked,
                            choices=name_choices(characters, user=request.user))
    kept = request.POST.getlist("character_ids")
    if find is not None and len(kept) == len(rows):
        for row, character_id in zip(rows, kept, strict=True):
            row["character_id"] = character_id
    players, asked = import_players(imported), name_ask_context(user=request.user)
    # the name the file's player went by, offered as the newcomer's own (one a persona may hold:
    # a longer one refused the whole import over a name the newcomer never typed)
    offered = players[0].strip() if len(players) == 1 else ""
    return render(request, "library/chat_import_check.html", {
        "warnings": warnings, "token": token, "file_name": file_name, "rows": rows,
        "next": _back(request), "shown": import_report_shown(imported), "error": error,
        "characters": characters, "find": find, "find_error": find_error, **asked,
        "name_offered": (request.POST.get("player_name", "") if find is not None
                         else offered if len(offered) <= asked["name_limit"] else "")},
        status=400 if error else 200)


def _import_again(request: HttpRequest) -> HttpResponse:
    """A check page reloaded (or its tab restored by a phone's browser) comes as a GET, which
    has no file: back to the library's chat import, open, saying what to do."""
    messages.info(request, gettext("This check page cannot come back after a reload: choose "
                                   "the chat file again."))
    return redirect("/library/?import=chat#library-chat-import")


@login_required
@require_http_methods(["GET", "POST"])
def chat_import_page(request: HttpRequest) -> HttpResponse:
    """`file` (or the `token` of a file waiting since the check page) and `character_id` (a
    character's page) or the `character_ids` (the check page's, one per speaker; "" leaves a
    speaker out); `confirmed` goes on past a mismatch. None picked: the check page proposes
    them. On a refusal, back to the page it came from (`next`) with the reason."""
    if request.method != "POST":
        return _import_again(request)
    store = get_store()
    pending_imports_sweep(store)
    ids = [i for i in request.POST.getlist("character_ids") or [request.POST.get("character_id", "")]
           if i.strip()]
    named = None
    try:
        data, file_name, token = _posted_file(request)
        names = characters_named(store, user=request.user, character_ids=ids)
        name_asked = name_ask_context(user=request.user)["name_asked"]
        imported, warnings = chat_import_check(store, user=request.user, character_names=names,
                                               data=data, name_asked=name_asked)
        # A newcomer (no persona yet) is asked their name here too, as wherever a chat starts:
        # the file's player, offered, or "User" beside the file's lines.
        if request.POST.get("find_go"):
            token = token or pending_import_save(store, user=request.user, data=data,
                                                 file_name=file_name)
            return _check_page(request, imported=imported, token=token, file_name=file_name,
                               picked=ids, warnings=warnings, find=request.POST.get("find", ""))
        confirmed = bool(request.POST.get("confirmed"))
        ask_name = not confirmed and name_asked and bool(import_players(imported))
        if not ids or (warnings and not confirmed) or ask_name:
            token = token or pending_import_save(store, user=request.user, data=data,
                                                 file_name=file_name)
            return _check_page(request, imported=imported, token=token, file_name=file_name,
                               picked=ids, warnings=warnings, error=gettext(
                                   "Pick at least one character for this chat.")
                               if confirmed else "")
        named = persona_first_named(store, owner=request.user,
                                    name=request.POST.get("player_name"))
        instance_id, session_id, report = chat_import_new(request.user, character_ids=ids,
                                                          data=data, imported=imported)
    except (AppError, InstanceBusy, StoreError, ValueError) as exc:
        persona_first_undone(store, owner=request.user, persona_id=named)  # asked again
        error = (error_words(exc) if isinstance(exc, LimitReached)
                 else chat_refusal_words(getattr(exc, "message", None) or str(exc)))
        messages.error(request, (gettext(
            "The chat was not imported: %(error)s. Choose a chat exported by SillyTavern "
            "(.jsonl), Agnai or RisuAI (.json).") if isinstance(exc, ChatFormatError)
            else gettext("The chat was not imported: %(error)s")) % {"error": error})
        return redirect(_back(request))
    if token:
        pending_import_drop(store, user=request.user, token=token)
    request.session[import_report_key(instance_id)] = {**report, "session_id": session_id}
    return redirect("instance", instance_id=instance_id)


@login_required
@require_http_methods(["GET", "POST"])
def chat_import_cancel(request: HttpRequest) -> HttpResponse:
    """The check page's Cancel: the waiting file is deleted, back to where the import began."""
    if request.method != "POST":
        return _import_again(request)
    pending_import_drop(get_store(), user=request.user, token=request.POST.get("token", ""))
    return redirect(_back(request))
