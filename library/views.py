"""The authors' UI: characters and backgrounds (outline edited in place with htmx)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from library import services
from library.models import Background, Character, Lorebook
from personalab.lib.filestore import MissingFile
from personalab.lib.ids import InvalidId
from personalab.storage import get_store


def _read_or_404(reader, item_id: str) -> dict:
    try:
        return reader(item_id)
    except (MissingFile, InvalidId):
        raise Http404("not found") from None


@login_required
@require_GET
def library_index(request: HttpRequest) -> HttpResponse:
    return render(request, "library/index.html", {
        "characters": Character.objects.all(), "backgrounds": Background.objects.all(),
        "lorebooks": Lorebook.objects.all()})


@login_required
@require_http_methods(["GET", "POST"])
def character_edit(request: HttpRequest, character_id: str | None = None) -> HttpResponse:
    store = get_store()
    definition = _read_or_404(store.character_read, character_id) if character_id else {}
    error = None
    if request.method == "POST":
        try:
            saved_id = services.character_save(store, data=request.POST.dict(),
                                               character_id=character_id)
            messages.info(request, "Character saved.")
            return redirect("character_edit", character_id=saved_id)
        except (services.LibraryError, InvalidId) as exc:
            error, definition = str(exc), {**definition, **request.POST.dict()}
    return render(request, "library/character_form.html",
                  {"definition": definition, "character_id": character_id, "error": error},
                  status=400 if error else 200)


@login_required
@require_POST
def character_remove(request: HttpRequest, character_id: str) -> HttpResponse:
    try:
        services.character_delete(get_store(), character_id=character_id)
        messages.info(request, f"Character {character_id} deleted (moved to data/trash).")
    except (services.LibraryError, InvalidId) as exc:
        messages.error(request, str(exc))
        return redirect("character_edit", character_id=character_id)
    return redirect("library")


@login_required
@require_http_methods(["GET", "POST"])
def background_edit(request: HttpRequest, background_id: str | None = None) -> HttpResponse:
    store = get_store()
    background = _read_or_404(store.background_read, background_id) if background_id else {}
    error = None
    if request.method == "POST":
        data = request.POST.dict()
        if not background_id:
            data["story_outline"] = [line for line in
                                     request.POST.get("outline_text", "").splitlines()]
        try:
            saved_id = services.background_save(store, data=data, background_id=background_id)
            messages.info(request, "Background saved.")
            return redirect("background_edit", background_id=saved_id)
        except (services.LibraryError, InvalidId) as exc:
            error, background = str(exc), {**background, **data}
    return render(request, "library/background_form.html",
                  {"background": background, "background_id": background_id, "error": error},
                  status=400 if error else 200)


@login_required
@require_POST
def background_outline(request: HttpRequest, background_id: str) -> HttpResponse:
    store = get_store()
    _read_or_404(store.background_read, background_id)
    error = None
    try:
        position = request.POST.get("position")
        services.background_outline_edit(
            store, background_id=background_id, action=request.POST.get("action", ""),
            position=int(position) if position and position.isdigit() else None,
            content=request.POST.get("content", ""))
    except services.LibraryError as exc:
        error = str(exc)
    background = store.background_read(background_id)
    return render(request, "library/_outline_editor.html",
                  {"background": background, "background_id": background_id,
                   "outline_error": error})


@login_required
@require_POST
def background_remove(request: HttpRequest, background_id: str) -> HttpResponse:
    try:
        services.background_delete(get_store(), background_id=background_id)
        messages.info(request, f"Background {background_id} deleted (moved to data/trash).")
    except (services.LibraryError, InvalidId) as exc:
        messages.error(request, str(exc))
        return redirect("background_edit", background_id=background_id)
    return redirect("library")
