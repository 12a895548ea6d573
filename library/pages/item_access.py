"""What the editor pages share about the item they show: the item itself, for a user who may use
it (else a 404, never a hint that it exists), and who owns it and what this user may do with it."""

from __future__ import annotations

from django.http import Http404, HttpRequest

from library import selectors
from library.errors import LibraryNotFound
from personalab.storage import get_store


def item_for_use_or_404(request: HttpRequest, kind: str, item_id: str) -> dict:
    try:
        return selectors.item_for_use(get_store(), user=request.user, kind=kind, item_id=item_id)
    except LibraryNotFound:
        raise Http404("not found") from None


def ownership_shown(request: HttpRequest, item: dict, kind: str, item_id: str | None) -> dict:
    """What the form shows about who owns the item and what this user may do with it."""
    return {"kind": kind, "item_id": item_id, "owner": item.get("owner"),
            "visibility": selectors.visibility_of(item) if item_id else "private",
            "can_change": not item_id or selectors.item_can_change(item, request.user)}
