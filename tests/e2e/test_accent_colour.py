"""A colour of one's own (issue 33; SillyTavern users keep their own accent): picked in Settings
→ Reading or the chat drawer's reading card, applied at once on every page, and kept readable:
text on the accent black or white by contrast, text and lines drawn in it made darker or lighter
until they read on the theme's backgrounds (the picker says so). axe-clean with the extreme
colours #ffff00 and #000080, light and dark."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from tests.e2e.axe_audit import AXE, RUN_PALETTE, audit_in_each_scheme
from tests.e2e.axe_audit import RUN as AXE_RUN
from tests.e2e.conftest import DESKTOP, PHONE, SCHEMES, Server, scheme_emulate, screenshot_take
from tests.e2e.device_pages import touch_page_new
from tests.e2e.page_api import api_call, reading_card_open, reading_wait_saved
from tests.e2e.seeded_chats import st_chat_import

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

# The colours as drawn: body's own custom properties and the theme's surfaces.
DRAWN = """() => {
  const style = getComputedStyle(document.body);
  const secondary = document.querySelector("button.secondary");
  const read = (name) => style.getPropertyValue(name).trim();
  return {accent: read("--accent"), on: read("--on-accent"), text: read("--accent-text"),
          line: read("--accent-line"), surfaces: ["--bg", "--card", "--msg", "--soft"].map(read),
          secondary: secondary && getComputedStyle(secondary).color};
}"""


def _luminance(colour: str) -> float:
    colour = colour.lstrip("#")
    if len(colour) == 3:
        colour = "".join(c * 2 for c in colour)
    channels = [int(colour[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _rgb_hex(rgb: str) -> str:
    return "#" + "".join(f"{int(v):02x}" for v in rgb[rgb.index("(") + 1:-1].split(",")[:3])


@pytest.fixture(autouse=True)
def _accent_put_back(server: Server, page: Page) -> Iterator[None]:
    api_call(page, server, "PUT", "/reading", {"accent": "", "theme": "default"})
    yield
    api_call(page, server, "PUT", "/reading", {"accent": "", "theme": "default"})


# What the picker says under each extreme colour, light and dark: made darker on light pages,
# lighter on dark ones, or nothing when the colour reads as it is.
NOTES = {"#ffff00": {"light": "darker", "dark": ""}, "#000080": {"light": "", "dark": "lighter"}}


@pytest.mark.parametrize("colour", list(NOTES))
def test_an_extreme_accent_stays_readable_everywhere_and_axe_clean(
        server: Server, page: Page, colour: str) -> None:
    """Light and dark on the same load: the page follows the scheme live (accent.js listens)."""
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(DESKTOP)
    page.goto(f"{server.url}/settings/")
    form = page.locator("#reading-settings-form")
    form.get_by_test_id("reading-accent").fill(colour)
    reading_wait_saved(page, "accent", colour)
    for scheme in SCHEMES:
        scheme_emulate(page, scheme)
        drawn = page.evaluate(DRAWN)
        assert drawn["accent"] == colour
        # Text on the accent: whichever of black and white reads better, and at least 4.5:1.
        assert _contrast(drawn["on"], colour) >= 4.5, (scheme, drawn)
        for surface in drawn["surfaces"]:
            assert _contrast(drawn["text"], surface) >= 4.5, (scheme, surface, drawn)
            assert _contrast(drawn["line"], surface) >= 3, (scheme, surface, drawn)
        assert _rgb_hex(drawn["secondary"]) == drawn["text"]
        note, said = NOTES[colour][scheme], form.locator("[data-accent-note]").inner_text()
        assert (note in said) if note else said == "", (scheme, said)
        assert (drawn["text"] != colour) == bool(note), scheme
        # In full once; the other scheme changes only the colours (test_accessibility.py).
        assert page.evaluate(AXE_RUN if scheme == SCHEMES[0] else RUN_PALETTE) == [], scheme
        screenshot_take(page, f"accent_{colour[1:]}_{scheme}_settings", full_page=False)
    # Every page wears it from the first paint, and reads (an accent is a colour: the pages'
    # structure is audited in full in tests/e2e/test_accessibility.py).
    for path in ("/", "/library/", "/instances/inst_001/"):
        page.goto(f"{server.url}{path}")
        assert page.evaluate(DRAWN)["accent"] == colour, path
        assert audit_in_each_scheme(page, palette_only=True) == {}, path
    assert page.js_errors == []


def test_the_chat_drawer_sets_and_clears_the_accent_at_once_in_chinese(server: Server,
                                                                       page: Page) -> None:
    phone = touch_page_new(server, PHONE, language="zh-hans")
    try:
        phone.goto(f"{server.url}/instances/{st_chat_import(phone, server, 4)}/")
        theirs = phone.evaluate(DRAWN)["accent"]
        reading_card_open(phone)
        form = phone.locator("#reading-drawer")
        assert "强调色" in form.inner_text() and "使用配色自带的颜色" in form.inner_text()
        form.get_by_test_id("reading-accent").fill("#ffff00")
        reading_wait_saved(phone, "accent", "#ffff00")
        drawn = phone.evaluate(DRAWN)
        assert drawn["accent"] == "#ffff00" and drawn["on"] == "#000"
        assert "稍暗" in form.locator("[data-accent-note]").inner_text()
        screenshot_take(phone, "accent_drawer_zh_390", full_page=False)
        # Back to the theme's own colour: the picker shows it, the note goes.
        form.get_by_test_id("reading-accent-clear").click()
        reading_wait_saved(phone, "accent", "")
        assert phone.evaluate(DRAWN)["accent"] == theirs
        assert form.get_by_test_id("reading-accent").input_value() == theirs
        assert form.locator("[data-accent-note]").inner_text() == ""
        phone.reload()
        assert phone.evaluate(DRAWN)["accent"] == theirs
        assert phone.js_errors == []
    finally:
        phone.context.close()
