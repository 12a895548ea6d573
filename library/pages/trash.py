"""Deleted characters, backgrounds, lorebooks and personas, brought back from the library's pages:
the list of what this account deleted, the offer right after a delete, and the restore
(library/trash.py; the REST API calls the same service)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy, pgettext
from django.views.decorators.http import require_GET, require_POST

from library.errors import LibraryNotFound
from library.trash import KINDS, RestoreRefused, item_restore, trash_listed, trash_offered
from personalab.lib.errors import LimitReached
from personalab.lib.ids import InvalidId
from personalab.limit_words import error_words
from personalab.storage import get_store

RESTORED = {
    "character": gettext_lazy("Character %(name)s restored."),
    "background": gettext_lazy("Background %(name)s restored."),
    "lorebook": gettext_lazy("Lorebook %(name)s restored."),
    "persona": gettext_lazy("Persona %(name)s restored."),
}
KIND_TITLES = {
    "character": gettext_lazy("Characters"), "background": gettext_lazy("Backgrounds"),
    "lorebook": gettext_lazy("Lorebooks"), "persona": gettext_lazy("Personas"),
}


@login_required
@require_GET
def trash_page(request: HttpRequest) -> HttpResponse:
    listed = trash_listed(get_store(), user=request.user)
    groups = [{"kind": kind, "title": KIND_TITLES[kind],
               "items": [item for item in listed if item["kind"] == kind]} for kind in KINDS]
    return render(request, "library/trash.html",
                  {"groups": [group for group in groups if group["items"]],
                   "staff": request.user.is_staff,
                   "trash_days": settings.PERSONALAB_TRASH_DAYS})


@login_required
@require_POST
def item_restore_page(request: HttpRequest, kind: str, item_id: str) -> HttpResponse:
    try:
        restored = item_restore(get_store(), kind=kind, item_id=item_id, user=request.user)
    except (LibraryNotFound, InvalidId):
        raise Http404("not found") from None
    except RestoreRefused as exc:
        values = {**exc.values, "kind": pgettext("kind of item", exc.values.get("kind", ""))}
        messages.error(request, gettext(exc.words) % values)
        return redirect("trash")
    except LimitReached as exc:
        messages.error(request, error_words(exc))
        return redirect("trash")
    messages.info(request, str(RESTORED[kind]) % {"name": restored["name"]})
    return redirect(f"{kind}_edit", **{f"{kind}_id": item_id})


def restore_offer(request: HttpRequest, kinds: tuple[str, ...]) -> dict[str, str] | None:
    """The item just deleted (`?deleted=<id>&kind=<one of kinds>`, the first by default),
    while the trash still holds it for this user: the page offers it back."""
    item_id, kind = request.GET.get("deleted", ""), request.GET.get("kind") or kinds[0]
    store = get_store()
    if not item_id or kind not in kinds:
        return None
    try:
        note = trash_offered(store, kind=kind, item_id=item_id, user=request.user)
    except InvalidId:
        return None
    if note is None:
        return None
    return {"kind": kind, "id": item_id, "name": note.get("name") or item_id,
            "action": f"{kind}_restore"}


def deleted_url(page: str, *, kind: str, item_id: str) -> str:
    """The page to go back to after a delete, which offers the item back."""
    return f"{reverse(page)}?{urlencode({'deleted': item_id, 'kind': kind})}"
