"""A picture picked in the background editor is cropped to 16:9 in the browser (as a JPEG),
uploaded, and shown faded behind the chat that plays the background, at phone and laptop
width."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.e2e.conftest import SIZES, Server, no_sideways_scroll, screenshot_take
from tests.e2e.page_api import api_call
from tests.png_files import png_bytes

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def _jpeg_size(data: bytes) -> tuple[int, int]:
    """Width and height from a JPEG's first start-of-frame marker."""
    at = 2
    while at < len(data):
        marker, length = data[at + 1], int.from_bytes(data[at + 2:at + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            return (int.from_bytes(data[at + 7:at + 9], "big"),
                    int.from_bytes(data[at + 5:at + 7], "big"))
        at += 2 + length
    raise AssertionError("no frame in the JPEG")


@SIZES
def test_a_background_picture_is_cropped_to_16_9_and_shown_behind_the_chat(
        page: Page, server: Server, tmp_path: Path, size: dict) -> None:
    page.set_viewport_size(size)
    picture = tmp_path / "tall.png"
    picture.write_bytes(png_bytes(160, 300))
    # A background of its own: the demo's is shared by the modules on the shared server.
    background_id = api_call(page, server, "POST", "/backgrounds", {
        "background_id": f"bg_picture{size['width']}", "name": "Picture Test",
        "world_setting": "A quiet coast."})["background_id"]
    page.goto(f"{server.url}/library/backgrounds/{background_id}/")
    page.set_input_files("input[name=picture]", str(picture))
    page.locator("[data-role=avatar-preview]:visible").wait_for()
    no_sideways_scroll(page)
    screenshot_take(page, f"background_picture_crop_{size['width']}", full_page=False)
    with page.expect_navigation():
        page.click("#background-form button[type=submit]")
    stored = (server.data / "backgrounds" / background_id / "avatar.jpg").read_bytes()
    assert _jpeg_size(stored) == (160, 90)
    assert page.locator("img[data-role=avatar-now]").count() == 1
    chat = api_call(page, server, "POST", "/instances", {"character_id": "char_alserqi",
                                                     "background_id": background_id})
    page.goto(f"{server.url}/instances/{chat['instance_id']}/")
    backdrop = page.locator("[data-testid=chat-backdrop]")
    assert backdrop.get_attribute("src") == f"/library/backgrounds/{background_id}/picture"
    assert page.evaluate("() => document.querySelector('[data-testid=chat-backdrop]').naturalWidth") == 160
    # Behind the words: a tap on the input still lands on the input.
    box = page.locator("[data-testid=input]").bounding_box()
    assert page.evaluate("([x, y]) => document.elementFromPoint(x, y).dataset.testid",
                         [box["x"] + 5, box["y"] + 5]) == "input"
    screenshot_take(page, f"background_picture_chat_{size['width']}", full_page=False)
    assert page.js_errors == []
