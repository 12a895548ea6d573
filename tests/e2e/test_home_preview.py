"""The home page's row of a chat on a phone (issue 33, the walk's worst thing 2): its newest
line was cut to about 20 characters at 390 px; it now shows who said it and up to two lines of
what they said, under the chat's name."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    SIZES,
    Server,
    browser_missing_reason,
    instance_new,
    message_send,
    no_sideways_scroll,
    screenshot_take,
    turn_wait_done,
)
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

REPLY = ("The caravan leaves at dawn, and the desert does not wait for anyone who sleeps late; "
         "bring water, a cloak and your best story for the fire tonight.")


@SIZES
def test_the_home_row_shows_who_spoke_last_and_two_lines_of_it(page: Page, server: Server,
                                                                size: dict) -> None:
    page.set_viewport_size(DESKTOP)
    instance_id = instance_new(page, server)
    server.stub.script(Reply(REPLY))
    message_send(page, "When do we leave?")
    turn_wait_done(page)
    page.set_viewport_size(size)
    page.goto(f"{server.url}/")
    row = page.locator(".instance-item", has=page.locator(f"a[href='/instances/{instance_id}/']"))
    preview = row.get_by_test_id("instance-last")
    for scheme in ("light", "dark"):  # the colours follow the scheme live
        page.emulate_media(color_scheme=scheme)
        screenshot_take(page, f"home_preview_{size['width']}_{scheme}", full_page=False)
    no_sideways_scroll(page)
    assert preview.locator("strong").inner_text() == "Alserqi:"
    assert row.locator("a strong").first.inner_text() == "Alserqi"  # the chat by name
    sizes = row.evaluate("""r => [':scope > time', '[data-testid=instance-started]',
        '[data-testid=instance-started] time']
        .map(s => getComputedStyle(r.querySelector(s)).fontSize)""")
    assert len(set(sizes)) == 1, sizes  # its times as large as its other small print
    line = float(preview.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)"))
    height = preview.bounding_box()["height"]
    if size == PHONE:  # the reply is longer than two lines there: two lines, then cut
        assert 1.8 * line <= height <= 2.2 * line, (height, line)
    else:
        assert height <= 2.2 * line, (height, line)
    # what shows is the start of the reply, not a few words of it
    shown = preview.evaluate("""e => { const r = document.createRange(); r.selectNodeContents(e);
        const box = e.getBoundingClientRect(); let n = 0;
        for (const rect of r.getClientRects()) if (rect.bottom <= box.bottom + 1) n += rect.width;
        return n; }""")
    assert shown >= 1.6 * preview.bounding_box()["width"] or size == DESKTOP, shown
    assert page.js_errors == []
