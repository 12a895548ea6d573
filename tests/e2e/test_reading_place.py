"""The reader's place in a long chat survives a visit to another page and a reload: a player
who scrolled back to an older reply, opened History (or the prompt inspector) and pressed the
browser's Back came back to the newest line, and had to find their place again."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import PHONE, Server, network_quiet, wait_until
from tests.e2e.seeded_chats import long_session_open

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

TOP_SHOWN = """() => { const box = document.getElementById('messages');
  const top = box.getBoundingClientRect().top;
  const shown = [...box.querySelectorAll('[data-testid=message]')]
    .find(m => m.getBoundingClientRect().bottom > top + 5);
  return shown.querySelector('.text').textContent.trim(); }"""


def _long_chat(page: Page, server: Server, count: int = 60) -> None:
    with network_quiet(page):
        long_session_open(page, server, count)


def _scrolled_back_to(page: Page, text: str) -> None:
    page.locator("#messages [data-testid=message]", has_text=text).first.evaluate(
        "(el) => { const box = document.getElementById('messages');"
        " box.scrollTop += el.getBoundingClientRect().top - box.getBoundingClientRect().top; }")
    wait_until(page, f"() => ({TOP_SHOWN})() === {text!r}")


def test_back_from_history_returns_to_the_reply_the_player_was_reading(page: Page,
                                                                       server: Server) -> None:
    """By the browser's Back, then by History's "← back to the chat" from another place: only
    Back returned to the place, the link opened the chat at its newest line. One chat for both:
    a place not saved again would show line 41, a link that forgot it the newest line."""
    _long_chat(page, server)
    _scrolled_back_to(page, "line 41")
    page.click("text=History")
    page.wait_for_url("**/history**")
    with network_quiet(page):
        page.go_back()
    wait_until(page, "() => !document.querySelector('#messages[aria-busy=true]')")
    assert page.evaluate(TOP_SHOWN) == "line 41"

    _scrolled_back_to(page, "line 37")
    page.click("text=History")
    page.wait_for_url("**/history**")
    with network_quiet(page):
        page.click("text=back to the chat")
    wait_until(page, "() => !document.querySelector('#messages[aria-busy=true]')")
    assert page.evaluate(TOP_SHOWN) == "line 37"
    assert not page.url.endswith("#reading")  # a reload later is a reload, not a link
    assert page.js_errors == []


def test_a_reload_on_a_phone_keeps_the_place_and_a_new_visit_starts_at_the_newest(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    _long_chat(page, server)
    _scrolled_back_to(page, "line 45")
    with network_quiet(page):
        page.reload()
    assert page.evaluate(TOP_SHOWN) == "line 45"
    with network_quiet(page):
        page.goto(page.url)
    assert page.locator("#messages [data-testid=message] .text").last.is_visible()
    assert page.evaluate("() => { const b = document.getElementById('messages');"
                         " return b.scrollHeight - b.scrollTop - b.clientHeight < 80; }")
