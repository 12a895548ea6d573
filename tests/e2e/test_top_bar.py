"""The top bar on a phone (issue 33): one row (it took two, ~94 px, on every page outside the
chat), the links, language and theme behind a labelled ≡ Menu that the keyboard reaches and
Escape closes; every page is still reachable from it. A laptop keeps its row of links."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    browser_missing_reason,
    screenshots_in_each_scheme,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

PAGES = {"Chats": "/", "Library": "/library/", "Personas": "/library/personas/", "Settings": "/settings/"}


def test_a_phones_top_bar_is_one_row_with_every_page_behind_its_menu(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{server.url}/instances/inst_001/history/")
    assert page.locator(".topbar").bounding_box()["height"] <= 56
    toggle = page.get_by_test_id("nav-toggle")
    assert toggle.get_attribute("aria-label") == "Menu: chats, library, settings"
    assert not page.locator(".topbar nav a", has_text="Library").is_visible()
    for name, path in PAGES.items():
        page.get_by_test_id("nav-toggle").click()
        assert page.get_by_test_id("nav-toggle").get_attribute("aria-expanded") == "true"
        if name == "Library":
            screenshots_in_each_scheme(page, "topbar_phone_open", full_page=False)
        page.locator(".topbar nav a", has_text=name).click()
        page.wait_for_url(f"{server.url}{path}")
        # each page, loaded through the menu: its top bar one row again
        assert page.locator(".topbar").bounding_box()["height"] <= 56, path
    screenshots_in_each_scheme(page, "topbar_phone", full_page=False)
    assert page.js_errors == []


def test_the_phone_menu_works_from_the_keyboard(page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{server.url}/library/")
    page.keyboard.press("Tab")  # the brand
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.dataset.testid") == "nav-toggle"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.textContent.trim()") == "Chats"
    assert page.locator(".topbar nav a", has_text="Settings").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator(".topbar nav a", has_text="Settings").is_visible()
    assert page.evaluate("() => document.activeElement.dataset.testid") == "nav-toggle"
    assert page.get_by_test_id("nav-toggle").get_attribute("aria-expanded") == "false"
    assert page.js_errors == []


def test_a_laptop_keeps_its_row_of_links(page: Page, server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(f"{server.url}/library/")
    assert not page.get_by_test_id("nav-toggle").is_visible()
    for name in PAGES:
        assert page.locator(".topbar nav a", has_text=name).is_visible()
    assert page.locator(".topbar").bounding_box()["height"] <= 56
    assert page.js_errors == []


def test_a_tick_box_sits_at_the_start_of_its_words(page: Page, server: Server) -> None:
    """A form's tick box without a class of its own ("Make this my default" on the personas
    page, a member's "muted") was as wide as the form: it sat alone in the middle of a row, its
    words under it."""
    page.set_viewport_size(DESKTOP)
    page.goto(f"{server.url}/library/personas/")
    label = page.locator("#persona-new label", has_text="Make this my default")
    tick, words = label.locator("input").bounding_box(), label.bounding_box()
    assert tick["width"] < 40 and tick["x"] - words["x"] < 10 and tick["y"] - words["y"] < 10


def test_the_phone_menus_items_are_spaced_and_ruled_alike(page: Page, server: Server) -> None:
    """"◐Light or dark" had no space after its icon, and "Log out" (a button in a form) was
    only as wide as its words, its rule under it shorter than the others' (newcomer round)."""
    page.set_viewport_size(PHONE)
    page.goto(f"{server.url}/library/")
    page.get_by_test_id("nav-toggle").click()
    gap = page.evaluate("""() => {
        const toggle = document.getElementById('theme-toggle'), icon = document.createRange();
        icon.selectNodeContents(toggle.firstChild);
        return toggle.querySelector('.menu-label').getBoundingClientRect().left
            - icon.getBoundingClientRect().right; }""")
    assert gap >= 3
    widths = page.evaluate("""() => [...document.querySelectorAll(
        '.topbar nav a, .topbar nav .link')].map(item => item.getBoundingClientRect().width)""")
    assert len(widths) >= 6 and max(widths) - min(widths) < 1, widths
    # The buttons' rounded corners curled their rules' ends up, short of the links' straight ones.
    corners = page.evaluate("""() => [...document.querySelectorAll(
        '.topbar nav a, .topbar nav .link')]
        .map(item => getComputedStyle(item).borderBottomLeftRadius)""")
    assert set(corners) == {"0px"}, corners
