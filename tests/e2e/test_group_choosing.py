"""A group round's streaming bubble is never a nameless "…": until the server has picked who
answers it says "Choosing who answers…", then it carries the speaker's name (issue 33)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import PHONE, Server, browser_missing_reason, message_send, turn_wait_done
from tests.e2e.page_api import api_call
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

# Every name the reply bubble ever shows, recorded as the page writes it.
WATCH = """() => { window.__names = [];
  const box = document.getElementById('messages');
  const seen = () => { const b = [...box.querySelectorAll('.msg.assistant.pending')].pop();
    if (b) { const n = b.querySelector('.who strong').textContent;
             if (window.__names[window.__names.length - 1] !== n) window.__names.push(n); } };
  new MutationObserver(seen).observe(box, {childList: true, subtree: true, characterData: true}); }"""

# Whether the chat was being read from the file each time Send came back on.
READING_AT_SEND = """() => { window.__reading = [];
  const send = document.getElementById('send-button');
  new MutationObserver(() => { if (!send.disabled) window.__reading.push(
      document.getElementById('messages').getAttribute('aria-busy') === 'true'); })
    .observe(send, {attributes: true, attributeFilter: ['disabled']}); }"""


def test_a_group_bubble_says_who_is_being_chosen_then_names_the_speaker(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    api_call(page, server, "POST", "/characters", {"character_id": "char_ivy", "name": "Ivy",
                                                "base_persona": "Ivy, a pilot."})
    group = api_call(page, server, "POST", "/instances", {
        "character_ids": ["char_ivy", "char_alserqi"], "reply_order": "everyone"})["instance_id"]
    page.goto(f"{server.url}/instances/{group}/")
    server.stub.script(Reply("Ready when you are.", chunk_size=4, delay=0.02),
                       Reply("Then we go.", chunk_size=4, delay=0.02))
    page.evaluate(WATCH)
    page.evaluate(READING_AT_SEND)
    message_send(page, "Are we ready?")
    turn_wait_done(page)
    # Send is back only once the round's lines are read: a line sent quicker was wiped by
    # that read (the group evening of 2026-12-02)
    assert page.evaluate("() => window.__reading") == [False]
    names = page.evaluate("() => window.__names")
    assert "…" not in names and "" not in names, names
    assert names[0] in ("Choosing who answers…", "Ivy"), names
    assert "Ivy" in names and "Alserqi" in names, names
    assert page.js_errors == []
