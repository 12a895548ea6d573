"""Zoom in the picture crop (issue 33): a labelled zoom slider, the mouse wheel on a laptop and a
pinch on a phone zoom into the picture, the move sliders and dragging place the zoomed crop on
both axes, and the picture saved is exactly the crop shown (its pixels are read back)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.e2e.axe_audit import AXE
from tests.e2e.axe_audit import RUN as AXE_RUN
from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    browser_missing_reason,
    context_new,
    login_ensure,
    no_sideways_scroll,
    screenshot_take,
    wait_until,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

# A 300×450 picture (the card's 2:3) in a 3×3 grid of 100×150 blocks: at 300 % zoom the crop is
# one block. Top-left red, centre green, bottom-right blue, the others grey.
RED, GREEN, BLUE, GREY = (255, 0, 0), (0, 255, 0), (0, 0, 255), (128, 128, 128)
GRID = [[RED, GREY, GREY], [GREY, GREEN, GREY], [GREY, GREY, BLUE]]
# The colours of a canvas or picture at its corners and centre.
SAMPLED = """async (source) => {
  const image = source instanceof HTMLCanvasElement ? source
    : await createImageBitmap(await (await fetch(source)).blob());
  const canvas = document.createElement('canvas');
  canvas.width = image.width; canvas.height = image.height;
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const at = (x, y) => [...context.getImageData(x, y, 1, 1).data.slice(0, 3)];
  const w = image.width - 1, h = image.height - 1;
  return {size: [image.width, image.height],
          colours: [at(0, 0), at(w, 0), at(0, h), at(w, h), at(w >> 1, h >> 1)]};
}"""


def _grid_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    rows = b"".join(b"\x00" + b"".join(bytes(GRID[y // 150][x // 100]) for x in range(300))
                    for y in range(450))
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", 300, 450, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _preview(page: Page) -> dict:
    return page.locator("[data-role=avatar-preview]").evaluate(SAMPLED)


def _zoom_value(page: Page) -> int:
    return int(page.locator("[data-role=crop-zoom]").input_value())


def _pinch_out(page: Page) -> None:
    """Two fingers on the preview moving apart (Chromium's touch input, as a phone sends it)."""
    box = page.locator("[data-role=avatar-preview]").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = page.context.new_cdp_session(page)
    for step in range(6):
        spread = 10 + step * 8
        cdp.send("Input.dispatchTouchEvent", {
            "type": "touchStart" if step == 0 else "touchMove",
            "touchPoints": [{"x": x - spread, "y": y, "id": 1}, {"x": x + spread, "y": y, "id": 2}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def _drag(page: Page, touch: bool) -> None:
    """One finger (or the mouse) from the preview's centre far right and down: the crop goes to
    the picture's top-left corner."""
    box = page.locator("[data-role=avatar-preview]").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    if not touch:
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + box["width"] * 3, y + box["height"] * 3, steps=5)
        page.mouse.up()
        return
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 6):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
            {"x": x + step * box["width"] * 0.6, "y": y + step * box["height"] * 0.6}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


@pytest.mark.parametrize("size,touch", [(PHONE, True), (DESKTOP, False)],
                         ids=["phone-touch", "desktop-mouse"])
def test_a_zoomed_and_moved_crop_is_the_picture_saved(server: Server, tmp_path: Path,
                                                      size: dict, touch: bool) -> None:
    context = context_new(server, viewport=size, is_mobile=touch, has_touch=touch)
    try:
        login_ensure(server, context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.add_init_script(path=str(AXE))
        picture = tmp_path / "grid.png"
        picture.write_bytes(_grid_png())
        page.goto(f"{server.url}/library/characters/new")
        page.fill("input[name=name]", f"Zoom {size['width']}")
        page.set_input_files("input[name=avatar]", str(picture))
        page.locator("[data-role=avatar-preview]:visible").wait_for()
        zoom = page.locator("[data-role=crop-zoom]")
        assert zoom.is_visible() and _zoom_value(page) == 100
        assert page.get_by_label("Zoom in").count() == 1  # the slider is named by its label
        assert not page.locator("[data-role=crop-across]").is_visible()

        # the wheel (laptop) or a pinch (phone) zooms in
        if touch:
            _pinch_out(page)
        else:
            preview = page.locator("[data-role=avatar-preview]").bounding_box()
            page.mouse.move(preview["x"] + preview["width"] / 2, preview["y"] + preview["height"] / 2)
            page.mouse.wheel(0, -300)
        wait_until(page, "() => Number(document.querySelector('[data-role=crop-zoom]').value) > 120")

        # by keyboard: back to 100 %, then 300 %: one block, placed at the bottom-right
        zoom.focus()
        page.keyboard.press("Home")
        for _ in range(40):
            page.keyboard.press("ArrowRight")
        assert _zoom_value(page) == 300
        for role in ("crop-move", "crop-across"):
            page.locator(f"[data-role={role}]").focus()
            page.keyboard.press("End")
        shown = _preview(page)
        assert shown["colours"] == [list(BLUE)] * 5, shown
        assert page.evaluate(AXE_RUN) == []
        no_sideways_scroll(page)
        screenshot_take(page, f"crop_zoom_{size['width']}", full_page=False)

        # dragging the preview takes the zoomed crop to the top-left block, on both axes
        _drag(page, touch)
        wait_until(page, "() => document.querySelector('[data-role=crop-move]').value === '0'"
                   " && document.querySelector('[data-role=crop-across]').value === '0'")
        assert _preview(page)["colours"] == [list(RED)] * 5
        if not touch:  # a last touch of the wheel, still inside the red block
            page.locator("[data-role=avatar-preview]").hover()
            page.mouse.wheel(0, -10)
            wait_until(page, "() => document.querySelector('[data-role=crop-zoom]').value !== '300'")
        shown = _preview(page)
        # saved at once: the save waits for the crop shown to be the file sent
        with page.expect_navigation():
            page.click("#character-form button[type=submit]")
        saved = page.locator("img[data-role=avatar-now]").get_attribute("src")
        stored = page.evaluate(SAMPLED, saved)
        assert stored == {"size": shown["size"], "colours": [list(RED)] * 5}, stored
        assert shown["size"] == ([100, 150] if touch else [99, 148])
        assert errors == []
    finally:
        context.close()
