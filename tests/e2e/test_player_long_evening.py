"""A whole evening on the chat page, the rough edges the last newcomer walk left: what the page
refuses while a summarize holds the chat is off until it ends (a message's changes too); the
import report's counts read with a Chinese page's digit grouping; an export says it is under way;
the WebSocket's refusals and a turn's warnings in the page's language; a turn the window cannot
hold says what helps and that the player's line is kept. The report's "Play as" buttons kept
until used or dismissed, and its counts in English, need no browser: tests/library/test_play_as.py
and tests/pages/test_counts_grouped.py. Screenshots go to tests/e2e/screenshots/."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    browser_missing_reason,
    instance_new,
    message_send,
    phone_page_open,
    screenshot_take,
    turn_wait_done,
    wait_until,
)
from tests.e2e.page_api import api_call, drawer_open
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


def test_a_running_summarize_turns_off_what_the_locked_chat_would_refuse(
        page: Page, server: Server) -> None:
    """On a phone, through the drawer; the same memory.js turns them off at any width."""
    page.set_viewport_size(PHONE)
    instance_new(page, server)
    server.stub.script(Reply("Noted."))
    message_send(page, "Remember the red sail.")
    turn_wait_done(page)
    server.stub.script(Hang(60))  # the summary's answer never comes until the reset below
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
        screenshot_take(page, "evening_summarize_locked_390", full_page=False)
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


def test_a_card_too_big_for_the_window_says_what_helps_and_keeps_the_players_line(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)  # nothing here depends on the width
    if not page.request.get(f"{server.url}/api/v1/characters/char_evening_big").ok:
        api_call(page, server, "POST", "/characters", {
            "character_id": "char_evening_big", "name": "Tomasz",
            "base_persona": "A lighthouse keeper who remembers every ship. " * 300})
    instance_id = api_call(page, server, "POST", "/instances",
                       {"character_id": "char_evening_big"})["instance_id"]
    api_call(page, server, "PUT", f"/instances/{instance_id}",
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
    screenshot_take(page, "evening_refused_kept_390", full_page=False)
    # a larger window in the chat's settings, then ↻ answers the line that stayed
    api_call(page, server, "PUT", f"/instances/{instance_id}",
         {"generation": {"context_tokens": 8192}})
    server.stub.script(Reply("The Marianne, at dusk."))
    page.click("[data-testid=regenerate]")
    turn_wait_done(page)
    wait_until(page, "() => /Marianne/.test(document.querySelector('#messages .msg:last-child')"
               "?.textContent || '')")
    assert page.js_errors == []


def _long_chat(messages: int) -> bytes:
    """A SillyTavern chat with two players, Ann and Bo, and the demo character."""
    records = [{"user_name": "Ann", "character_name": "Alserqi", "create_date": "2024-5-12",
                "chat_metadata": {}}]
    for n in range(messages):
        name = ("Ann", "Alserqi", "Bo", "Alserqi")[n % 4]
        records.append({"name": name, "is_user": name != "Alserqi", "is_system": False,
                        "send_date": "May 12, 2024 5:41pm", "mes": f"line {n}", "extra": {}})
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def _chat_imported(page: Page, server: Server, messages: int) -> str:
    """A chat of `messages` lines imported through the drawer of a phone's chat page."""
    instance_id = instance_new(page, server)
    page.click("[data-testid=drawer-toggle]")
    page.set_input_files("#chat-import input[type=file]", files=[{
        "name": "long.jsonl", "mimeType": "application/json", "buffer": _long_chat(messages)}])
    with page.expect_navigation(timeout=120_000):
        page.click("#chat-import button[type=submit]")
    page.wait_for_selector("#import-report")
    return instance_id


def test_an_export_says_it_is_under_way_and_takes_one_press(page: Page, server: Server) -> None:
    """On a phone, through the drawer; export.js is the same at any width."""
    page.set_viewport_size(PHONE)
    _chat_imported(page, server, 40)
    drawer_open(page)
    # Pressed while the drawer could still be sliding in, the link once showed no note in a
    # fresh clone's run: the press waits for the drawer at rest, as a thumb does.
    wait_until(page, "() => getComputedStyle(document.getElementById('drawer')).transform"
               " === 'none'")
    held = []  # the export's answer waits here, so "under way" is seen however fast it is

    def hold(route) -> None:
        held.append(route)

    page.route(re.compile(r"/export\?"), hold)
    try:
        page.click("a[data-export=jsonl]", no_wait_after=True)
        wait_until(page, "() => /Exporting/.test(document.getElementById('export-status')"
                   ".textContent)", timeout=15_000)
        assert page.get_attribute("a[data-export=md]", "aria-disabled") == "true"
        page.locator("a[data-export=jsonl]").dispatch_event("click")  # a second press asks nothing
        wait_until(page, "() => /\\(\\d+ s\\)/.test(document.getElementById('export-status')"
                   ".textContent)")
        assert len(held) == 1 and page.get_attribute("#export-status", "role") == "status"
        screenshot_take(page, "evening_exporting_390", full_page=False)
        with page.expect_download() as download:
            held[0].continue_()
        assert download.value.suggested_filename.endswith(".jsonl")
        wait_until(page, "() => /Exported: .*\\.jsonl/.test("
                   "document.getElementById('export-status').textContent)")
        assert page.get_attribute("a[data-export=md]", "aria-disabled") is None
    finally:
        page.unroute(re.compile(r"/export\?"))
        for route in held:  # one not let through (a failure above) must not hang the page
            with contextlib.suppress(Exception):
                route.abort()
    assert page.js_errors == []


@pytest.fixture
def chinese(server: Server) -> Iterator[Page]:
    """A logged-in phone page of a player who chose 中文 (a context of its own)."""
    yield from phone_page_open(server, language="zh-hans")


def test_a_chinese_page_reads_the_reports_counts_grouped_and_its_export_note(
        chinese: Page, server: Server) -> None:
    page = chinese
    _chat_imported(page, server, 1500)
    report = page.inner_text("#import-report")
    assert "已从 SillyTavern 导入 1,500 条消息" in report and "1500" not in report
    screenshot_take(page, "evening_import_report_zh_390", full_page=False)
    page.click("[data-testid=drawer-toggle]")
    with page.expect_download():
        page.click("a[data-export=md]")
    wait_until(page, "() => /已导出：.*\\.md/.test(document.getElementById('export-status').textContent)")
    page.locator("#export-status").scroll_into_view_if_needed()
    screenshot_take(page, "evening_exported_zh_390", full_page=False)
    assert page.js_errors == []


def test_a_summarize_another_tab_runs_locks_this_tab_too(page: Page, server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    instance_id = instance_new(page, server)
    server.stub.script(Reply("Noted."))
    message_send(page, "Remember the red sail.")
    turn_wait_done(page)
    server.stub.script(Hang(60))
    page.click("[data-memory-action=summarize]")
    other = page.context.new_page()  # the same player's second tab, opened while it runs
    try:
        other.set_viewport_size(PHONE)
        other.goto(f"{server.url}/instances/{instance_id}/")
        wait_until(other, "() => document.querySelector('[data-testid=send]').disabled"
                   " && /locked/.test(document.getElementById('status').textContent)")
        assert _disabled(other, "[data-memory-action=update_memory]")
        screenshot_take(other, "evening_locked_by_another_tab_390", full_page=False)
        server.stub.reset()  # the hung summary ends: both tabs are free again
        wait_until(other, "() => !document.querySelector('[data-memory-action=summarize]')"
                   ".disabled && document.getElementById('status').textContent === ''",
                   timeout=60_000)
        for testid in TURN_CONTROLS:
            assert not _disabled(other, f"[data-testid={testid}]"), testid
    finally:
        server.stub.reset()
        other.close()


MESSAGE_CHANGES = ("edit", "delete", "hide", "branch")


def test_a_running_summarize_offers_a_messages_changes_off_with_the_reason(
        page: Page, server: Server) -> None:
    """The ⋯ menu of a message kept offering Edit, Delete, Hide and Branch while a summarize
    held the chat, and the server refused each as busy."""
    page.set_viewport_size(PHONE)
    instance_new(page, server)
    server.stub.script(Reply("Noted."))
    message_send(page, "Remember the red sail.")
    turn_wait_done(page)
    server.stub.script(Hang(60))
    page.click("[data-testid=drawer-toggle]")
    page.click("[data-memory-action=summarize]")
    wait_until(page, "() => document.querySelector('[data-memory-action=update_memory]').disabled")
    page.click("button.drawer-close")
    mine = page.locator("#messages .msg[data-index]", has_text="Remember the red sail.")
    try:
        mine.locator("[data-testid=more]").click()
        for testid in MESSAGE_CHANGES:
            item = page.get_by_test_id(f"menu-{testid}")
            assert item.get_attribute("aria-disabled") == "true", testid
        assert page.get_by_test_id("menu-copy").get_attribute("aria-disabled") is None
        assert "locked" in page.get_by_test_id("menu-locked-note").inner_text()
        screenshot_take(page, "evening_locked_message_menu_390", full_page=False)
        page.get_by_test_id("menu-delete").click(force=True)  # says why, asks the server nothing
        assert "locked" in page.inner_text("#toast")
        assert mine.count() == 1
        mine.locator("[data-testid=more]").click()
        assert page.get_by_test_id("menu-delete").get_attribute("aria-disabled") == "true"
    finally:
        server.stub.reset()
    # The summarize's end reads the list again under the open menu (CI caught a menu opened just
    # then vanishing): it follows its message and shows the changes back on.
    wait_until(page, "() => { const item = document.querySelector('[data-testid=menu-delete]');"
               " return item && !item.hasAttribute('aria-disabled')"
               " && !document.getElementById('messages').hasAttribute('aria-busy'); }",
               timeout=60_000)
    for testid in MESSAGE_CHANGES:
        assert page.get_by_test_id(f"menu-{testid}").get_attribute("aria-disabled") is None
    assert page.get_by_test_id("menu-locked-note").count() == 0
    assert page.js_errors == []
