"""The Undo after a delete on a phone (issue 33, the walk's worst thing left): while it shows
(the undo window, 8 s) it covers nothing a player needs. On the chat page it sits above the
input and the conversation shrinks from below with the last message kept whole in view; in the
history manager it sits in the list where the row was, not in a bar over the bottom rows. It is
reached by keyboard (the focus goes to Undo) and said to a screen reader (a live region)."""

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
    message_act,
    screenshot_take,
    screenshots_in_each_scheme,
    send_click,
    turn_wait_done,
    wait_until,
)
from tests.e2e.seeded_chats import chat_with_rows_make
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

WORDS = "The lantern swung over the dark water. " * 6


def _touch_screen(page: Page) -> None:
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})


def _box(page: Page, selector: str) -> dict:
    return page.locator(selector).last.bounding_box()


def _overlap(a: dict, b: dict) -> bool:
    return (a["y"] < b["y"] + b["height"] - 1 and b["y"] < a["y"] + a["height"] - 1
            and a["x"] < b["x"] + b["width"] - 1 and b["x"] < a["x"] + a["width"] - 1)


def _assert_room_kept(page: Page) -> None:
    """The toast, the input and the whole last message are in the window, none over another."""
    toast, field = _box(page, "#toast"), _box(page, "#input")
    messages, last = _box(page, "#messages"), _box(page, "#messages .msg")
    height = page.viewport_size["height"]
    assert toast["y"] + toast["height"] <= field["y"] + 1, (toast, field)
    assert field["y"] + field["height"] <= height, field
    assert messages["y"] + messages["height"] <= toast["y"] + 1, (messages, toast)
    assert last["y"] + last["height"] <= messages["y"] + messages["height"] + 1, (last, messages)
    assert last["y"] >= messages["y"] - 1 or last["height"] > messages["height"], (last, messages)


def test_on_the_chat_page_the_toast_leaves_the_input_and_the_last_message_in_view(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    _touch_screen(page)
    instance_id = instance_new(page, server)
    server.stub.script(*[Reply(f"Answer {n}. {WORDS}") for n in range(1, 4)])
    for n in range(1, 4):
        page.fill("[data-testid=input]", f"Question {n}.")
        send_click(page)
        turn_wait_done(page)
    page.locator("#messages").click(position={"x": 4, "y": 4})  # reading, the keyboard away
    # Hide the last reply: it grows a tag, the toast takes a line under the conversation.
    message_act(page.locator("[data-last-reply]"), "hide")
    page.wait_for_selector("#toast:not([hidden])")
    wait_until(page, "() => document.querySelector('[data-last-reply] .tag')")
    _assert_room_kept(page)
    screenshots_in_each_scheme(page, "undo_chat_hidden", full_page=False)
    # Delete a question: Undo has the keyboard's focus, the live region says what happened.
    message_act(page.locator("#messages .msg.user", has_text="Question 3."), "delete")
    undo = page.get_by_test_id("undo")
    undo.wait_for()
    _assert_room_kept(page)
    screenshots_in_each_scheme(page, "undo_chat_deleted", full_page=False)
    assert page.locator("#toast").get_attribute("role") == "status"
    assert "Message deleted." in page.locator("#toast").inner_text()
    assert page.evaluate("() => document.activeElement.dataset.testid") == "undo"
    # the input stays usable while the toast shows
    page.fill("[data-testid=input]", "Still typing.")
    assert page.locator("[data-testid=input]").input_value() == "Still typing."
    undo.focus()
    page.keyboard.press("Enter")
    wait_until(page, "() => document.querySelector('#messages').textContent"
               ".includes('Question 3.')")
    assert any(line.get("content") == "Question 3."
               for line in server.session_lines(instance_id))
    assert page.js_errors == []


def test_in_the_history_manager_the_undo_sits_where_the_row_was_and_covers_no_row(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    page.on("dialog", lambda dialog: dialog.accept())
    instance_id = chat_with_rows_make(page, server)
    _touch_screen(page)  # after the chat's first turn: on a touch screen Enter is a new line
    page.goto(f"{server.url}/instances/{instance_id}/history/")
    page.wait_for_selector(".history-row .text[data-rendered]")
    row = page.locator(".history-row", has_text="Fine.")
    row.scroll_into_view_if_needed()
    history_act(row, "Delete")
    undo = page.get_by_test_id("history-undo")
    undo.wait_for()
    screenshots_in_each_scheme(page, "undo_history_deleted", full_page=False)
    notice = page.get_by_test_id("history-notice").bounding_box()
    assert 0 <= notice["y"] and notice["y"] + notice["height"] <= PHONE["height"], notice
    for other in page.locator(".history-row").all():
        assert not _overlap(notice, other.bounding_box()), other.inner_text()[:40]
    # in the place of the deleted row: between the row before and the row after it
    before = page.locator(".history-row", has_text="Another.").bounding_box()
    after = page.locator(".history-row", has_text="Go on.").bounding_box()
    assert before["y"] < notice["y"] < after["y"], (before, notice, after)
    assert page.evaluate("() => document.activeElement.dataset.testid") == "history-undo"
    assert page.locator("#history-said").inner_text() == "Message deleted."
    page.keyboard.press("Enter")
    wait_until(page, "() => document.querySelector('#history-rows').textContent"
               ".includes('Fine.')")
    assert any(line.get("content") == "Fine." for line in server.session_lines(instance_id))
    # "Undone." beside the row it brought back
    page.get_by_test_id("history-notice").wait_for()
    # both measured in one frame: the list may still scroll between two separate reads
    notice_top, row_bottom = page.evaluate("""() => {
        const row = [...document.querySelectorAll('.history-row')]
            .find((r) => r.textContent.includes('Fine.')).getBoundingClientRect();
        const notice = document.querySelector('[data-testid=history-notice]');
        return [notice.getBoundingClientRect().top, row.bottom];
    }""")
    assert notice_top >= row_bottom - 1, (notice_top, row_bottom)
    assert page.js_errors == []


def test_on_a_laptop_the_history_undo_also_sits_under_the_changed_row(page: Page,
                                                                      server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    instance_id = chat_with_rows_make(page, server)
    page.goto(f"{server.url}/instances/{instance_id}/history/")
    page.wait_for_selector(".history-row .text[data-rendered]")
    row = page.locator(".history-row", has_text="Short one.")
    row.locator("form[data-api=hide] button").click()
    notice = page.get_by_test_id("history-notice")
    notice.wait_for()
    screenshot_take(page, "undo_history_hidden_1366", full_page=False)
    hidden = page.locator(".history-row", has_text="Short one.").bounding_box()
    at = notice.bounding_box()
    assert hidden["y"] + hidden["height"] - 1 <= at["y"] <= hidden["y"] + hidden["height"] + 20
    assert page.js_errors == []
