"""/api/v1/trash and /api/v1/{characters,backgrounds,lorebooks,personas}/{item_id}/restore:
what you deleted, brought back under its own id (library/trash.py, as the library's pages do)."""

from __future__ import annotations

from typing import Literal

from django.http import HttpRequest
from ninja import Router

from library.api.schemas import RestoredOut, TrashList
from library.trash import KINDS, item_restore, trash_listed
from personalab.lib.ids import validate_id
from personalab.storage import get_store

router = Router(tags=["trash"])


@router.get("/trash", response=TrashList)
def trash_list(request: HttpRequest,
               kind: Literal["character", "background", "lorebook", "persona"] | None = None):
    """What you deleted and may restore (staff: everyone's), the latest deleted first; `kind`
    lists one kind only. An item restored, or whose id is live again, is not listed."""
    return {"items": trash_listed(get_store(), user=request.auth, kind=kind)}


def _restore_route(kind: str) -> None:
    def restore(request: HttpRequest, item_id: str):
        validate_id(item_id, kind=f"{kind} id")
        return item_restore(get_store(), kind=kind, item_id=item_id, user=request.auth)

    router.post(
        f"/{kind}s/{{item_id}}/restore", response=RestoredOut, operation_id=f"{kind}_restore",
        summary=f"Restore a deleted {kind}",
        description=f"The {kind} you deleted (staff: anyone's) back as it was, under its id. "
        "404 when it is not in the trash or not yours; 409 `exists` while a live one holds its "
        "id" + (" or you have a live persona of its name" if kind == "persona" else "")
        + "; 403 `limit_reached` when you own as many as allowed.")(restore)


for _kind in KINDS:
    _restore_route(_kind)
