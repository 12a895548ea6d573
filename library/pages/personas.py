"""The player's personas page: list, create, edit, avatar, default. Only the owner sees it."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from library.avatars import AVATAR_MAX_BYTES
from library.errors import LibraryConflict, LibraryError, LibraryNotFound
from library.field_words import field_words, fields_words
from library.models import Persona
from library.pages.trash import deleted_url, restore_offer
from library.personas.positions import DEFAULTS as PLACEMENT_DEFAULTS
from library.personas.positions import persona_placement
from library.personas.restore import MAX_FILE_BYTES as PERSONAS_FILE_MAX_BYTES
from library.personas.restore import SKIPPED_REASONS, personas_restore
from library.personas.services import (
    persona_avatar_remove,
    persona_avatar_save,
    persona_create,
    persona_default_set,
    persona_delete,
    persona_update,
)
from library.refusal_words import refusal_words
from library.selectors import lorebooks_visible_to, persona_effective, persona_for_user
from personalab.lib.config_schema import digits_int
from personalab.lib.errors import LimitReached
from personalab.lib.store_errors import StoreError
from personalab.limit_words import error_words
from personalab.storage import get_store

PLACEMENT_POSITIONS = (("prompt", _("In the prompt (story string / prompt manager)")),
                       ("an_top", _("Top of the author's note")),
                       ("an_bottom", _("Bottom of the author's note")),
                       ("depth", _("In the chat at a depth")),
                       ("none", _("None (not sent)")))
PLACEMENT_ROLES = (("system", _("system")), ("user", _("user")), ("assistant", _("assistant")))
PLACEMENT_FIELDS = ("description_position", "description_depth", "description_role")


def _placement_posted(form) -> dict:
    """The placement fields of a form, the depth as a number when it is one (otherwise as
    typed, which the service refuses beside its box)."""
    data = {key: form[key] for key in PLACEMENT_FIELDS if key in form}
    depth = str(data.get("description_depth", "")).strip()
    if (number := digits_int(depth)) is not None:  # isdigit() took "²" and 5,000 digits
        data["description_depth"] = number
    elif "description_depth" in data and not depth:
        data.pop("description_depth")
    return data


def _placement_choices(placed: dict) -> dict:
    return {"placement_positions": PLACEMENT_POSITIONS, "placement_roles": PLACEMENT_ROLES,
            "placed": placed}

AVATAR_CONTENT_TYPES = {"png": "image/png", "jpg": "image/jpeg", "gif": "image/gif",
                        "webp": "image/webp"}


def _own_persona_or_404(request: HttpRequest, persona_id: str) -> dict:
    row = Persona.objects.filter(persona_id=persona_id, owner=request.user).first()
    if row is None:
        raise Http404("persona not found")
    return get_store().persona_read(persona_id)


def _avatar_upload(request: HttpRequest, persona_id: str) -> None:
    upload = request.FILES.get("avatar")
    if upload is not None:
        data = upload.read(AVATAR_MAX_BYTES + 1)
        persona_avatar_save(get_store(), actor=request.user, persona_id=persona_id,
                            data=data)


def _with_avatar_flags(rows) -> list[Persona]:
    """The file knows whether there is an avatar; asking for one that is not there is a 404 in
    the browser console for every persona without a picture."""
    store = get_store()
    listed = list(rows)
    for row in listed:
        try:
            row.has_avatar = bool(store.persona_read(row.persona_id).get("avatar"))
        except StoreError:
            row.has_avatar = False
    return listed


def _books_choices(request: HttpRequest, linked: object) -> list[tuple[str, str]]:
    """The books a persona may be linked to: those its owner may read (and the one it is linked
    to, shown by its id when it has gone)."""
    books = [(row.lorebook_id, row.name)
             for row in lorebooks_visible_to(user=request.user).order_by("name", "lorebook_id")]
    if isinstance(linked, str) and linked and linked not in {book_id for book_id, _ in books}:
        books.append((linked, linked))
    return books


@login_required
@require_http_methods(["GET", "POST"])
def personas_page(request: HttpRequest) -> HttpResponse:
    errors: dict[str, str] = {}
    error = None
    if request.method == "POST":
        # The placement as _placement_posted reads it: an empty Depth box is the default.
        data = {**{key: value for key, value in request.POST.dict().items()
                   if key not in PLACEMENT_FIELDS}, **_placement_posted(request.POST),
                "default": request.POST.get("default") == "on"}
        try:
            # The box is ticked for a first persona: what it says is what happens.
            persona_id = persona_create(get_store(), owner=request.user, data=data,
                                        first_is_default=False)
            _avatar_upload(request, persona_id)
            messages.info(request, gettext("Persona saved."))
            return redirect("personas")
        except (LibraryError, LibraryConflict, ValueError, LimitReached) as exc:
            error = error_words(exc) if isinstance(exc, LimitReached) else field_words(str(exc))
            errors = fields_words(getattr(exc, "field_errors", None) or {})
    return render(request, "library/personas.html", {
        "personas": _with_avatar_flags(Persona.objects.filter(owner=request.user)), "error": error,
        "player_name": persona_effective(get_store(), owner=request.user.username,
                                         persona_id=None)["name"],
        "errors": errors, "posted": request.POST,
        "restorable": restore_offer(request, ("persona",)),
        **_placement_choices(request.POST if request.method == "POST" else PLACEMENT_DEFAULTS)},
        status=400 if error else 200)


@login_required
@require_http_methods(["GET", "POST"])
def persona_edit(request: HttpRequest, persona_id: str) -> HttpResponse:
    persona = _own_persona_or_404(request, persona_id)
    error, errors = None, {}
    if request.method == "POST":
        fields = ("name", "description", "visibility", "lorebook_id")
        data = {**{key: request.POST[key] for key in fields if key in request.POST},
                **_placement_posted(request.POST)}
        try:
            store = get_store()
            persona_update(store, actor=request.user, persona_id=persona_id,
                           data={**data, "default": request.POST.get("default") == "on"})
            if "avatar" in request.FILES:
                _avatar_upload(request, persona_id)
            elif request.POST.get("avatar_remove"):
                persona_avatar_remove(store, actor=request.user, persona_id=persona_id)
            messages.info(request, gettext("Persona saved."))
            return redirect("persona_edit", persona_id=persona_id)
        except LibraryError as exc:
            error, errors = field_words(str(exc)), fields_words(exc.field_errors or {})
            persona = {**persona, **data}
    return render(request, "library/persona_form.html",
                  {"persona": persona, "persona_id": persona_id, "error": error,
                   "lorebooks": _books_choices(request, persona.get("lorebook_id")),
                   "errors": errors, **_placement_choices({**persona_placement(persona), **{
                       key: persona[key] for key in PLACEMENT_FIELDS if key in persona}})},
                  status=400 if error else 200)


@login_required
@require_POST
def personas_restore_page(request: HttpRequest) -> HttpResponse:
    """SillyTavern's personas backup or settings.json, from the personas page."""
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, gettext("Choose a SillyTavern personas backup or settings.json "
                                        "first."))
        return redirect("personas")
    try:
        restored = personas_restore(get_store(), owner=request.user,
                                    data=upload.read(PERSONAS_FILE_MAX_BYTES + 1))
    except LibraryError as exc:
        messages.error(request, refusal_words(str(exc)))
        return redirect("personas")
    messages.info(request, ngettext("%(count)d persona restored.", "%(count)d personas restored.",
                                    len(restored.created)) % {"count": len(restored.created)})
    for name, code in restored.skipped:
        messages.warning(request, gettext("Skipped “%(name)s”: %(reason)s.")
                         % {"name": name, "reason": gettext(SKIPPED_REASONS[code])})
    for name, book in restored.books_missing:
        messages.warning(request, gettext("“%(name)s” uses the world info book “%(book)s”, which "
                                          "you have not imported: import it, then pick it on "
                                          "the persona's page.") % {"name": name, "book": book})
    return redirect("personas")


@login_required
@require_POST
def persona_make_default(request: HttpRequest, persona_id: str) -> HttpResponse:
    _own_persona_or_404(request, persona_id)
    persona_default_set(get_store(), actor=request.user, persona_id=persona_id)
    return redirect("personas")


@login_required
@require_POST
def persona_remove(request: HttpRequest, persona_id: str) -> HttpResponse:
    _own_persona_or_404(request, persona_id)
    persona_delete(get_store(), actor=request.user, persona_id=persona_id)
    messages.info(request, gettext("Persona deleted."))
    return redirect(deleted_url("personas", kind="persona", item_id=persona_id))


@login_required
@require_GET
def persona_avatar(request: HttpRequest, persona_id: str) -> FileResponse:
    try:
        persona_for_user(user=request.user, persona_id=persona_id)
        name = get_store().persona_read(persona_id).get("avatar") or ""
    except (LibraryNotFound, StoreError):
        raise Http404("no avatar") from None
    kind = name.rpartition(".")[2]
    path = get_store().persona_dir(persona_id) / name
    if kind not in AVATAR_CONTENT_TYPES or name != f"avatar.{kind}" or not path.is_file():
        raise Http404("no avatar")
    response = FileResponse(path.open("rb"), content_type=AVATAR_CONTENT_TYPES[kind])
    response["X-Content-Type-Options"] = "nosniff"
    return response
