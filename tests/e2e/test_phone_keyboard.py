"""A real phone (issue 33): Chromium's mobile emulation (a 390×844 touch screen at 3× with a
mobile viewport), a tap in the input, then the keyboard opening (the screen left to the page
shrinks to 390×500, as Chrome does with `interactive-widget=resizes-content`) and closing. The
conversation keeps ≥ 250 px, the input stays above the keyboard, the newest message stays in
view. And a player who picked 中文 in an English browser reads every time in Chinese: home,
history (sessions, related chats), chat page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    PHONE,
    Server,
    browser_missing_reason,
    context_new,
    login_ensure,
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

KEYBOARD_OPEN = {"width": 390, "height": 500}


@pytest.fixture
def phone(server: Server) -> Iterator[Page]:
    """A logged-in page of a phone: mobile viewport, touch, 3× pixels, an English browser."""
    context = context_new(server, viewport=PHONE, is_mobile=True, has_touch=True,
                          device_scale_factor=3)
    login_ensure(server, context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    server.stub.reset()
    try:
        yield page
    finally:
        context.close()
        server.stub.reset()


def _visible(page: Page, selector: str) -> dict:
    return page.evaluate("""s => { const r = document.querySelector(s).getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, height: Math.min(r.bottom, innerHeight) - Math.max(r.top, 0)}; }""",
                         selector)


def _send_by_tap(page: Page, text: str) -> None:
    """A phone's Enter is a new line: the player taps Send (the keyboard stays open)."""
    page.fill("[data-testid=input]", text)
    page.tap("[data-testid=send]")
    wait_until(page,
        "t => [...document.querySelectorAll('#messages .msg.user')].some(m => m.textContent.includes(t))",
        arg=text)
    turn_wait_done(page)


def test_the_keyboard_opening_keeps_the_conversation_the_input_and_the_newest_line(
        phone: Page, server: Server) -> None:
    page = phone
    page.goto(f"{server.url}/")
    page.select_option("form[action='/instances/new'] select[name=character_id]", "char_alserqi")
    page.tap("form[action='/instances/new'] button[type=submit]")
    page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
    page.wait_for_selector(".msg[tabindex]")  # the page's script is wired (a loaded machine)
    server.stub.script(Reply("The forest is old and quiet.\n\nIts river runs east."),
                       Reply("East, to the sea."), Reply("Yes, by boat."))
    page.tap("[data-testid=input]")
    page.set_viewport_size(KEYBOARD_OPEN)  # the keyboard opens
    for text in ("Tell me about the forest.", "Where does the river go?", "Can we follow it?"):
        _send_by_tap(page, text)
    page.wait_for_timeout(300)  # the viewport's resize and scroll events have run
    screenshot_take(page, "phone_keyboard_open", full_page=False)
    assert page.evaluate("() => document.activeElement.id") == "input"
    listed = _visible(page, "#messages")
    assert listed["height"] >= 250, listed
    box = _visible(page, "[data-testid=input]")
    assert box["top"] >= 0 and box["bottom"] <= KEYBOARD_OPEN["height"], box
    send = _visible(page, "[data-testid=send]")
    assert send["bottom"] <= KEYBOARD_OPEN["height"], send
    newest = _visible(page, "#messages .msg:last-child")
    assert newest["bottom"] <= listed["bottom"] + 1 and newest["bottom"] > listed["top"], newest
    assert "Yes, by boat." in page.locator("#messages .msg").last.inner_text()
    # the keyboard closes, the player taps the conversation: everything is back
    page.set_viewport_size(PHONE)
    page.tap("#messages", position={"x": 20, "y": 20})
    wait_until(page, "() => !document.body.classList.contains('typing')")
    assert page.get_by_test_id("nav-toggle").is_visible()
    assert page.locator(".topbar").bounding_box()["height"] <= 56
    screenshot_take(page, "phone_keyboard_closed", full_page=False)
    assert page.js_errors == []


def test_times_follow_the_chosen_language_not_the_browsers(phone: Page, server: Server) -> None:
    page = phone
    page.context.add_cookies([{"name": "django_language", "value": "zh-hans",
                               "url": server.url}])
    page.goto(f"{server.url}/")
    page.wait_for_selector(".instance-item time[data-local]")
    home = page.locator(".instance-item time").all_inner_texts()
    page.goto(f"{server.url}/instances/inst_001/history/")
    page.wait_for_selector("#related time[data-local]")
    history = page.locator(".history-row time").all_inner_texts()
    related = page.locator("#related time").all_inner_texts()
    sessions = page.locator(".session-list time").all_inner_texts()
    screenshot_take(page, "phone_history_zh", full_page=False)
    page.goto(f"{server.url}/instances/inst_001/")
    page.wait_for_selector("#messages time[data-local]")
    chat = page.locator("#messages time").all_inner_texts()
    titles = page.eval_on_selector_all("#messages time", "els => els.map(e => e.title)")
    shown = [*home, *history, *related, *sessions, *chat]
    assert shown and all(text.strip() for text in shown)
    english = [text for text in shown if re.search(r"AM|PM|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|T\d\d:", text)]
    assert english == [], english
    # a date of another day is written the Chinese way
    assert any("月" in text for text in [*related, *history, *home]), shown
    assert all("/" in title or "年" in title for title in titles), titles
    assert page.js_errors == []
