"""The library as an author meets it: import at the top, characters as tiles with their picture
(or a letter), name, a line about them and Chat / Edit, a search box once the list is long, at
phone and laptop width, light and dark. (A plain picture imported as a card says how to make a
character of it: tests/pages/test_import_refusal_words.py, no browser needed.)"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from personalab.lib.letter_colours import letter_colour
from tests.e2e.conftest import (
    PHONE,
    SCHEMES,
    SIZES,
    Server,
    no_sideways_scroll,
    screenshot_take,
    wait_until,
)
from tests.e2e.page_api import api_call
from tests.png_files import text_chunk, tiny_png

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def _png_card(path: Path, name: str) -> Path:
    card = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": name, "description": "A keeper of the northern light.",
        "creator_notes": f"{name} keeps the lamp of Saltmere lit through every storm.",
        "personality": "", "scenario": "", "first_mes": "The lamp is lit.", "mes_example": "",
        "tags": ["sea"], "alternate_greetings": [], "extensions": {}}}
    path.write_bytes(tiny_png(text_chunk("chara", card)))
    return path


@SIZES
def test_the_library_is_tiles_with_pictures_under_the_imports_and_can_be_searched(
        page: Page, server: Server, tmp_path: Path, size: dict) -> None:
    page.set_viewport_size(size)
    tag = f"{size['width']}tiles"  # a word no other module's character has (a shared server)
    for index in range(6):  # enough for a long list
        api_call(page, server, "POST", "/characters", {"name": f"Crew {index} {tag}",
                                                   "base_persona": f"Sailor number {index}."})
    page.goto(f"{server.url}/library/")
    # The imports come first: the card box is above every tile.
    card_box = page.locator("form#card-drop").bounding_box()
    first_tile = page.get_by_test_id("character-tile").first.bounding_box()
    assert card_box["y"] < first_tile["y"]
    form = page.locator("form#card-drop")
    form.locator("input[type=file]").set_input_files(str(_png_card(tmp_path / "keeper.png",
                                                                   f"Keeper {tag}")))
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/library/characters/[^/]+/$"))
    keeper_id = page.url.rstrip("/").rsplit("/", 1)[-1]

    page.goto(f"{server.url}/library/")
    keeper = page.get_by_test_id("character-tile").filter(has_text=f"Keeper {tag}")
    picture = keeper.locator(".tile-picture img")
    assert picture.get_attribute("src") == f"/library/characters/{keeper_id}/avatar.png"
    picture.scroll_into_view_if_needed()  # loaded lazily
    wait_until(page, "img => img.complete && img.naturalWidth > 0",
                           arg=picture.element_handle())
    assert "keeps the lamp of Saltmere lit" in keeper.inner_text()
    crew = page.get_by_test_id("character-tile").filter(has_text=f"Crew 0 {tag}")
    assert crew.locator(".tile-letter").inner_text() == "C"
    assert "Sailor number 0." in crew.inner_text()
    for tile in page.get_by_test_id("character-tile").all():
        assert tile.get_by_test_id("tile-chat").is_visible()
        assert tile.get_by_test_id("tile-edit").is_visible()
    no_sideways_scroll(page)
    for scheme in ("light", "dark"):  # the colours follow the scheme live: one walk for both
        page.emulate_media(color_scheme=scheme)
        screenshot_take(page, f"70_library_{tag}{scheme}", full_page=False)

    # A long list is searched: one word keeps one tile (as one types while the page holds the
    # whole library; by the server, whose search is the form's, on Enter).
    for words in ("no such thing anywhere", f"keeper {tag}"):
        with page.expect_navigation():
            page.get_by_test_id("library-search").fill(words)
            page.get_by_test_id("library-search").press("Enter")
        assert page.get_by_test_id("library-no-match").is_visible() == (words != f"keeper {tag}")
    assert page.get_by_test_id("character-tile").filter(visible=True).count() == 1

    # Chat starts a conversation with that character.
    keeper.get_by_test_id("tile-chat").click()
    page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
    instance_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    assert server.instance_state(instance_id)["character_id"] == keeper_id
    assert page.js_errors == []



# The letters are aria-hidden (the name beside them is read), so axe skips them: the WCAG
# contrast of each letter against its fill is computed here as axe would.
CONTRAST = """(e) => {
  const rgb = (c) => c.match(/[0-9.]+/g).slice(0, 3).map(Number);
  const lum = (c) => { const [r, g, b] = rgb(c).map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const fg = lum(getComputedStyle(e.querySelector(".tile-letter")).color);
  const bg = lum(getComputedStyle(e).backgroundColor);
  return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
}"""


def test_letter_avatars_are_coloured_per_name_and_readable(page: Page, server: Server) -> None:
    """Every character without a picture had the same blue letter: each name now gets one of a
    few colours (the same on every page and reload), its letter readable (axe, ≥ 4.5:1)."""
    page.set_viewport_size(PHONE)
    names = {}
    for index in range(40):  # names until two different colours are found, one per colour
        name = f"Letter {index}"
        names.setdefault(letter_colour(name), name)
    for name in names.values():
        api_call(page, server, "POST", "/characters", {"name": name, "base_persona": "A sailor."})
    page.goto(f"{server.url}/library/")
    for scheme in SCHEMES:  # one load: the colours follow the scheme live
        page.emulate_media(color_scheme=scheme)
        fills = {}
        for colour, name in names.items():
            letter = page.get_by_test_id("character-tile").filter(has_text=name).locator(
                ".tile-picture")
            assert f"letter-c{colour}" in letter.get_attribute("class")
            fills[colour] = letter.evaluate("e => getComputedStyle(e).backgroundColor")
            assert letter.evaluate(CONTRAST) >= 4.5, (scheme, name, fills[colour])
        assert len(set(fills.values())) == len(names) >= 6, (scheme, fills)
        screenshot_take(page, f"70_library_letters_{scheme}", full_page=False)
