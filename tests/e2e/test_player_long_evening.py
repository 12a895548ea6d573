"""A whole evening on the chat page, the rough edges the last newcomer walk left: what the page
refuses while a summarize holds the chat is off until it ends; the import report's "Play as"
stays until it is used or dismissed; counts read with the page's digit grouping; an export says
it is under way; the WebSocket's refusals and a turn's warnings in the page's language; a turn
the window cannot hold says what helps and that the player's line is kept. Screenshots go to
tests/e2e/screenshots/."""

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
from tests.e2e.test_chat_extras import _api
from tests.stub_llm import Hang, Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

TURN_CONTROLS = ("send", "regenerate", "continue", "impersonate")


def _disabled(page: Page, selector: str) -> bool:
    return page.locator(selector).evaluate("el => el.disabled")


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_running_summarize_turns_off_what_the_locked_chat_would_refuse(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    instance_new(page, server)
    server.stub.script(Reply("Noted."))
    message_send(page, "Remember the red sail.")
    turn_wait_done(page)
    server.stub.script(Hang(60))  # the summary's answer never comes until the reset below
    if size is PHONE:
        page.click("[data-testid=drawer-toggle]")
    page.click("[data-memory-action=summarize]")
    wait_until(page, "() => document.querySelector('[data-memory-action=update_memory]').disabled")
    try:
        assert _disabled(page, "[data-memory-action=summarize]")
        for testid in TURN_CONTROLS:
            assert _disabled(page, f"[data-testid={testid}]"), testid
        # Enter in the box sends nothing while it runs; the text stays and the page says why
        page.fill("[data-testid=input]", "Are you there?")
        page.locator("#send-form").evaluate("form => form.requestSubmit()")
        assert "locked" in page.inner_text("#status")
        assert page.input_value("[data-testid=input]") == "Are you there?"
        screenshot_take(page, f"evening_summarize_locked_{size['width']}", full_page=False)
    finally:
        server.stub.reset()  # the hung answer ends: the summarize fails and the chat is free
    wait_until(page, "() => document.getElementById('memory-result').textContent.trim() !== ''",
               timeout=60_000)
    wait_until(page, "() => !document.querySelector('[data-memory-action=update_memory]').disabled")
    for testid in TURN_CONTROLS:
        assert not _disabled(page, f"[data-testid={testid}]"), testid
    assert not _disabled(page, "[data-memory-action=summarize]")
    assert page.js_errors == []


def test_a_streaming_reply_turns_off_the_memory_actions(page: Page, server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    instance_new(page, server)
    server.stub.script(Reply("The tide turns slowly.", held_after=1))
    message_send(page, "Tell me of the tide.")
    try:
        wait_until(page, "() => document.querySelector('[data-memory-action=summarize]').disabled")
        assert _disabled(page, "[data-memory-action=update_memory]")
    finally:
        server.stub.release()
    turn_wait_done(page)
    assert not _disabled(page, "[data-memory-action=summarize]")
    assert page.js_errors == []


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_card_too_big_for_the_window_says_what_helps_and_keeps_the_players_line(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    if not page.request.get(f"{server.url}/api/v1/characters/char_evening_big").ok:
        _api(page, server, "POST", "/characters", {
            "character_id": "char_evening_big", "name": "Tomasz",
            "base_persona": "A lighthouse keeper who remembers every ship. " * 300})
    instance_id = _api(page, server, "POST", "/instances",
                       {"character_id": "char_evening_big"})["instance_id"]
    _api(page, server, "PUT", f"/instances/{instance_id}",
         {"generation": {"context_tokens": 2048}})
    page.goto(f"{server.url}/instances/{instance_id}/")
    message_send(page, "Which ship came in last?")
    wait_until(page, "() => /Regenerate/.test(document.getElementById('status').textContent)")
    said = page.inner_text("#status")
    assert "The prompt needs" in said and "summarizing cannot help" in said
    assert "Context size" in said and "Your message stays in the chat" in said
    assert "summarize the session" not in said
    last = page.locator("#messages .msg").last
    assert last.get_attribute("data-role") == "user" and "Which ship" in last.inner_text()
    screenshot_take(page, f"evening_refused_kept_{size['width']}", full_page=False)
    # a larger window in the chat's settings, then ↻ answers the line that stayed
    _api(page, server, "PUT", f"/instances/{instance_id}",
         {"generation": {"context_tokens": 8192}})
    server.stub.script(Reply("The Marianne, at dusk."))
    page.click("[data-testid=regenerate]")
    turn_wait_done(page)
    wait_until(page, "() => /Marianne/.test(document.querySelector('#messages .msg:last-child')"
               "?.textContent || '')")
    assert page.js_errors == []
