"""The chat page's socket closed by the server for its account's load (4429): the next try
waits the longest, so a page never spends the budget that was to free. (A connect refused at
the handshake never opens, and the wait keeps doubling: tests/chat/test_consumer.py checks the
server refuses before accepting.)"""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import (
    Server,
    browser_missing_reason,
    context_new,
    instance_new,
    login_ensure,
)

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def test_a_socket_closed_for_too_many_waits_the_longest_before_it_tries_again(
        server: Server) -> None:
    """A socket closed with 4429 (its account's frames, chat/live/frame_checks.py) had opened,
    so the page's wait was back at 1 s: each quick try spent the budget that was to free."""
    from playwright.sync_api import expect  # with the browser, not when it is missing

    context = context_new(server)  # its own: the route stays on the context
    try:
        login_ensure(server, context)
        tries = []
        context.route_web_socket(re.compile(r"/ws/chat/"),
                                 lambda ws: tries.append(ws.url) or ws.close(code=4429))
        page = context.new_page()
        instance_new(page, server)
        expect(page.get_by_test_id("connection")).to_contain_text("retrying in 5 s")
        assert len(tries) == 1  # the longest wait at once, not after 1, 2 and 4 s of tries
    finally:
        context.close()
