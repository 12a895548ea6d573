"""The history manager on a phone (issue 33): rows read as the chat page's messages (Markdown
rendered and sanitized, long ones clamped with "more"), their actions in one labelled ⋯ menu
instead of three buttons under every row, the edit box as wide as the screen, and the Undo of a
delete in view wherever the reader was in the list."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    browser_missing_reason,
    history_act,
    instance_new,
    no_sideways_scroll,
    screenshot_take,
    screenshots_in_each_scheme,
    wait_until,
)
from tests.e2e.seeded_chats import chat_with_rows_make
from tests.stub_llm import Fail, Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

def test_history_rows_on_a_phone_read_as_the_chat_with_one_menu_each(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    instance_id = chat_with_rows_make(page, server)
    page.goto(f"{server.url}/instances/{instance_id}/history/")
    page.wait_for_selector(".history-row .text[data-rendered]")
    screenshots_in_each_scheme(page, "history_phone")
    bold = page.locator(".history-row", has_text="plan")
    assert bold.locator(".text strong").inner_text() == "bold"
    assert "**" not in bold.locator(".text").inner_text()
    # one ⋯ per row, no Edit / Hide / Delete under each
    assert page.locator(".history-row .actions button:visible", has_text="Delete").count() == 0
    assert page.locator(".history-row summary:visible", has_text="Edit").count() == 0
    more = bold.get_by_test_id("history-more")
    assert more.get_attribute("aria-label") == "More actions for this message"
    short = page.locator(".history-row", has_text="Short one.")
    assert short.bounding_box()["height"] <= 90
    long_row = page.locator(".history-row", has_text="Paragraph 1:")
    assert long_row.bounding_box()["height"] <= 260
    long_row.get_by_test_id("history-row-more").click()
    assert long_row.bounding_box()["height"] > 400
    # the menu: labelled items, the keyboard's Escape closes it and gives the focus back
    more.click()
    menu = page.get_by_test_id("history-menu")
    assert [item.inner_text() for item in menu.get_by_role("menuitem").all()] == \
        ["Edit", "Hide", "Delete", "Branch", "Inspect prompt"]
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")
    assert menu.count() == 0
    assert page.evaluate("() => document.activeElement.dataset.testid") == "history-more"
    no_sideways_scroll(page)
    assert page.js_errors == []


def test_the_phone_edit_box_is_full_width_and_undo_of_a_delete_is_in_view(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    page.on("dialog", lambda dialog: dialog.accept())
    instance_id = chat_with_rows_make(page, server)
    page.goto(f"{server.url}/instances/{instance_id}/history/")
    page.wait_for_selector(".history-row .text[data-rendered]")
    row = page.locator(".history-row", has_text="Another.")
    history_act(row, "Edit")
    box = row.locator("textarea[name=text]")
    assert box.bounding_box()["width"] >= PHONE["width"] - 60
    screenshot_take(page, "history_phone_edit", full_page=False)
    row.get_by_role("button", name="Cancel").click()
    assert not box.is_visible()
    # a row far down the page: its Undo shows where the reader is
    row = page.locator(".history-row", has_text="Go on.")
    row.scroll_into_view_if_needed()
    history_act(row, "Delete")
    undo = page.get_by_test_id("history-undo")
    undo.wait_for()
    screenshot_take(page, "history_phone_deleted", full_page=False)
    at = undo.bounding_box()
    assert 0 <= at["y"] and at["y"] + at["height"] <= PHONE["height"], at
    assert all(line.get("content") != "Go on." for line in server.session_lines(instance_id))
    undo.click()
    wait_until(page, "() => document.querySelector('#history-rows').textContent"
               ".includes('Go on.')")
    assert any(line.get("content") == "Go on." for line in server.session_lines(instance_id))
    assert page.js_errors == []


def test_a_laptop_keeps_the_rows_buttons_and_renders_their_markdown(page: Page,
                                                                    server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    instance_id = chat_with_rows_make(page, server)
    page.goto(f"{server.url}/instances/{instance_id}/history/")
    page.wait_for_selector(".history-row .text[data-rendered]")
    row = page.locator(".history-row", has_text="plan")
    assert row.locator(".text em").inner_text() == "whispered"
    assert row.locator(".actions button", has_text="Delete").is_visible()
    assert not row.get_by_test_id("history-more").is_visible()
    screenshot_take(page, "history_desktop", full_page=False)
    # Branch from a row: the chat goes on from there in a new conversation (the way back to an
    # older one after a branch, which could be read here but not gone on with)
    row.get_by_test_id("branch").click()
    page.wait_for_url(f"{server.url}/instances/{instance_id}/")
    assert page.locator("[data-current-session]").inner_text() == "conversation 2"
    assert page.locator("#messages .msg").last.inner_text().count("plan") >= 1
    assert page.js_errors == []


def test_the_memory_page_rebuilds_the_recaps_with_its_stage_shown_and_says_why_it_failed(
        page: Page, server: Server):
    """The persona & memory page's button calls the REST rebuild: its stage is shown while the
    model answers, the page shows the rebuilt recaps after, and a refusal is said in the
    server's words."""
    instance_id = instance_new(page, server)
    store = server.store
    session_id = server.instance_state(instance_id)["current_session_id"]
    for turn in range(1, 6):  # one recap's worth (a recap every 5 turns, the default)
        for role in ("user", "assistant"):
            store.session_append(instance_id, session_id, {
                "role": role, "content": f"{role} line {turn}", "turn": turn,
                "timestamp": f"2026-01-01T10:{turn:02d}:00Z"})
    page.goto(f"{server.url}/instances/{instance_id}/persona/")
    button = page.get_by_role("button", name="Rebuild this session's recaps")

    server.stub.script(Fail(400, "model overloaded"))
    button.click()
    error = page.get_by_test_id("recap-rebuild-error")
    error.wait_for(state="visible")
    assert "The recaps were not rebuilt:" in error.inner_text()
    assert "model overloaded" in error.inner_text()
    assert button.is_enabled()

    server.stub.script(Reply("They met at the harbour at dawn.", chunk_size=1, delay=0.1))
    button.click()
    status = page.get_by_test_id("recap-rebuild-status")
    wait_until(page, "() => document.querySelector('[data-testid=recap-rebuild-status]')"
               ".textContent.includes('part 1 of 1')")
    assert page.get_by_test_id("recap-rebuild-error").is_hidden()
    wait_until(page, "() => document.querySelector('[data-testid=recap-rebuild-status]')"
               ".textContent.includes('Recaps rebuilt')")
    assert "requests to the model: 1" in status.inner_text()
    # Five turns are one recap's part; it waits for the next to be stacked with it.
    assert "1 summary waiting to be stacked" in page.get_by_test_id("recaps-card").inner_text()
    pending = server.store.memory_json_read(instance_id, "recaps", {})["pending_summaries"]
    assert [p["text"] for p in pending] == ["They met at the harbour at dawn."]
