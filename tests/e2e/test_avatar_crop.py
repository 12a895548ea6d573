"""A picture picked in the character editor is cropped to the card's 2:3 in the browser before
it is uploaded (on a phone: the crop is the same canvas arithmetic at any width; the editor with
a preview at laptop width is tests/e2e/test_crop_zoom.py's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.e2e.conftest import PHONE, Server, no_sideways_scroll, screenshot_take
from tests.e2e.page_api import api_call
from tests.png_files import png_bytes, png_size

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def test_a_wide_picture_is_cropped_to_the_cards_ratio(page: Page, server: Server,
                                                      tmp_path: Path) -> None:
    page.set_viewport_size(PHONE)
    picture = tmp_path / "wide.png"
    picture.write_bytes(png_bytes(300, 200))
    # A character of its own: the demo's is shared by the modules on the shared server.
    character_id = api_call(page, server, "POST", "/characters", {
        "character_id": "char_crop390", "name": "Crop Test",
        "base_persona": "Sits for a portrait."})["character_id"]
    page.goto(f"{server.url}/library/characters/{character_id}/")
    page.set_input_files("input[name=avatar]", str(picture))
    page.locator("[data-role=avatar-preview]:visible").wait_for()
    no_sideways_scroll(page)
    screenshot_take(page, "62_avatar_crop_390", full_page=False)
    with page.expect_navigation():
        page.click("#character-form button[type=submit]")
    stored = (server.data / "characters" / character_id / "avatar.png").read_bytes()
    width, height = png_size(stored)
    assert (width, height) == (133, 200)
    assert page.locator("img[data-role=avatar-now]").count() == 1
    assert page.js_errors == []


def test_a_refused_save_shows_why_where_the_author_is(page: Page, server: Server,
                                                      tmp_path: Path) -> None:
    """Save sits at the editor's foot and the page came back there (the author's place), while
    the refusal ("avatar must be a PNG, JPEG, GIF or WebP image") was at its top, out of sight:
    nothing seemed to happen."""
    page.set_viewport_size({"width": 1280, "height": 800})
    not_a_picture = tmp_path / "notes.png"
    not_a_picture.write_bytes(b"just some text")
    page.goto(f"{server.url}/library/characters/new")
    page.fill("input[name=name]", "Refused Picture")
    page.set_input_files("input[name=avatar]", str(not_a_picture))
    page.locator("#character-form button[type=submit]").scroll_into_view_if_needed()
    with page.expect_navigation():
        page.click("#character-form button[type=submit]")
    page.wait_for_load_state("load")
    refusal = page.locator("main .error")
    assert "PNG, JPEG, GIF or WebP" in refusal.inner_text()
    assert refusal.is_visible() and refusal.evaluate(
        "e => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }")
