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
        data = request.POST.dict()
        data["lorebook_ids"] = [i for i in request.POST.getlist("lorebook_ids")
                                if i in store.lorebook_ids()]
        data["tags"] = request.POST.get("tags", "").splitlines()  # one tag per line
        try:
            saved_id = services.character_save(store, data=data,
                                               character_id=character_id)
            messages.info(request, "Character saved.")
            return redirect("character_edit", character_id=saved_id)
        except (services.LibraryError, InvalidId) as exc:
            error, definition = str(exc), {**definition, **request.POST.dict()}
    card_data = ((definition.get("card") or {}).get("data") or {}) if isinstance(
        definition.get("card"), dict) else {}
    return render(request, "library/character_form.html",
                  {"definition": definition, "character_id": character_id, "error": error,
                   "lorebooks": Lorebook.objects.all(), "card": card_data},
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
        data["lorebook_ids"] = [i for i in request.POST.getlist("lorebook_ids")
                                if i in store.lorebook_ids()]
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
                  {"background": background, "background_id": background_id, "error": error,
                   "lorebooks": Lorebook.objects.all()},
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


@login_required
@require_POST
def card_upload(request: HttpRequest) -> HttpResponse:
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, "Choose a card file (PNG or JSON) first.")
        return redirect("library")
    try:
        character_id = services.character_import_card(get_store(), data=upload.read(),
                                                      filename=upload.name)
    except services.LibraryError as exc:
        messages.error(request, f"Could not import {upload.name}: {exc}")
        return redirect("library")
    messages.info(request, f"Imported {upload.name}.")
    return redirect("character_edit", character_id=character_id)


def _entry_from_form(form, prefix: str, uid: int) -> dict:
    def split(name: str) -> list[str]:
        return [k.strip() for k in form.get(f"{prefix}{name}", "").split(",") if k.strip()]

    return {
        "uid": uid, "keys": split("keys"), "secondary_keys": split("secondary_keys"),
        "selective_logic": form.get(f"{prefix}selective_logic", "and_any"),
        "use_regex": f"{prefix}use_regex" in form, "content": form.get(f"{prefix}content", ""),
        "enabled": f"{prefix}enabled" in form, "constant": f"{prefix}constant" in form,
        "priority": form.get(f"{prefix}priority", "100") or "100",
        "position": form.get(f"{prefix}position", "before_char"),
        "depth": form.get(f"{prefix}depth", "4") or "4", "comment": form.get(f"{prefix}comment", ""),
    }


@login_required
@require_http_methods(["GET", "POST"])
def lorebook_edit(request: HttpRequest, lorebook_id: str | None = None) -> HttpResponse:
    store = get_store()
    lorebook = _read_or_404(store.lorebook_read, lorebook_id) if lorebook_id else {
        "name": "", "scan_depth": 4, "token_budget": 800, "entries": []}
    error = None
    if request.method == "POST":
        form = request.POST
        uids = [int(u) for u in form.getlist("uid") if u.isdigit()]
        entries = [_entry_from_form(form, f"e{uid}_", uid) for uid in uids
                   if f"e{uid}_delete" not in form]
        if form.get("new_keys") or form.get("new_content"):
            entries.append(_entry_from_form(form, "new_", max(uids, default=0) + 1))
        data = {**lorebook, "name": form.get("name", ""), "scan_depth": form.get("scan_depth", 4),
                "token_budget": form.get("token_budget", 800), "entries": entries}
        try:
            saved_id = services.lorebook_save(store, data=data, lorebook_id=lorebook_id)
            messages.info(request, "Lorebook saved.")
            return redirect("lorebook_edit", lorebook_id=saved_id)
        except services.LibraryError as exc:
            error, lorebook = f"{exc} {exc.field_errors or ''}", data
    return render(request, "library/lorebook_form.html",
                  {"lorebook": lorebook, "lorebook_id": lorebook_id, "error": error},
                  status=400 if error else 200)


@login_required
@require_POST
def lorebook_test(request: HttpRequest, lorebook_id: str) -> HttpResponse:
    from library.lorebook import lorebook_match
    from personalab.lib.tokens import count_tokens

    lorebook = _read_or_404(get_store().lorebook_read, lorebook_id)
    text = request.POST.get("text", "")
    match = lorebook_match([lorebook], messages=[text], count_tokens=count_tokens)
    return render(request, "library/_lore_test.html", {"match": match, "text": text})
