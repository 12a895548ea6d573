"""The next message typed while a reply streams is a draft like any other: it survives a
reload (or a visit to another page) after the reply ends. The end of a reply cleared the
chat's draft whatever it held, so only the message just sent was meant to go."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    Server,
    instance_new,
    message_send,
    network_quiet,
    turn_wait_done,
    wait_until,
)
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

STREAMING = ("() => (document.querySelector('#messages .msg.assistant.pending .text') || {})"
             ".textContent?.length > 5")


def _reloaded(page: Page) -> str:
    with network_quiet(page):
        page.reload()
    return page.input_value("[data-testid=input]")


def test_a_draft_typed_while_the_reply_streams_survives_a_reload(page: Page,
                                                                 server: Server) -> None:
    instance_new(page, server)
    server.stub.script(Reply("The wind turns over the harbour walls tonight.", chunk_size=3,
                             held_after=3))
    message_send(page, "Where are we sailing?")
    wait_until(page, STREAMING)
    page.fill("[data-testid=input]", "Then I take the wheel.")
    server.stub.release()
    turn_wait_done(page)
    assert _reloaded(page) == "Then I take the wheel."
    assert page.js_errors == []


def test_text_left_in_the_box_survives_a_regenerate_and_a_reload(page: Page,
                                                                  server: Server) -> None:
    instance_new(page, server)
    server.stub.script(Reply("First answer."), Reply("Second answer."))
    message_send(page, "Say something.")
    turn_wait_done(page)
    page.fill("[data-testid=input]", "Half a thought I keep for later")
    page.click("[data-testid=regenerate]")
    wait_until(page, "() => [...document.querySelectorAll('#messages .msg.assistant .text')]"
               ".some((el) => el.textContent.includes('Second answer.'))")
    turn_wait_done(page)
    assert _reloaded(page) == "Half a thought I keep for later"
