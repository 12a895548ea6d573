"""The authors' UI: characters and backgrounds (outline edited in place with htmx)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.humanize.templatetags.humanize import intcomma
from django.core.files.uploadedfile import UploadedFile
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from library import character_services, selectors
from library.avatars import AVATAR_MAX_BYTES, avatar_file, avatar_problem, content_type
from library.background_picture import (
    background_picture_file,
    background_picture_problem,
    background_picture_remove,
    background_picture_save,
)
from library.background_services import background_delete, background_outline_edit, background_save
from library.card_formats.card_import import character_import_card
from library.card_formats.extensions import (
    DEPTH_PROMPT_DEFAULT_DEPTH,
    depth_prompt_read,
    talkativeness_read,
)
from library.card_formats.extensions import ROLES as NOTE_ROLES
from library.card_formats.world_link import card_world_unlinked_said
from library.character_picker import character_choices_found
from library.character_services import (
    character_avatar_remove,
    character_avatar_save,
    character_delete,
)
from library.errors import (
    LibraryError,
    LibraryForbidden,
    LibraryNotFound,
    PictureImportedAsCard,
)
from library.field_words import fields_words
from library.fields import outline_points
from library.find_replace.scripts import card_scripts
from library.find_replace.services import (
    card_scripts_allow,
    card_scripts_allowed,
    card_scripts_count,
)
from library.item_copy import background_copy, character_copy, lorebook_copy
from library.item_versions import item_version
from library.lore import services as lorebook_services
from library.lore.st_settings import MAX_FILE_BYTES
from library.lore.st_tags import (
    kept_names_said,
    st_tag_names,
    unnamed_tags_said,
)
from library.pages.editor_refusals import character_as_posted, editor_refusal, outline_refusal
from library.pages.editor_sections import character_sections
from library.pages.item_access import item_for_use_or_404, ownership_shown
from library.pages.outline_notices import outline_notices
from library.pages.regex_script_form import (
    card_regex_not_working,
    regex_error,
    regex_scripts_posted,
    regex_scripts_shown,
)
from library.pages.trash import deleted_url
from library.personas.services import name_ask_context
from library.refusal_words import refusal_words
from library.start_kept import start_choices_taken, start_ids_kept
from personalab.lib.config_schema import count_coerced
from personalab.lib.errors import LimitReached
from personalab.lib.ids import InvalidId
from personalab.lib.store_errors import MissingFile
from personalab.storage import get_store


def _refused(request: HttpRequest, exc: LibraryError, fallback: str, **kwargs) -> HttpResponse:
    """A refused delete: 404 stays 404, not-yours is 403 with the sentence, anything else
    (still in use) is said on the item's page."""
    if isinstance(exc, LibraryNotFound):
        raise Http404("not found")
    if isinstance(exc, LibraryForbidden):
        return HttpResponse(str(exc), status=403, content_type="text/plain; charset=utf-8")
    messages.error(request, refusal_words(str(exc)))
    return redirect(fallback, **kwargs)


@login_required
@require_POST
def item_copy(request: HttpRequest, kind: str, item_id: str) -> HttpResponse:
    """"Use as my own": a private copy the user can change."""
    copy = {"character": character_copy, "background": background_copy,
            "lorebook": lorebook_copy}[kind]
    store = get_store()
    try:
        new_id = copy(store, user=request.user, **{f"{kind}_id": item_id})
    except (LibraryNotFound, InvalidId):
        raise Http404("not found") from None
    # By name: the copy is the author's own item from here on, its id means nothing to them.
    messages.info(request, gettext("“%(name)s” is now your own copy: changes here do not touch "
                                   "the original.") % {"name": selectors.item_for_use(
                                       store, user=request.user, kind=kind,
                                       item_id=new_id).get("name") or new_id})
    return redirect(f"{kind}_edit", **{f"{kind}_id": new_id})


@login_required
@require_http_methods(["GET", "POST"])
def character_edit(request: HttpRequest, character_id: str | None = None) -> HttpResponse:
    store = get_store()
    definition = item_for_use_or_404(request, "character", character_id) if character_id else {}
    error, status, field_errors = None, 200, {}
    seen = item_version(definition, "character")
    if request.method == "POST":
        data = request.POST.dict()
        data["lorebook_ids"] = request.POST.getlist("lorebook_ids")
        data["tags"] = request.POST.get("tags", "").splitlines()  # one tag per line
        if "alternate_greetings_shown" in request.POST:  # one box per greeting, in order
            added = request.POST.get("alternate_greeting_new", "")
            data["alternate_greetings"] = [*request.POST.getlist("alternate_greetings"),
                                           *([added] if added.strip() else [])]
        if "depth_prompt" in request.POST:
            data["depth_prompt"] = _note_posted(request.POST)
        upload = request.FILES.get("avatar")
        picture = upload.read(AVATAR_MAX_BYTES + 1) if upload else b""
        try:
            if "regex_scripts" in request.POST:
                data["regex_scripts"] = regex_scripts_posted(request.POST["regex_scripts"])
            if picture and (problem := avatar_problem(picture)):  # before anything is saved
                raise LibraryError(problem[0], {"avatar": problem[1]})
            saved_id = character_services.character_save(
                store, data=data, character_id=character_id, user=request.user,
                seen=request.POST.get("seen"))
            _scripts_answer(store, request, before=definition, character_id=saved_id)
            if picture:
                character_avatar_save(store, actor=request.user,
                                      character_id=saved_id, data=picture)
            elif request.POST.get("avatar_remove"):
                character_avatar_remove(store, actor=request.user, character_id=saved_id)
            messages.info(request, gettext("Character saved."))
            return redirect("character_edit", character_id=saved_id)
        except LibraryNotFound:
            raise Http404("not found") from None
        except (LibraryError, InvalidId, LimitReached) as exc:
            error, definition = editor_refusal(exc), character_as_posted(definition, data)
            status = getattr(exc, "status", 400)
            field_errors = fields_words(getattr(exc, "field_errors", None) or {})
    card_data = ((definition.get("card") or {}).get("data") or {}) if isinstance(
        definition.get("card"), dict) else {}
    extensions = _extensions_shown(card_data, request.POST if error else None)
    return render(request, "library/character_form.html",
                  {"definition": definition, "character_id": character_id, "error": error,
                   "seen": seen,
                   "lorebooks": selectors.lorebooks_visible_to(user=request.user),
                   "card": card_data, "roles": NOTE_ROLES,
                   "extensions": extensions,
                   "regex_scripts": regex_scripts_shown(card_data, request.POST if error else None),
                   "regex_error": regex_error(field_errors) or (
                       "" if error else card_regex_not_working(card_data)),
                   "sections": character_sections(
                       definition=definition, card=card_data, extensions=extensions,
                       field_errors=field_errors, new=not character_id),
                   "regex_allowed": bool(character_id) and card_scripts_allowed(
                       store, username=request.user.get_username(), character=definition),
                   "ownership": ownership_shown(request, definition, "character", character_id),
                   "has_avatar": bool(character_id and avatar_file(
                       store.character_dir(character_id))),
                   **_story_start_choices(request, character_id)},
                  status=status)


def _scripts_answer(store, request: HttpRequest, *, before: dict[str, Any],
                    character_id: str) -> None:
    """The editor's "allow in my chats" box, unless the scripts were just edited (those are
    the account's own and run: library/character_services.py)."""
    if "regex_scripts_allowed_shown" not in request.POST:
        return
    after = store.character_read(character_id)
    if card_scripts(after.get("card")) == card_scripts(before.get("card")):
        card_scripts_allow(store, username=request.user.get_username(), character=after,
                           allowed="regex_scripts_allowed" in request.POST)


def _note_posted(form) -> dict[str, str]:
    return {"prompt": form.get("depth_prompt", ""), "role": form.get("depth_prompt_role", ""),
            "depth": form.get("depth_prompt_depth", "")}


def _extensions_shown(card_data: dict, posted) -> dict:
    """The Character's Note and talkativeness boxes: as stored, or as posted when refused
    (so nothing typed is lost)."""
    if posted is not None and "depth_prompt" in posted:
        return {"note": _note_posted(posted), "talkativeness": posted.get("talkativeness", "")}
    extensions = card_data.get("extensions")
    talkativeness = talkativeness_read(extensions)
    return {"note": depth_prompt_read(extensions) or {
                "prompt": "", "depth": DEPTH_PROMPT_DEFAULT_DEPTH, "role": "system"},
            "talkativeness": "" if talkativeness is None else f"{talkativeness:g}"}


def _story_start_choices(request: HttpRequest, character_id: str | None) -> dict:
    """The characters and backgrounds a story with this character can start with."""
    if not character_id:
        return {}
    find = request.GET.get("find")
    kept = start_choices_taken(request)
    characters, find_error = character_choices_found(user=request.user, find=find,
                                                     also=[character_id, *start_ids_kept(kept)])
    return {"start_characters": characters, "find": find, "find_error": find_error,
            "start_kept": kept,
            "backgrounds": selectors.backgrounds_visible_to(user=request.user),
            **name_ask_context(user=request.user)}


def _name_before_delete(store, kind: str, item_id: str) -> str:
    """What the player calls the item they delete (read before it moves to the trash; the
    message is shown only once the delete, with its access check, went through)."""
    try:
        item = (store.character_read(item_id) if kind == "character"
                else store.background_read(item_id))
    except MissingFile:
        # A deleted item's folder stays, empty: the delete's own check answers 404, as for an
        # id never used (the missing file's message told anyone the id had been an item).
        return item_id
    return item.get("name") or item_id


@login_required
@require_POST
def character_remove(request: HttpRequest, character_id: str) -> HttpResponse:
    store = get_store()
    try:
        name = _name_before_delete(store, "character", character_id)
        character_delete(store, character_id=character_id, user=request.user)
        messages.info(request, gettext("Character %(name)s deleted (moved to data/trash).")
                      % {"name": name})
    except InvalidId:
        raise Http404("not found") from None
    except LibraryError as exc:
        return _refused(request, exc, "character_edit", character_id=character_id)
    # The library offers it back (a mistaken delete is undone in the app, not in data/trash).
    return redirect(deleted_url("library", kind="character", item_id=character_id))


@login_required
@require_http_methods(["GET", "POST"])
def background_edit(request: HttpRequest, background_id: str | None = None) -> HttpResponse:
    store = get_store()
    background = item_for_use_or_404(request, "background", background_id) if background_id else {}
    error, status, seen = None, 200, item_version(background, "background")
    if request.method == "POST":
        data = request.POST.dict()
        data["lorebook_ids"] = request.POST.getlist("lorebook_ids")
        if not background_id:
            data["story_outline"] = outline_points(request.POST.get("outline_text", ""))
        upload = request.FILES.get("picture")
        picture = upload.read(AVATAR_MAX_BYTES + 1) if upload else b""
        try:
            if picture and (problem := background_picture_problem(picture)):
                raise LibraryError(problem[0], {"picture": problem[1]})  # before anything is saved
            saved_id = background_save(store, data=data, background_id=background_id,
                                       user=request.user, seen=request.POST.get("seen"))
            if picture:
                background_picture_save(store, actor=request.user, background_id=saved_id,
                                        data=picture)
            elif request.POST.get("picture_remove"):
                background_picture_remove(store, actor=request.user, background_id=saved_id)
            messages.info(request, gettext("Background saved."))
            return redirect("background_edit", background_id=saved_id)
        except LibraryNotFound:
            raise Http404("not found") from None
        except (LibraryError, InvalidId, LimitReached) as exc:
            error, background = editor_refusal(exc), {**background, **data}
            status = getattr(exc, "status", 400)
    return render(request, "library/background_form.html",
                  {"background": background, "background_id": background_id, "error": error,
                   "seen": seen,
                   "lorebooks": selectors.lorebooks_visible_to(user=request.user),
                   "ownership": ownership_shown(request, background, "background", background_id),
                   "has_picture": background_picture_file(store, background_id) is not None},
                  status=status)


@login_required
@require_POST
def background_outline(request: HttpRequest, background_id: str) -> HttpResponse:
    store = get_store()
    item_for_use_or_404(request, "background", background_id)
    error, notices = None, []
    try:
        chats = background_outline_edit(
            store, background_id=background_id, action=request.POST.get("action", ""),
            position=count_coerced(request.POST.get("position")),
            content=request.POST.get("content", ""), user=request.user,
            shown=request.POST.get("shown"))
        notices = outline_notices(chats, request.user)
    except LibraryForbidden as exc:
        return HttpResponse(str(exc), status=403, content_type="text/plain; charset=utf-8")
    except LibraryError as exc:
        error = outline_refusal(exc, request.POST.get("position", ""))
    return render(request, "library/_outline_editor.html", {
        "background": store.background_read(background_id), "background_id": background_id,
        "outline_error": error, "outline_notices": notices})


@login_required
@require_POST
def background_remove(request: HttpRequest, background_id: str) -> HttpResponse:
    store = get_store()
    try:
        name = _name_before_delete(store, "background", background_id)
        background_delete(store, background_id=background_id, user=request.user)
        messages.info(request, gettext("Background %(name)s deleted (moved to data/trash).") % {"name": name})
    except InvalidId:
        raise Http404("not found") from None
    except LibraryError as exc:
        return _refused(request, exc, "background_edit", background_id=background_id)
    return redirect(deleted_url("library", kind="background", item_id=background_id))


def _upload_imported(request: HttpRequest, missing: str, importer: Callable[[UploadedFile], str],
                     page: str, key: str, *,
                     said: Callable[[str], list[str]] | None = None) -> HttpResponse:
    """The uploaded file through `importer(upload)`; its page, or the library with why not.
    `said(item_id)`: sentences that follow "Imported …"."""
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, missing)
        return redirect("library")
    try:
        item_id = importer(upload)
    except PictureImportedAsCard:
        messages.error(request, gettext(
            "%(name)s is a picture with no character card in it. To make a character with this "
            "picture, press “+ New character” and choose it as the picture.") % {"name": upload.name})
        return redirect("library")
    except LibraryError as exc:
        messages.error(request, gettext("Could not import %(name)s: %(error)s") % {
            "name": upload.name, "error": refusal_words(str(exc))})
        return redirect("library")
    messages.info(request, gettext("Imported %(name)s.") % {"name": upload.name})
    for sentence in said(item_id) if said else ():
        messages.info(request, sentence)
    return redirect(page, **{key: item_id})


@login_required
@require_POST
def card_upload(request: HttpRequest) -> HttpResponse:
    return _upload_imported(
        request, gettext("Choose a card file (PNG or JSON) first."),
        lambda upload: _card_imported(request, upload), "character_edit", "character_id",
        said=_card_books_said)


def _card_books_said(character_id: str) -> list[str]:
    """The lorebooks the card came with, by name: SillyTavern asks about a card's embedded
    book; here it is imported and linked at once, and a newcomer went looking for it."""
    store = get_store()
    said = []
    for lorebook_id in store.character_read(character_id).get("lorebook_ids") or []:
        book = store.lorebook_read(lorebook_id)
        count = len(book.get("entries") or [])
        said.append(ngettext(
            "Lorebook linked to this character: “%(name)s” (%(count)s entry).",
            "Lorebook linked to this character: “%(name)s” (%(count)s entries).",
            count) % {"name": book.get("name") or lorebook_id, "count": intcomma(count)})
    return said


def _card_imported(request: HttpRequest, upload: UploadedFile) -> str:
    """The card imported; a card with regex scripts says so (they wait for the player's
    yes, as in SillyTavern)."""
    store = get_store()
    character_id = character_import_card(store, data=upload.read(), filename=upload.name,
                                         user=request.user)
    character = store.character_read(character_id)
    naming = lorebook_services.character_books_named(store, user=request.user,
                                                     character=character)
    for sentence in kept_names_said(naming.from_kept):
        messages.info(request, sentence)
    for sentence in [*card_world_unlinked_said(character),
                     *unnamed_tags_said(naming.unnamed, settings_given=False)]:
        messages.warning(request, sentence)
    if count := card_scripts_count(character):
        messages.warning(request, ngettext(
            "This card has %(count)d regex script. It stays off until you allow it "
            "(below, or in a chat's Story panel).",
            "This card has %(count)d regex scripts. They stay off until you allow them "
            "(below, or in a chat's Story panel).", count) % {"count": count})
    return character_id


@login_required
@require_POST
def lorebook_upload(request: HttpRequest) -> HttpResponse:
    return _upload_imported(
        request, gettext("Choose a world info file (JSON) first."),
        lambda upload: _lorebook_imported(request, upload), "lorebook_edit", "lorebook_id")


def _lorebook_imported(request: HttpRequest, upload: UploadedFile) -> str:
    """The book imported, its filters' SillyTavern tag ids named from the settings.json
    given with it; the entries whose ids stay unnamed are listed as warnings."""
    settings = request.FILES.get("settings")
    names = st_tag_names(settings.read(MAX_FILE_BYTES + 1)) if settings is not None else None
    lorebook_id, naming = lorebook_services.lorebook_import_named(
        get_store(), owner=request.user, filename=upload.name, tag_names=names,
        data=upload.read(lorebook_services.MAX_LOREBOOK_BYTES + 1))
    for sentence in kept_names_said(naming.from_kept):
        messages.info(request, sentence)
    for sentence in unnamed_tags_said(naming.unnamed, settings_given=settings is not None):
        messages.warning(request, sentence)
    return lorebook_id


@login_required
@require_GET
def background_picture(request: HttpRequest, background_id: str) -> HttpResponse:
    """The background's picture, behind the chat and in the library (a private one is 404 to
    others)."""
    item_for_use_or_404(request, "background", background_id)
    path = background_picture_file(get_store(), background_id)
    if path is None:
        raise Http404("no picture")
    response = HttpResponse(path.read_bytes(), content_type=content_type(path))
    response["Cache-Control"] = "private, max-age=300"
    return response


@login_required
@require_GET
def character_avatar(request: HttpRequest, character_id: str) -> HttpResponse:
    """The picture kept from the card (PNG, or a CHARX's JPEG/WebP icon), shown beside the
    character's messages; the URL ends .png whatever the kind, the content type says it."""
    store = get_store()
    item_for_use_or_404(request, "character", character_id)  # a private one is 404 to others
    path = avatar_file(store.character_dir(character_id))
    if path is None:
        raise Http404("no avatar")
    response = HttpResponse(path.read_bytes(), content_type=content_type(path))
    response["Cache-Control"] = "private, max-age=300"
    return response
