"""One ⋯ per message on a phone (newcomer round, brief item 1): six small words under every
line were what a newcomer marked down. On a narrow or touch screen each message shows one
labelled ⋯ that opens its actions as a menu with words (keyboard reachable); the last reply
keeps its swipe arrows; a laptop keeps its row of words."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    browser_missing_reason,
    instance_new,
    message_send,
    screenshot_take,
    turn_wait_done,
    wait_until,
)
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

WORDS = ("copy", "edit", "hide", "delete", "branch")


def _shown(page: Page, selector: str) -> int:
    return sum(1 for el in page.locator(selector).all() if el.is_visible())


def test_on_a_phone_each_message_has_one_labelled_more_button_that_opens_its_actions(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    instance_id = instance_new(page, server)
    # The second reply is one paragraph that wraps to several lines on a phone.
    second = "Second reply. " + "The road bends past the old well and the dust settles. " * 6
    server.stub.script(Reply("First reply."), Reply(second))
    for text in ("Hello.", "And then?"):
        message_send(page, text)
        turn_wait_done(page)
    screenshot_take(page, "more_menu_390_closed", full_page=False)
    messages = page.locator("#messages .msg[data-index]").count()
    for word in WORDS:
        assert _shown(page, f"#messages [data-testid={word}]") == 0, word
    assert _shown(page, "#messages [data-testid=more]") == messages
    more = page.locator("[data-last-reply] [data-testid=more]")
    assert more.get_attribute("aria-label") == "More actions for this message"
    assert page.locator("[data-last-reply] [data-testid=swipe-next]").is_visible()
    more.click()
    menu = page.get_by_test_id("message-menu")
    menu.wait_for()
    screenshot_take(page, "more_menu_390_open", full_page=False)
    items = menu.locator("[role=menuitem]").all_inner_texts()
    for word in ("Copy", "Edit", "Hide", "Delete", "Branch"):
        assert word in items, items
    box = menu.bounding_box()
    assert 0 <= box["x"] and box["x"] + box["width"] <= PHONE["width"]
    assert 0 <= box["y"] and box["y"] + box["height"] <= PHONE["height"]
    assert more.get_attribute("aria-expanded") == "true"
    page.get_by_test_id("menu-edit").click()
    # The whole paragraph in sight, not the last two of its lines (the box's rows counted "\n"s).
    assert page.locator("[data-testid=edit-box]").evaluate(
        "b => b.scrollHeight <= b.clientHeight + 1 && b.clientHeight > 100")
    page.locator("[data-testid=edit-box]").fill("Second reply, edited.")
    page.click("[data-testid=edit-save]")
    wait_until(page, "() => document.querySelector('[data-last-reply] .text')"
               ".textContent.includes('edited')")
    assert server.session_lines(instance_id)[-1]["content"] == "Second reply, edited."
    # With the keyboard: Tab reaches ⋯, Enter opens the menu, Escape closes it back onto ⋯.
    page.locator("[data-last-reply] [data-testid=more]").focus()
    page.keyboard.press("Enter")
    menu.wait_for()
    assert page.evaluate("() => document.activeElement.getAttribute('role')") == "menuitem"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")
    menu.wait_for(state="detached")
    assert page.evaluate("() => document.activeElement.dataset.testid") == "more"
    # A laptop keeps its row of words and has no ⋯.
    page.set_viewport_size(DESKTOP)
    for word in WORDS:
        assert page.locator(f"[data-last-reply] [data-testid={word}]").is_visible(), word
    assert not page.locator("[data-last-reply] [data-testid=more]").is_visible()
    screenshot_take(page, "more_menu_1366", full_page=False)
    assert page.js_errors == []
