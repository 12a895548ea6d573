"""The library page (GET /library/): the imports, then a page of each kind of item, found by
its search field (`q`, a GET: it works without the page's script) and paged by `page`,
`backgrounds_page` and `lorebooks_page` (library/library_listing.py)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.views.decorators.http import require_GET

from library import selectors
from library.background_picture import background_picture_file
from library.library_listing import Listed, library_listed, library_words
from library.library_tiles import character_tiles
from library.lore.global_books import global_lorebook_ids
from library.pages.trash import restore_offer
from library.personas.services import name_ask_context
from library.start_kept import start_choices_taken
from personalab.lib.errors import Invalid
from personalab.storage import get_store

LIBRARY_FIND_FROM = 6  # more items than this and the page offers a search box


@login_required
@require_GET
def library_index(request: HttpRequest) -> HttpResponse:
    user, store = request.user, get_store()
    find = request.GET.get("q", "")
    try:
        words, find_error = library_words(find), ""
    except Invalid as exc:
        words, find_error = [], exc.message
    characters = _listed(request, selectors.characters_visible_to(user=user), words,
                         ("name", "tags"), "page")
    backgrounds = _listed(request, selectors.backgrounds_visible_to(user=user), words,
                          ("name",), "backgrounds_page")
    lorebooks = _listed(request, selectors.lorebooks_visible_to(user=user), words,
                        ("name",), "lorebooks_page")
    listed = (characters, backgrounds, lorebooks)
    return render(request, "library/index.html", {
        "restorable": restore_offer(request, ("character", "background")),
        "findable": bool(words or find_error) or sum(k.total for k in listed) > LIBRARY_FIND_FROM,
        "find": find, "find_error": find_error,
        # every item is on the page: the script's filter as one types sees them all
        "whole": not words and all(k.pages == 1 for k in listed),
        "characters": characters,
        "character_tiles": character_tiles(store, characters=characters.rows),
        "backgrounds": backgrounds,
        "pictured": {b.background_id for b in backgrounds.rows
                     if background_picture_file(store, b.background_id) is not None},
        "lorebooks": lorebooks,
        "in_all_chats": set(global_lorebook_ids(store, username=user.get_username())),
        "start_kept": start_choices_taken(request),
        **name_ask_context(user=user)})


def _listed(request: HttpRequest, rows, words: list[str], fields: tuple[str, ...],
            param: str) -> Listed:
    listed = library_listed(rows, words=words, fields=fields, page=request.GET.get(param))
    listed.urls = {way: _page_url(request.GET, param, number)
                   for way, number in listed.pages_to.items()}
    return listed


def _page_url(query: QueryDict, param: str, number: int) -> str:
    """This page's address with `param` set to `number` (the other kinds' pages and the
    search kept)."""
    changed = query.copy()
    changed[param] = str(number)
    return f"?{changed.urlencode()}"
