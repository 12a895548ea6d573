"""The next message typed while a reply streams is a draft like any other: it survives a
reload (or a visit to another page) after the reply ends. The end of a reply cleared the
chat's draft whatever it held, so only the message just sent was meant to go."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.browser import chromium_shared
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


DRAFTS = ("() => Object.keys(localStorage).filter((k) => k.startsWith('personalab-draft-'))"
          ".concat(Object.keys(sessionStorage).filter((k) => k.startsWith('personalab-place-')))")


def test_a_draft_is_the_accounts_and_goes_at_log_out(server: Server) -> None:
    """The draft was kept under the chat's id alone, and stayed after log out: staff opening
    that chat in the same browser found the player's unsent words in their own box."""
    context = chromium_shared().new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()  # its own login: logging out ends no other test's session
        page.goto(f"{server.url}/login/")
        page.fill("input[name=username]", "admin")
        page.fill("input[name=password]", server.password)
        page.click("button[type=submit]")
        page.wait_for_url(f"{server.url}/")
        instance = instance_new(page, server)
        page.fill("[data-testid=input]", "A plan nobody else should read")
        account = page.get_attribute("#chat", "data-account")
        assert account and page.evaluate(DRAFTS) == [f"personalab-draft-{account}-{instance}"]
        with network_quiet(page):
            page.evaluate("document.querySelector('form[data-forget-drafts]').requestSubmit()")
        page.wait_for_url(f"{server.url}/login/**")
        assert page.evaluate(DRAFTS) == []
    finally:
        context.close()
