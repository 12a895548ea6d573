"""The Impersonate button in a real browser, at phone and laptop size: the model's suggestion
for the player's next message streams into the input box (after what was typed), Stop keeps
what came, a failure keeps what was typed, and nothing reaches the story until Send.
Screenshots go to tests/e2e/screenshots/."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    SIZES,
    Server,
    instance_new,
    message_send,
    no_sideways_scroll,
    screenshot_take,
    turn_wait_done,
    wait_until,
)
from tests.e2e.page_api import sockets_held, sockets_release
from tests.stub_llm import Fail, Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

IDLE = ("() => !document.querySelector('[data-testid=impersonate]').disabled"
        " && !document.querySelector('[data-testid=input]').readOnly")


def _impersonate(page: Page) -> None:
    page.click("[data-testid=impersonate]")
    wait_until(page, IDLE)


@SIZES
def test_impersonate_writes_the_players_next_line_into_the_box(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    instance_id = instance_new(page, server)
    server.stub.script(Reply("Alserqi eyes you."))
    message_send(page, "I walk into the bar.")
    turn_wait_done(page)
    story = server.session_lines(instance_id)
    bubbles = page.locator("[data-testid=message]").count()

    button = page.locator("[data-testid=impersonate]")
    regenerate = page.locator("[data-testid=regenerate]")
    assert button.is_visible()
    # In the actions' row (while the player types on a phone, Send sits beside the input).
    assert abs(button.bounding_box()["y"] - regenerate.bounding_box()["y"]) < 4
    no_sideways_scroll(page)

    server.stub.script(Reply("I order a drink and meet his stare.", chunk_size=3, delay=0.02))
    _impersonate(page)
    box = page.locator("[data-testid=input]")
    assert box.input_value() == "I order a drink and meet his stare."
    account = page.get_attribute("#chat", "data-account")
    assert page.evaluate(f"localStorage.getItem('personalab-draft-{account}-{instance_id}')") \
        == "I order a drink and meet his stare."
    assert server.stub.requests[-1]["messages"][-1]["role"] == "system"
    assert server.session_lines(instance_id) == story
    assert page.locator("[data-testid=message]").count() == bubbles
    screenshot_take(page, f"47_impersonate_{size['width']}", full_page=False)

    # typed text is kept: the suggestion follows it
    box.fill("Wait.")
    server.stub.script(Reply("Who sent you?"))
    _impersonate(page)
    assert box.input_value() == "Wait. Who sent you?"

    # a failure says so and keeps what was typed
    server.stub.script(Fail(400, "model overloaded"))
    _impersonate(page)
    assert box.input_value() == "Wait. Who sent you?"
    assert "model overloaded" in page.locator("#status").inner_text()

    # Stop keeps what came so far
    box.fill("")
    server.stub.script(Reply("I lean in slowly, " * 60, chunk_size=2, delay=0.03))
    page.click("[data-testid=impersonate]")
    wait_until(page, "() => document.querySelector('[data-testid=input]').value.length > 4")
    page.click("[data-testid=stop]")
    wait_until(page, IDLE)
    partial = box.input_value()
    assert partial.startswith("I lean") and len(partial) < len("I lean in slowly, " * 60)
    assert server.session_lines(instance_id) == story

    # SillyTavern's /impersonate does the same, and is not sent
    box.fill("/impersonate")
    server.stub.script(Reply("Fine. Let's talk."))
    box.press("Enter")
    wait_until(page, "() => document.querySelector('[data-testid=input]').value"
               " === \"Fine. Let's talk.\"")
    wait_until(page, IDLE)
    assert server.session_lines(instance_id) == story
    box.fill(partial)

    # only Send puts it in the story
    server.stub.script(Reply("Alserqi shrugs."))
    page.locator("[data-testid=send]").click()
    turn_wait_done(page)
    assert server.session_lines(instance_id)[-2]["content"] == partial
    assert page.js_errors == []


def test_impersonate_pressed_before_the_page_is_connected_writes_once_it_is(
        page: Page, server: Server) -> None:
    sockets_held(page)
    instance_new(page, server)
    asked = len(server.stub.requests)
    server.stub.script(Reply("I ask for the way north."))
    page.click("[data-testid=impersonate]")
    assert page.locator("#connection").is_hidden()
    assert len(server.stub.requests) == asked

    sockets_release(page)
    wait_until(page, "() => document.querySelector('[data-testid=input]').value"
               " === 'I ask for the way north.'")
    wait_until(page, IDLE)
    assert page.js_errors == []


def test_a_streaming_suggestion_shows_in_the_box_already_cleaned(page: Page,
                                                                  server: Server) -> None:
    """SillyTavern cleans the box at each streamed update: mid-stream, the start of the
    character's line the model ran on into and the trailing spaces are not shown."""
    instance_new(page, server)
    server.stub.script(Reply("I raise my glass.  \nAlserqi: Cheers.", chunk_size=4,
                             held_after=6))
    page.click("[data-testid=impersonate]")
    # held after "I raise my glass.  \nAlse": the raw text never reads so
    wait_until(page, "() => document.querySelector('[data-testid=input]').value"
               " === 'I raise my glass.'")
    server.stub.release()
    wait_until(page, IDLE)
    assert page.locator("[data-testid=input]").input_value() == "I raise my glass."
    assert page.js_errors == []
