"""The library page lists a page of each kind at a time, by name, with a search that works
without the page's script (a GET field): bob's 5,000 shared characters do not make alice's
library load 5,000 tiles (library/library_listing.py)."""

from __future__ import annotations

import re

import pytest

from library import library_listing
from library.character_services import character_save
from library.lore import services as lorebook_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def page_of_three(monkeypatch):
    monkeypatch.setattr(library_listing, "LIBRARY_PAGE", 3)


@pytest.fixture
def bobs(store, bob) -> list[str]:
    return [character_save(store, user=bob, character_id=None, data={
        "name": f"Troll {n}", "base_persona": "Big.", "greeting": "", "tags": "cave",
        "visibility": "shared"}) for n in range(7)]


def _tiles(page: str) -> list[str]:
    return re.findall(r'name="character_id" value="([^"]+)" data-testid="tile-chat"', page)


def test_the_library_lists_a_page_of_characters_and_pages_on_without_a_script(
        alice_client, store, alice, character, bobs, page_of_three):
    first = alice_client.get("/library/").content.decode()
    assert _tiles(first) == [character, *bobs[:2]]  # by name: Alserqi, Troll 0, Troll 1
    assert '<small class="muted" data-testid="characters-total">8</small>' in first
    assert "page 1 of 3" in first and "pager-previous" not in first
    link = re.search(r'href="([^"]+)" rel="next"', first).group(1)
    second = alice_client.get(f"/library/{link.replace('&amp;', '&')}").content.decode()
    assert _tiles(second) == bobs[2:5] and "page 2 of 3" in second
    assert _tiles(alice_client.get("/library/", {"page": "99"}).content.decode()) == bobs[5:]
    assert _tiles(alice_client.get("/library/", {"page": "x"}).content.decode()) == _tiles(first)
    # the script filters as one types only when the page holds everything
    assert "data-library-whole" not in first


def test_the_search_finds_a_character_on_any_page_and_keeps_it_in_the_page_links(
        alice_client, store, alice, character, bobs, page_of_three):
    found = alice_client.get("/library/", {"q": "troll 6"}).content.decode()
    assert _tiles(found) == [bobs[6]] and 'value="troll 6"' in found
    # what was found shows first, not under the imports (a phone's whole first screens)
    assert re.search(r'<form method="get" action="#characters-title"[^>]*role="search"', found)
    cave = alice_client.get("/library/", {"q": "CAVE"}).content.decode()  # a tag, any case
    assert _tiles(cave) == bobs[:3]
    assert re.search(r'href="\?q=CAVE&amp;page=2#characters-title" rel="next"', cave)
    none = alice_client.get("/library/", {"q": "%"}).content.decode()  # typed is text
    assert _tiles(none) == [] and "Nothing in the library matches." in none
    refused = alice_client.get("/library/", {"q": "a" * 500})
    assert refused.status_code == 200
    assert 'data-testid="library-find-error"' in refused.content.decode()


def test_backgrounds_and_lorebooks_page_on_their_own(alice_client, store, alice, page_of_three):
    for n in range(4):
        lorebook_services.lorebook_save(store, user=alice, lorebook_id=None, data={
            "name": f"Book {n}", "entries": []})
    page = alice_client.get("/library/", {"lorebooks_page": "2"}).content.decode()
    assert re.findall(r'<bdi>(Book \d)</bdi>', page) == ["Book 3"]
    assert 'data-testid="lorebooks-pager"' in page and "characters-pager" not in page


@pytest.mark.parametrize("text", ["\0", "troll\0"])
def test_a_nul_in_the_library_search_is_refused_as_the_pickers_refuse_it(
        alice_client, store, alice, character, bobs, text):
    # SQLite's LIKE stopped at the NUL, so "\0" listed everything (PostgreSQL answers such a
    # query with an error: a 500); the pickers' search refused it already.
    page = alice_client.get("/library/", {"q": text})
    assert page.status_code == 200
    body = page.content.decode()
    assert 'data-testid="library-find-error"' in body and "NUL" in body
