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


def test_a_line_sent_from_a_tab_following_another_tabs_reply_comes_back_to_its_box(
        page: Page, server: Server) -> None:
    """A tab that follows another tab's reply has Send on; the server refuses the line as busy,
    and that reply's next token took the line's draft: the box was empty, no draft was kept and
    the file had nothing of it."""
    instance_id = instance_new(page, server)
    server.stub.script(Reply("The tide is turning under the pier.", chunk_size=3,
                             held_after=3))
    follower = page.context.new_page()
    try:
        with network_quiet(follower):
            follower.goto(f"{server.url}/instances/{instance_id}/")
        message_send(page, "Where are we sailing?")
        wait_until(follower, STREAMING)
        follower.fill("[data-testid=input]", "Words from the second tab.")
        follower.press("[data-testid=input]", "Enter")
        wait_until(follower, "() => document.getElementById('status').textContent !== ''")
        server.stub.release()
        turn_wait_done(follower)
        assert follower.input_value("[data-testid=input]") == "Words from the second tab."
        assert follower.evaluate(  # the draft a reload or another page brings back
            "(id) => Object.entries(localStorage).filter(([k]) => k.startsWith("
            "'personalab-draft-') && k.endsWith(`-${id}`)).map(([, v]) => v)",
            instance_id) == ["Words from the second tab."]
    finally:
        follower.close()


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
