"""The lorebook editor page: a book's entries as a form (one key per line, each optional
setting empty for "the book's default"), laid back over the stored book so that fields the form
does not show are kept; a refused save shows what was typed beside the field it names; and the
"test" box that shows which entries a text fires."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_http_methods, require_POST

from library.errors import LibraryError, LibraryNotFound
from library.field_words import fields_words
from library.lore.activation import setting
from library.lore.global_books import global_lorebook_choose, global_lorebook_ids
from library.lore.lorebook import POSITIONS, ROLES, SELECTIVE_LOGICS, lorebook_match
from library.lore.percent import is_percent, percent_parsed
from library.lore.regex_keys import regex_key_problems
from library.lore.services import lorebook_save, lorebook_tags_name, lorebook_version
from library.lore.st_settings import MAX_FILE_BYTES
from library.lore.st_tag_list import (
    KeptTagsDamaged,
    st_tags_forget,
    st_tags_kept,
    st_tags_kept_read,
)
from library.lore.st_tags import (
    MAX_TAGS,
    filter_tag_ids_unnamed,
    kept_names_said,
    st_tag_names,
    unnamed_tags_said,
)
from library.lore.text_test_words import lore_test_worded
from library.pages.editor_refusals import book_refusal
from library.pages.item_access import item_for_use_or_404, ownership_shown
from library.refusal_words import refusal_words
from library.selectors import item_for_edit
from personalab.lib.config_schema import count_coerced, digits_int
from personalab.lib.errors import LimitReached, error_read
from personalab.lib.filestore.store import FileStore
from personalab.lib.tokens import count_tokens
from personalab.storage import get_store


def _form_lines(value: str) -> list[str]:
    # One key per line, so commas and regex braces (`/ha{2,}/i`) survive an edit.
    return [line.strip() for line in value.splitlines() if line.strip()]


def _form_keys(value: str, stored: Any) -> list[str]:
    """The keys typed; keys left as the box showed them stay as stored (a key of spaces alone,
    an empty one, " sword" with its space), as SillyTavern's editor keeps an entry's keys
    until they are edited: a save of another field changed what fires."""
    typed = _form_lines(value)
    if isinstance(stored, list) and all(isinstance(key, str) for key in stored) \
            and typed == _form_lines("\n".join(stored)):
        return list(stored)
    return typed


def _form_optional(entry: dict, name: str, raw: str | None, parse) -> None:
    """An optional setting: empty means "the book's default" and adds no key the entry did
    not have; a value replaces the old one only when it means something else."""
    raw = (raw or "").strip()
    if not raw:
        if entry.get(name) is not None:
            entry[name] = None
        return
    value = parse(raw)
    if entry.get(name) != value:
        entry[name] = value


def _tristate(raw: str) -> bool | str:
    return {"true": True, "false": False}.get(raw, raw)


def _number_or_text(raw: str) -> int | str:
    return raw if (number := digits_int(raw)) is None else number  # not isdigit(): "²"


def _entry_from_form(form, prefix: str, uid: int, existing: dict | None = None) -> dict:
    """The entry as edited, laid over the stored one: fields the form does not show
    (extensions, card fields, unknown keys) are kept as they were."""
    entry = copy.deepcopy(existing or {})
    entry.update({
        "uid": uid, "keys": _form_keys(form.get(f"{prefix}keys", ""), entry.get("keys")),
        "secondary_keys": _form_keys(form.get(f"{prefix}secondary_keys", ""),
                                     entry.get("secondary_keys")),
        "selective_logic": form.get(f"{prefix}selective_logic", "and_any"),
        "use_regex": f"{prefix}use_regex" in form, "content": form.get(f"{prefix}content", ""),
        "enabled": f"{prefix}enabled" in form, "constant": f"{prefix}constant" in form,
        "priority": _number_or_text(form.get(f"{prefix}priority", "100") or "100"),
        "position": form.get(f"{prefix}position", "before_char"),
        "depth": _number_or_text(form.get(f"{prefix}depth", "4") or "4"),
        "role": form.get(f"{prefix}role", entry.get("role", "system")),
        "comment": form.get(f"{prefix}comment", ""),
    })
    for name, parse in ENTRY_OPTIONAL.items():
        raw = form.get(f"{prefix}{name}")
        # The box shows the value wherever the entry keeps it (an imported one: its card
        # extensions); only a changed value is written, so an unchanged save changes nothing.
        if raw is not None and _optional_parsed(raw, parse) != _entry_setting(entry, name):
            _form_optional(entry, name, raw, parse)
    return entry


ENTRY_OPTIONAL = {"case_sensitive": _tristate, "match_whole_words": _tristate,
                  "probability": percent_parsed, "scan_depth": _number_or_text,
                  "sticky": _number_or_text, "cooldown": _number_or_text,
                  "delay": _number_or_text, "group": str, "outlet_name": str}
ST_NAMES = {"scan_depth": "scanDepth", "outlet_name": "outletName"}


def _optional_parsed(raw: str, parse: Callable[[str], Any]) -> Any:
    return parse(raw.strip()) if raw.strip() else None


def _entry_setting(entry: dict, name: str, *, typed: bool = False) -> Any:
    """The value where the entry keeps it, when its box can show it and send it back as it is
    (an odd one, such as `inf` or `true` for a number, shows as empty and stays untouched);
    `typed`: a refused save shows what the author typed, to be corrected."""
    value = setting(entry, name, name, None, ST_NAMES.get(name))
    parse = ENTRY_OPTIONAL[name]
    if typed and isinstance(value, str):
        return value
    if parse is _tristate:
        return value if isinstance(value, bool) else None
    if parse is _number_or_text:
        return value if type(value) is int else None
    if parse is percent_parsed:  # a fraction too, as SillyTavern keeps it
        return value if is_percent(value) else None
    return (value.strip() or None) if isinstance(value, str) else None


def _entry_shown(entry: dict, *, typed: bool = False) -> dict:
    """The entry as the editor shows it: each optional setting where the entry keeps it."""
    return {**entry, **{name: _entry_setting(entry, name, typed=typed)
                        for name in ENTRY_OPTIONAL},
            "tag_ids_unnamed": filter_tag_ids_unnamed(entry)}


ENTRY_FIELDS_ON_TOP = {"keys", "content", "position", "priority", "comment", "enabled",
                       "constant", "use_regex"}


def _entry_errors(field_errors: dict[str, str], index: int, uid: Any) -> dict[str, Any]:
    """The sentences of a refused save that belong beside entry `index`'s fields, keyed by the
    form field they name (its "More" fold opens when one is in it)."""
    prefix = f"entries[{index}]."
    names = {name.removeprefix(prefix): text for name, text in field_errors.items()
             if name.startswith(prefix)}
    return {"field_errors": {f"e{uid}_{name}": text for name, text in names.items()},
            "more_errors": bool(set(names) - ENTRY_FIELDS_ON_TOP)}


def _lorebook_from_form(form, lorebook: dict) -> dict:
    stored = {entry.get("uid"): entry for entry in lorebook.get("entries", [])}
    uids = [uid for uid in map(count_coerced, form.getlist("uid")) if uid is not None]
    entries = [_entry_from_form(form, f"e{uid}_", uid, stored.get(uid)) for uid in uids
               if f"e{uid}_delete" not in form]
    if form.get("new_keys") or form.get("new_content"):
        taken = [*uids, *(u for u in stored if isinstance(u, int)), -1]
        entries.append(_entry_from_form(form, "new_", max(taken) + 1))
    budget = form.get("token_budget", "").strip()
    depth = form.get("scan_depth", "").strip()
    book = {**lorebook, "name": form.get("name", ""),
            "scan_depth": _number_or_text(depth) if depth else None,
            "token_budget": _number_or_text(budget) if budget else None, "entries": entries}
    for name in ("min_activations", "min_activations_depth_max"):
        _form_optional(book, name, form.get(name), _number_or_text)
    _form_optional(book, "use_group_scoring", form.get("use_group_scoring"), _tristate)
    return book


@login_required
@require_http_methods(["GET", "POST"])
def lorebook_edit(request: HttpRequest, lorebook_id: str | None = None) -> HttpResponse:
    store = get_store()
    lorebook = item_for_use_or_404(request, "lorebook", lorebook_id) if lorebook_id else {
        "name": "", "scan_depth": None, "token_budget": None, "entries": []}
    error, status, field_errors = None, 200, {}
    seen = lorebook_version(lorebook)
    if request.method == "POST":
        data = {**_lorebook_from_form(request.POST, lorebook),
                "visibility": request.POST.get("visibility") or lorebook.get("visibility")}
        try:
            saved_id = lorebook_save(store, data=data, lorebook_id=lorebook_id,
                                     user=request.user, seen=request.POST.get("seen"))
            messages.info(request, gettext("Lorebook saved."))
            return redirect("lorebook_edit", lorebook_id=saved_id)
        except LibraryNotFound:
            raise Http404("not found") from None
        except (LibraryError, LimitReached) as exc:
            error, lorebook = book_refusal(exc), data
            status, field_errors = exc.status, fields_words(exc.fields or {})
    entries = [e for e in lorebook.get("entries", []) if isinstance(e, dict)]
    shown = {**lorebook, "entries": [
        {**_entry_shown(e, typed=bool(error)), **_entry_errors(field_errors, index, e.get("uid"))}
        for index, e in enumerate(entries)]}
    tag_ids_unnamed = any(e["tag_ids_unnamed"] for e in shown["entries"])
    kept_tags = _kept_tags_shown(store, username=request.user.get_username())
    return render(request, "library/lorebook_form.html",
                  {"lorebook": shown, "lorebook_id": lorebook_id, "error": error, "seen": seen,
                   "book_errors": {name: text for name, text in field_errors.items()
                                   if not name.startswith("entries")},
                   "refused": [e for e in shown["entries"] if e["field_errors"]],
                   "ownership": ownership_shown(request, lorebook, "lorebook", lorebook_id),
                   "in_all_chats": lorebook_id in global_lorebook_ids(
                       store, username=request.user.get_username()),
                   "tag_ids_unnamed": tag_ids_unnamed, "kept_tags": kept_tags,
                   "st_tags_kept": kept_tags.get("count", 0),
                   "positions": POSITIONS, "roles": ROLES, "logics": SELECTIVE_LOGICS},
                  status=status)


KEPT_LISTED = 500  # the page's list; the REST answer has them all


def _kept_tags_shown(store: FileStore, *, username: str) -> dict[str, Any]:
    """The account's kept tag names as the page shows them ({}: none kept, no section)."""
    try:
        kept = st_tags_kept_read(store, username=username)
    except KeptTagsDamaged as exc:
        return {"error": error_read(exc)}
    if not kept:
        return {}
    return {"count": len(kept), "max": MAX_TAGS, "listed": list(kept.items())[:KEPT_LISTED],
            "more": max(len(kept) - KEPT_LISTED, 0)}


@login_required
@require_POST
def lorebook_test(request: HttpRequest, lorebook_id: str) -> HttpResponse:
    lorebook = item_for_use_or_404(request, "lorebook", lorebook_id)
    text = request.POST.get("text", "")
    match = lorebook_match([lorebook], messages=[text], count_tokens=count_tokens)
    return render(request, "library/_lore_test.html",
                  {"fired": lore_test_worded(match.fired, book=lorebook),
                   "dropped": lore_test_worded(match.dropped, book=lorebook),
                   "problems": match.problems, "text": text,
                   "key_problems": regex_key_problems(lorebook)})


@login_required
@require_POST
def lorebook_tag_names(request: HttpRequest, lorebook_id: str) -> HttpResponse:
    """The SillyTavern tag ids of the book's character filters named from the settings.json
    given, then from the names the account kept (without a file, those alone;
    library/lore/st_tags.py, library/lore/st_tag_list.py)."""
    item_for_use_or_404(request, "lorebook", lorebook_id)
    try:  # before the file is read: another account's shared book was "Could not read" it
        item_for_edit(get_store(), user=request.user, kind="lorebook", item_id=lorebook_id)
    except LibraryError as exc:
        messages.error(request, refusal_words(str(exc)))
        return redirect("lorebook_edit", lorebook_id=lorebook_id)
    settings = request.FILES.get("settings")
    if settings is None and not st_tags_kept(get_store(), username=request.user.get_username()):
        messages.error(request, gettext("Choose your SillyTavern settings.json first."))
        return redirect("lorebook_edit", lorebook_id=lorebook_id)
    try:
        naming = lorebook_tags_name(
            get_store(), actor=request.user, lorebook_id=lorebook_id,
            tag_names=None if settings is None else st_tag_names(settings.read(MAX_FILE_BYTES + 1)))
    except LibraryError as exc:
        messages.error(request, refusal_words(str(exc)) if settings is None else gettext(
            "Could not read %(name)s: %(error)s") % {
                "name": settings.name, "error": refusal_words(str(exc))})
        return redirect("lorebook_edit", lorebook_id=lorebook_id)
    for sentence in kept_names_said(naming.from_kept):
        messages.info(request, sentence)
    for sentence in unnamed_tags_said(naming.unnamed, settings_given=settings is not None):
        messages.warning(request, sentence)
    if not naming.unnamed:
        messages.info(request, gettext("Every SillyTavern tag id of this book's character "
                                       "filters has its name now."))
    return redirect("lorebook_edit", lorebook_id=lorebook_id)


@login_required
@require_POST
def lorebook_tag_names_forget(request: HttpRequest, lorebook_id: str) -> HttpResponse:
    """The account's kept SillyTavern tag names forgotten, or one of them (`tag_id`;
    library/lore/st_tag_list.py); back to the book it was asked from, whose names stay beside
    its ids."""
    item_for_use_or_404(request, "lorebook", lorebook_id)
    tag_id = request.POST.get("tag_id")
    if tag_id:
        try:
            st_tags_forget(get_store(), username=request.user.get_username(), tag_id=tag_id)
        except LibraryError as exc:
            messages.error(request, refusal_words(str(exc)))
        else:
            messages.info(request, gettext(
                "Forgot the SillyTavern tag name of %(id)s; your books keep the names written "
                "beside their ids.") % {"id": tag_id})
        return redirect("lorebook_edit", lorebook_id=lorebook_id)
    forgotten = st_tags_forget(get_store(), username=request.user.get_username())
    messages.info(request, ngettext(
        "Forgot %(count)s SillyTavern tag name; your books keep the names written beside their "
        "ids.", "Forgot %(count)s SillyTavern tag names; your books keep the names written "
        "beside their ids.", forgotten) % {"count": forgotten})
    return redirect("lorebook_edit", lorebook_id=lorebook_id)


@login_required
@require_POST
def lorebook_global(request: HttpRequest, lorebook_id: str) -> HttpResponse:
    """The book added to or taken from the account's books in all its chats
    (library/lore/global_books.py)."""
    item_for_use_or_404(request, "lorebook", lorebook_id)
    chosen = request.POST.get("chosen") == "1"
    global_lorebook_choose(get_store(), user=request.user, lorebook_id=lorebook_id,
                           chosen=chosen)
    messages.info(request, gettext("Every chat you own now reads this book.") if chosen
                  else gettext("Your chats read this book only where it is linked."))
    return redirect("lorebook_edit", lorebook_id=lorebook_id)

