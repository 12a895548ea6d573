"""SillyTavern's settings.json world-info part imported from the library page: its settings
(staff only: they are the whole site's), and its global books for the account that imports it
(library/lore/global_books.py). What was applied, left as it is here, or not known is said in
the reader's language (library/lore/st_settings.py; docs/decisions/st-world-info-settings.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_POST

from library.character_books import character_books_from_settings
from library.errors import LibraryError
from library.lore.global_books import global_lorebooks_from_settings
from library.lore.st_settings import (
    GLOBAL_NAMES_MAX,
    MAX_FILE_BYTES,
    reason_said,
    world_info_settings_import,
)
from library.refusal_words import refusal_words
from personalab.storage import get_store

FILE_REFUSALS = {"at most 10 MB": gettext_noop("the file is larger than 10 MB"),
                 "not JSON": gettext_noop("the file is not JSON"),
                 "no world-info settings in it": gettext_noop(
                     "it is not a SillyTavern settings.json: it has no world-info settings"),
                 "no global books selected in it": gettext_noop(
                     "it selects no global world-info books"),
                 f"at most {GLOBAL_NAMES_MAX} books": gettext_noop(
                     "it selects more than 1000 global world-info books")}


@login_required
@require_POST
def world_info_settings_upload(request: HttpRequest) -> HttpResponse:
    if not request.user.is_staff:
        messages.error(request, gettext("Only staff accounts may change the site's world-info "
                                        "settings."))
        return redirect("library")
    upload, result = _settings_read(request, lambda data: world_info_settings_import(
        get_store(), data=data))
    if result is None:
        return redirect("library")
    if result.applied:
        applied = ", ".join(f"{key} = {json.dumps(value)}" for key, value in result.applied.items())
        messages.info(request, gettext("World-info settings imported from %(name)s: "
                                       "%(settings)s.") % {"name": upload.name,
                                                           "settings": applied})
    else:
        messages.info(request, gettext("%(name)s sets none of the world-info settings kept "
                                       "here; nothing changed.") % {"name": upload.name})
    for row in result.not_applied:
        messages.warning(request, gettext("Not applied: %(key)s = %(value)s; %(reason)s.") % {
            "key": row["key"], "value": json.dumps(row["value"], ensure_ascii=False),
            "reason": reason_said(row["key"], gettext)})
    for text, values in result.notes:
        messages.warning(request, gettext(text) % values)
    if result.unknown:
        messages.warning(request, gettext("Not known here, left out: %(keys)s.") % {
            "keys": ", ".join(result.unknown)})
    return redirect("library")


MISSING_SHOWN = 20  # names the page lists of a selection its library lacks


@login_required
@require_POST
def world_info_global_upload(request: HttpRequest) -> HttpResponse:
    """The books a settings.json selects for every chat, added to the account's books in all
    its chats; the names not in its library are said, to import first."""
    _upload, result = _settings_read(request, lambda data: global_lorebooks_from_settings(
        get_store(), user=request.user, data=data))
    if result is None:
        return redirect("library")
    if result["chosen"]:
        messages.info(request, gettext("Read in all your chats now: %(books)s.") % {
            "books": ", ".join(book["name"] for book in result["chosen"])})
    if missing := result["missing"]:
        names = _cut(missing)
        messages.warning(request, gettext("Not in your library, so not chosen: %(names)s. "
                                          "Import these books, then this file again.") % {
            "names": names})
    return redirect("library")


@login_required
@require_POST
def world_info_character_books_upload(request: HttpRequest) -> HttpResponse:
    """The extra books a settings.json links to characters (charLore), linked to the
    account's characters as `POST /api/v1/world_info/character_books/import` links them;
    what was linked, not found or refused is said."""
    _upload, result = _settings_read(request, lambda data: character_books_from_settings(
        get_store(), user=request.user, data=data))
    if result is None:
        return redirect("library")
    if result["linked"]:
        messages.info(request, gettext("Extra lorebooks linked to: %(names)s.") % {
            "names": _cut([item["name"] for item in result["linked"]])})
    elif not (result["missing_characters"] or result["refused"]):
        messages.info(request, gettext("This settings.json gives no character extra "
                                       "lorebooks; nothing changed."))
    if missing := result["missing_characters"]:
        messages.warning(request, gettext("No character of yours matches these SillyTavern "
                                          "files: %(files)s. Import those characters, then "
                                          "this file again.") % {"files": _cut(missing)})
    if missing := result["missing_books"]:
        messages.warning(request, gettext("Not in your library, so not linked: %(names)s. "
                                          "Import these books, then this file again.") % {
            "names": _cut(missing)})
    refused = result["refused"]
    for number, item in enumerate(refused[:MISSING_SHOWN], start=1):
        # One line each up to MISSING_SHOWN: 1,000 refused files drew 1,000 (a 500 KB page).
        more = (" " + gettext("and %(count)s more") % {"count": len(refused) - MISSING_SHOWN}
                if number == MISSING_SHOWN and len(refused) > MISSING_SHOWN else "")
        messages.warning(request, f"{item['file']}: {item['reason']}{more}")
    return redirect("library")


def _cut(names: list[str]) -> str:
    shown = ", ".join(names[:MISSING_SHOWN])
    if len(names) > MISSING_SHOWN:
        shown += " " + gettext("and %(count)s more") % {"count": len(names) - MISSING_SHOWN}
    return shown


def _settings_read(request: HttpRequest, importer: Callable[[bytes], Any]
                   ) -> tuple[UploadedFile | None, Any]:
    """The posted settings.json handed to `importer`: its answer, or None with the reason
    said on the page (no file chosen, or the file refused: nothing changed)."""
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, gettext("Choose SillyTavern's settings.json first."))
        return None, None
    try:
        return upload, importer(upload.read(MAX_FILE_BYTES + 1))
    except LibraryError as exc:
        messages.error(request, gettext("Could not import %(name)s, nothing changed: "
                                        "%(error)s") % {"name": upload.name,
                                                        "error": _refusal_said(exc)})
        return upload, None


def _refusal_said(exc: LibraryError) -> str:
    fields = exc.fields or {}
    if set(fields) == {"file"} and fields["file"] in FILE_REFUSALS:
        return gettext(FILE_REFUSALS[fields["file"]])
    if fields and "file" not in fields:
        return "; ".join(f"{key} {gettext(text)}" for key, text in fields.items())
    return refusal_words(str(exc))
