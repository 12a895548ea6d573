"""A reply's actions on a laptop read as one line: the Prompt link's word sat 4 px above the
words of the buttons beside it (a block link's text starts at its top, a button's is centred)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import DESKTOP, Server, instance_new, message_send, turn_wait_done

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

WORD_MIDDLES = """() => { const reply = [...document.querySelectorAll('#messages .msg.assistant')]
  .at(-1);
  const middle = (el) => { const r = document.createRange(); r.selectNodeContents(el);
    const box = r.getBoundingClientRect(); return box.top + box.height / 2; };
  return [middle(reply.querySelector('[data-testid=info]')),
          middle(reply.querySelector('a[data-trace]'))]; }"""


def test_the_prompt_link_lines_up_with_the_reply_buttons(page: Page, server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    instance_new(page, server)
    message_send(page, "Hello there.")
    turn_wait_done(page)
    page.wait_for_selector("#messages .msg.assistant a[data-trace]")
    info, prompt = page.evaluate(WORD_MIDDLES)
    assert abs(info - prompt) < 1
