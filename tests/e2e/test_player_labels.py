"""Labels a player reads in the history manager (issue 33, the walk's worst thing 3): "Inspect
prompt" capitalized as every other action, an edited message's tooltip gives its time as the
page gives times (not 2026-11-29T05:44:10+00:00), and a row's turn and time have one separator."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    DESKTOP,
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


def test_history_labels_read_as_words_and_local_times(page: Page, server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    instance_id = instance_new(page, server)
    server.stub.script(Reply("A plain answer."))
    message_send(page, "Hello.")
    turn_wait_done(page)
    page.goto(f"{server.url}/instances/{instance_id}/history/")
    row = page.locator(".history-row", has_text="Hello.")
    row.locator("summary", has_text="Edit").click()
    row.locator("textarea[name=text]").fill("Hello there.")
    row.get_by_role("button", name="Save").click()
    page.get_by_test_id("history-notice").wait_for()
    page.reload()
    row = page.locator(".history-row", has_text="Hello there.")
    tag = row.locator(".tag", has_text="edited")
    wait_until(page, "() => document.querySelector('.history-row .tag[data-local]')")
    title = tag.get_attribute("title")
    assert title.startswith("edited ") and not re.search(r"\d{4}-\d\d-\d\dT", title), title
    assert page.evaluate("""s => { const d = new Date(s); return d.toLocaleString('en'); }""",
                         tag.get_attribute("data-title-when")) in title
    reply = page.locator(".history-row", has_text="A plain answer.")
    assert reply.locator("a.inspect").inner_text() == "Inspect prompt"
    # what shows before the time: the row's words, then the time's own "· " (app.css)
    shown = reply.locator(".who time").evaluate(
        """t => [t.parentElement.textContent.split(t.textContent)[0].trim(),
                 getComputedStyle(t, '::before').content]""")
    assert shown[0].endswith("turn 1") and "·" in shown[1], shown
    screenshot_take(page, "labels_history_1366", full_page=False)
    assert page.js_errors == []
