"""Lorebook routes of /api/v1/ (SPEC §10): CRUD, import and export of world info."""

from __future__ import annotations

import json
from typing import Any, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Body, File, Router, Status
from ninja.files import UploadedFile

from library.api.schemas import KeptTagNames, KeptTagNamesForgotten
from library.character_books import character_books_from_settings
from library.item_copy import lorebook_copy
from library.lore import services as lorebook_services
from library.lore.global_books import (
    global_lorebook_ids,
    global_lorebooks_from_settings,
    global_lorebooks_set,
)
from library.lore.st_settings import (
    MAX_FILE_BYTES,
    world_info_settings_effective,
    world_info_settings_import,
)
from library.lore.st_tag_list import st_tags_forget, st_tags_kept_read
from library.lore.st_tags import MAX_TAGS, TagNaming, st_tag_names, unnamed_tags_said
from library.selectors import item_for_edit, lorebook_for_use, visibility_of
from personalab.lib.body_fields import body_fields_check
from personalab.lib.errors import Forbidden
from personalab.storage import get_store

router = Router(tags=["lorebooks"])


def lorebook_out(lorebook: dict[str, Any]) -> dict[str, Any]:
    return {**lorebook, "visibility": visibility_of(lorebook), "owner": lorebook.get("owner")}


@router.get("/lorebooks")
def lorebooks_list(request: HttpRequest):
    """Your lorebooks and shared ones (staff: all)."""
    books = lorebook_services.lorebooks_listed(get_store(), user=request.auth)
    return {"lorebooks": [{"lorebook_id": b["lorebook_id"], "name": b.get("name", ""),
                           "entry_count": len(b.get("entries") or []),
                           "owner": b.get("owner"), "visibility": visibility_of(b)}
                          for b in books]}


@router.post("/lorebooks", response={201: dict})
def lorebook_create(request: HttpRequest, payload: dict[str, Any] = Body(...)):
    """A whole lorebook (`name`, `entries`, ...); an existing `lorebook_id` is a 409; `owner`
    is a 400 `unknown_field` (you own what you create); other keys are kept as sent."""
    body_fields_check({"owner": payload["owner"]} if "owner" in payload else {}, writable=(),
                      shown={})
    store = get_store()
    lorebook_id = lorebook_services.lorebook_create(store, owner=request.auth, data=payload)
    return Status(201, lorebook_out(store.lorebook_read(lorebook_id)))


@router.post("/lorebooks/import", response={201: dict})
def lorebook_import(request: HttpRequest, file: File[UploadedFile],
                    settings: File[UploadedFile] = None):
    """Multipart `file`: a SillyTavern world-info JSON, a card's `character_book`, or a card
    JSON that has one. Keys that are not valid regexes import as plain text. Optional
    `settings`: SillyTavern's settings.json (or its `{"tags": [...]}`), whose tag names are
    added beside the tag ids of the book's character filters (the ids stay, for SillyTavern).
    The account keeps the tags of each settings file it gives: ids that file does not name
    are named from them, listed in `named_from_kept` (id -> name).
    The answer's `warnings` (sentences) and `unnamed_tag_ids` (`uid`, `comment`, `tag_ids`)
    name the entries whose filters keep ids with no name: those ids filter nothing here."""
    store = get_store()
    names = st_tag_names(settings.read(MAX_FILE_BYTES + 1)) if settings is not None else None
    lorebook_id, naming = lorebook_services.lorebook_import_named(
        store, owner=request.auth, data=file.read(lorebook_services.MAX_LOREBOOK_BYTES + 1),
        filename=file.name or "", tag_names=names)
    return Status(201, _with_naming(store.lorebook_read(lorebook_id), naming,
                                    settings_given=settings is not None))


def _with_naming(lorebook: dict[str, Any], naming: TagNaming, *,
                 settings_given: bool) -> dict[str, Any]:
    return {**lorebook_out(lorebook),
            "warnings": unnamed_tags_said(naming.unnamed, settings_given=settings_given),
            "unnamed_tag_ids": [{"uid": one.uid, "comment": one.comment, "tag_ids": one.tag_ids}
                                for one in naming.unnamed],
            "named_from_kept": naming.from_kept}


@router.get("/world_info/global")
def world_info_global(request: HttpRequest):
    """Your books in all your chats (SillyTavern's globally selected world info): each turn of
    a chat you own reads them after its background's, while you may read them."""
    return {"lorebook_ids": global_lorebook_ids(get_store(),
                                                username=request.auth.get_username())}


@router.put("/world_info/global")
def world_info_global_set(request: HttpRequest, payload: dict[str, Any] = Body(...)):
    """`{"lorebook_ids": [...]}`: the whole list, in order; each an existing book you may read
    (else a 400 naming `lorebook_ids`, nothing saved); `[]` for none."""
    body_fields_check(payload, writable=("lorebook_ids",), shown={})
    chosen = global_lorebooks_set(get_store(), user=request.auth,
                                  lorebook_ids=payload.get("lorebook_ids"))
    return {"lorebook_ids": chosen}


@router.post("/world_info/global/import")
def world_info_global_import(request: HttpRequest, file: File[UploadedFile]):
    """Multipart `file`: SillyTavern's settings.json (or its `world_info_settings` alone). The
    books its `world_info.globalSelect` names are added to yours in all your chats: for each
    name, the book of that name you may read, your own first. Answers `{"lorebook_ids",
    "chosen": [{"name", "lorebook_id"}], "missing": [names]}` (import those books, then this
    again); a file that selects none is a 400."""
    return global_lorebooks_from_settings(get_store(), user=request.auth,
                                          data=file.read(MAX_FILE_BYTES + 1))


@router.post("/world_info/character_books/import")
def world_info_character_books_import(request: HttpRequest, file: File[UploadedFile]):
    """Multipart `file`: SillyTavern's settings.json. The extra books it links to characters
    (`world_info.charLore`, "Additional lorebooks") are linked to your own character of that
    name, each book the one of that name you may read, your own first. Answers `{"linked":
    [{"character_id", "name", "lorebook_ids"}], "missing_characters": [avatar file names],
    "missing_books": [names], "refused": [{"file", "reason"}]}` (import those, then this
    again; a refused file, SillyTavern's "Name1.png" or a name several of yours bear, is
    linked on the character's page); nothing is unlinked."""
    return character_books_from_settings(get_store(), user=request.auth,
                                         data=file.read(MAX_FILE_BYTES + 1))


@router.get("/world_info/tag_names", response=KeptTagNames)
def world_info_tag_names(request: HttpRequest):
    """The SillyTavern tag names your account kept from the settings.json files it gave
    (import, "Name the tags"): they name the tag ids of your books' character filters. A
    damaged list is a 409 `damaged` (DELETE it, then give your settings.json again)."""
    kept = st_tags_kept_read(get_store(), username=request.auth.get_username())
    return {"tags": [{"id": tag, "name": name} for tag, name in kept.items()],
            "count": len(kept), "max": MAX_TAGS}


@router.delete("/world_info/tag_names", response=KeptTagNamesForgotten)
def world_info_tag_names_forget(request: HttpRequest):
    """Forget all your kept tag names (a damaged list too). Books keep the names already
    written beside their ids."""
    forgotten = st_tags_forget(get_store(), username=request.auth.get_username())
    return {"forgotten": forgotten, "count": 0}


@router.delete("/world_info/tag_names/{tag_id}", response=KeptTagNamesForgotten)
def world_info_tag_name_forget(request: HttpRequest, tag_id: str):
    """Forget one kept tag name (404 when it is not kept)."""
    store, username = get_store(), request.auth.get_username()
    forgotten = st_tags_forget(store, username=username, tag_id=tag_id)
    return {"forgotten": forgotten, "count": len(st_tags_kept_read(store, username=username))}


@router.get("/world_info/settings")
def world_info_settings(request: HttpRequest):
    """The world-info settings every turn uses, under SillyTavern's names (site-wide)."""
    return {"settings": world_info_settings_effective(get_store())}


@router.post("/world_info/settings/import")
def world_info_settings_import_file(request: HttpRequest, file: File[UploadedFile]):
    """Staff only (the settings are site-wide). Multipart `file`: SillyTavern's settings.json
    (or its `world_info_settings` alone). `world_info_budget`, `world_info_budget_cap` and
    `world_info_include_names` are applied; the others are listed as `same` (what this app
    does anyway) or `not_applied` (with what it does instead); keys it does not know are
    listed in `unknown`. A bad value is a 400 naming its key, nothing written."""
    if not request.auth.is_staff:
        raise Forbidden("only staff accounts may change the site's world-info settings")
    store = get_store()
    result = world_info_settings_import(store, data=file.read(MAX_FILE_BYTES + 1))
    return {"applied": result.applied, "same": result.same, "not_applied": result.not_applied,
            "unknown": result.unknown,
            "notes": [text % values for text, values in result.notes],
            "settings": world_info_settings_effective(store)}


@router.get("/lorebooks/{lorebook_id}")
def lorebook_detail(request: HttpRequest, lorebook_id: str):
    return lorebook_out(lorebook_for_use(get_store(), user=request.auth, lorebook_id=lorebook_id))


@router.put("/lorebooks/{lorebook_id}")
def lorebook_change(request: HttpRequest, lorebook_id: str, payload: dict[str, Any] = Body(...)):
    """The whole lorebook as it should be; fields the editor does not know are kept as sent;
    `lorebook_id` and `owner` may be sent back unchanged (changed: 400 `read_only_field`)."""
    store = get_store()
    fixed = {name: payload[name] for name in lorebook_services.SERVER_FIELDS if name in payload}
    if fixed:
        body_fields_check(fixed, writable=(), shown=lorebook_out(
            lorebook_for_use(store, user=request.auth, lorebook_id=lorebook_id)))
    lorebook_services.lorebook_update(store, actor=request.auth, lorebook_id=lorebook_id,
                                      data=payload)
    return lorebook_out(store.lorebook_read(lorebook_id))


@router.delete("/lorebooks/{lorebook_id}", response={204: None})
def lorebook_remove(request: HttpRequest, lorebook_id: str):
    lorebook_services.lorebook_remove(get_store(), actor=request.auth, lorebook_id=lorebook_id)
    return Status(204, None)


@router.post("/lorebooks/{lorebook_id}/copy", response={201: dict})
def lorebook_copied(request: HttpRequest, lorebook_id: str):
    """"Use as my own": a private copy of a lorebook you may see, owned by you."""
    store = get_store()
    new_id = lorebook_copy(store, user=request.auth, lorebook_id=lorebook_id)
    return Status(201, {**lorebook_out(store.lorebook_read(new_id)), "copied_from": lorebook_id})


@router.post("/lorebooks/{lorebook_id}/tag_names")
def lorebook_tag_names(request: HttpRequest, lorebook_id: str,
                       settings: File[UploadedFile] = None):
    """Optional multipart `settings`: SillyTavern's settings.json (or its `{"tags": [...]}`):
    the tag names it gives the ids of this book's character filters are added beside them, as
    at the import (owner or staff), then the names your account kept from the settings files
    it gave before (`named_from_kept`); without a file, the kept names alone. The book, with
    `warnings` and `unnamed_tag_ids` for the ids still without a name."""
    store = get_store()
    # before the file is read: parsing 10 MB for a book the caller may not change is wasted
    item_for_edit(store, user=request.auth, kind="lorebook", item_id=lorebook_id)
    naming = lorebook_services.lorebook_tags_name(
        store, actor=request.auth, lorebook_id=lorebook_id,
        tag_names=st_tag_names(settings.read(MAX_FILE_BYTES + 1)) if settings is not None
        else None)
    return _with_naming(store.lorebook_read(lorebook_id), naming,
                        settings_given=settings is not None)


@router.get("/lorebooks/{lorebook_id}/export")
def lorebook_export(request: HttpRequest, lorebook_id: str,
                    format: Literal["st", "card"] = "st"):  # noqa: A002 — the query name
    """`format=st`: a SillyTavern world-info file; `format=card`: a card's character_book."""
    lorebook = lorebook_for_use(get_store(), user=request.auth, lorebook_id=lorebook_id)
    body = json.dumps(lorebook_services.lorebook_export(lorebook, fmt=format), ensure_ascii=False,
                      indent=2)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{lorebook_id}.{format}.json"'
    return response
