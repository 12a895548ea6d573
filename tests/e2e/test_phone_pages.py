"""The pages around the chat at phone width: nothing may stick out past the right edge (the
page hides horizontal overflow, so whatever sticks out is cut off and unreachable), and the
history manager's rows read top to bottom at any width. Uses the seeded demo instance."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import Server, browser_missing_reason, screenshot_take

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
CUT_OFF = """() => [...document.querySelectorAll('main *')]
  .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.right > innerWidth + 1; })
  .slice(0, 5).map(e => `${e.tagName}.${e.className} ends at ${Math.round(e.getBoundingClientRect().right)}`)"""


@pytest.mark.parametrize("path", ["/instances/inst_001/history/", "/instances/inst_001/persona/",
                                  "/library/backgrounds/bg_wasteland/"])
def test_nothing_is_cut_off_at_phone_width(page: Page, server: Server, path: str) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{server.url}{path}")
    page.wait_for_selector("main .card")
    screenshot_take(page, "40_phone" + path.replace("/", "_").rstrip("_"))
    assert page.evaluate(CUT_OFF) == []
    assert page.js_errors == []


def test_history_rows_put_the_text_above_its_buttons(page: Page, server: Server) -> None:
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{server.url}/instances/inst_001/history/")
    for row in page.locator(".history-row").all()[:6]:
        text, actions = row.locator(".text").first.bounding_box(), row.locator(".actions").bounding_box()
        assert actions["y"] >= text["y"] + text["height"] - 1
