"""`POST /instances/import`: a chat file imported as a new chat with the character(s) named.
Registered before the instances router, whose `/instances/{instance_id}` would match it."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import File, Form, Router, Status
from ninja.files import UploadedFile

from chat.import_export.import_check import (
    characters_named,
    chat_import_check,
    name_choices,
    speakers_matched,
)
from chat.import_export.import_new import CHAT_IMPORT_MAX_BYTES, chat_import_new
from library.character_picker import character_choices
from personalab.lib.errors import Invalid, TooLarge
from personalab.lib.ids import validate_id
from personalab.storage import get_store

router = Router(tags=["instances"])


def _ids_checked(file: UploadedFile, character_id: str, character_ids: str, *,
                 required: bool = True) -> list[str]:
    if file.size > CHAT_IMPORT_MAX_BYTES:
        raise TooLarge("file is larger than 10 MB", fields={"file": "at most 10 MB"})
    ids = [c.strip() for c in (character_ids or character_id).split(",") if c.strip()]
    if not ids and required:
        raise Invalid("name the character this chat is with", field="character_id",
                      code="missing_field")
    for one in ids:
        validate_id(one, kind="character id")
    return ids


@router.post("/instances/import/check", response={200: dict[str, Any]},
             description="The same multipart fields as `POST /instances/import`, nothing made: "
                         "`warnings` names the file's characters that are not the ones named "
                         "(and then its player when not the account's persona; the page asks "
                         "about these before importing); `messages`, `speakers`, `players` count and "
                         "name the file's lines; `proposed`, one per speaker (`speaker`, "
                         "`character_id`, `name`): the account's own (or the site's) character "
                         "with that name, never another account's shared one, else one named "
                         "and not matched yet, else null. The characters are optional here "
                         "(none: no warnings, only `proposed`).")
def instance_import_check(request: HttpRequest, file: File[UploadedFile],
                          character_id: Form[str] = "", character_ids: Form[str] = ""):
    ids = _ids_checked(file, character_id, character_ids, required=False)
    store = get_store()
    imported, warnings = chat_import_check(
        store, user=request.auth,
        character_names=characters_named(store, user=request.auth, character_ids=ids),
        data=file.read())
    report = imported.report()
    characters = character_choices(user=request.auth, also=ids)
    names = {c.character_id: c.name for c in characters}
    choices = name_choices(characters, user=request.auth)
    proposed = [{"speaker": row["speaker"], "character_id": row["character_id"] or None,
                 "name": names.get(row["character_id"])}
                for row in speakers_matched(imported, choices=choices, picked=ids)]
    return {"warnings": warnings, "messages": report["messages"],
            "speakers": report["speakers"], "players": report["players"],
            "proposed": proposed}


@router.post("/instances/import", response={201: dict[str, Any]},
             description="Multipart `file` (a SillyTavern JSONL, Agnai or RisuAI chat JSON, at "
                         "most 10 MB) and `character_id` (or `character_ids`, comma-separated, "
                         "for a group; optional `background_id`): a new chat with those "
                         "characters holding the imported lines. `warnings` names speakers of "
                         "the file that are not the chat's characters (their lines are "
                         "imported all the same, as SillyTavern does; `POST /instances/import/check` "
                         "asks first).")
def instance_import(request: HttpRequest, file: File[UploadedFile],
                    character_id: Form[str] = "", character_ids: Form[str] = "",
                    background_id: Form[str] = ""):
    ids = _ids_checked(file, character_id, character_ids)
    if background_id:
        validate_id(background_id, kind="background id")
    instance_id, session_id, report = chat_import_new(
        request.auth, character_ids=ids, data=file.read(), background_id=background_id or None)
    return Status(201, {"instance_id": instance_id, "session_id": session_id,
                        "warnings": report.get("warnings") or [], "imported": report})
