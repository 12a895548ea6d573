"""Group conversations in a real browser: a scene with two characters started from the home page
(tick them, pick a background and who answers) where both answer, and the history manager's
"Related conversations" tab (pick a participant, see its conversations, open one)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    SIZES,
    Server,
    message_send,
    no_sideways_scroll,
    screenshot_take,
    turn_wait_done,
    wait_until,
)
from tests.e2e.page_api import (
    api_call,
    drawer_open,
    scout_make,
    sockets_cut,
    sockets_held,
    sockets_release,
)
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


@SIZES
def test_the_home_page_starts_a_scene_with_two_characters_who_both_answer(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    second = scout_make(page, server, f"Wren{size['width']}")
    page.goto(f"{server.url}/")
    form = page.locator("[data-testid=start-group]")
    # Ticked out of the page's order: they answer in the order they were ticked (qa4 G16).
    form.locator(f"input[name=character_ids][value={second}]").check()
    form.locator("input[name=character_ids][value=char_alserqi]").check()
    form.locator("select[name=background_id]").select_option("bg_wasteland")
    form.locator("select[name=reply_order]").select_option("everyone")
    no_sideways_scroll(page)
    screenshot_take(page, f"group_start_home_{size['width']}")
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
    instance_id = page.url.rstrip("/").rsplit("/", 1)[1]

    server.stub.script(Reply("Wren checks the road."), Reply("Alserqi counts the ammo."))
    message_send(page, "We leave at dawn.")
    turn_wait_done(page)

    replies = page.locator("[data-testid=message][data-role=assistant]")
    texts = " ".join(replies.all_inner_texts())
    assert "Alserqi counts the ammo." in texts and "Wren checks the road." in texts
    assert page.locator(f"[data-member={second}]").count() == 1
    lines = server.session_lines(instance_id)
    assert [line.get("speaker") for line in lines if line.get("role") == "assistant"
            and not line.get("greeting")] == [second, "char_alserqi"]
    screenshot_take(page, f"group_start_chat_{size['width']}")
    assert not page.js_errors


def test_the_related_conversations_tab_lists_a_participants_conversations_and_opens_one(
        page: Page, server: Server) -> None:
    second = scout_make(page, server, "Mara")
    together = api_call(page, server, "POST", "/instances", {
        "character_ids": ["char_alserqi", second], "background_id": "bg_wasteland"})["instance_id"]
    alone = api_call(page, server, "POST", "/instances", {"character_id": second})["instance_id"]

    page.goto(f"{server.url}/instances/{together}/history/")
    tab = page.locator("[data-testid=related-conversations]")
    tab.locator("select[name=participant]").select_option(second)
    wait_until(page,
        "id => document.querySelector('[data-testid=related-conversations]')"
        ".innerHTML.includes('/instances/' + id + '/')", arg=alone)
    links = tab.locator("ul a:not([href*=history])")
    listed = [href.rstrip("/").rsplit("/", 1)[1]
              for href in (links.nth(i).get_attribute("href") for i in range(links.count()))]
    assert together in listed and alone in listed
    screenshot_take(page, "group_related_tab")

    tab.locator(f"a[href='/instances/{alone}/']").click()
    page.wait_for_url(f"{server.url}/instances/{alone}/")
    assert not page.js_errors


def _aside_open(page: Page, server: Server, name: str, *, held: bool = False) -> None:
    """A new chat of the demo character and a new one called `name`, open with its aside panel
    on `name`; with `held`, the page's sockets wait for `sockets_release`."""
    second = scout_make(page, server, name)
    instance_id = api_call(page, server, "POST", "/instances", {
        "character_ids": ["char_alserqi", second]})["instance_id"]
    if held:
        sockets_held(page)
    page.goto(f"{server.url}/instances/{instance_id}/")
    drawer_open(page)
    page.locator("[data-testid=aside-card] summary").click()
    page.select_option("[data-testid=aside-speaker]", second)


def test_the_aside_panels_stop_button_ends_a_long_answer(page: Page, server: Server) -> None:
    _aside_open(page, server, "Ivo")
    page.fill("[data-testid=aside-input]", "Tell me everything.")
    server.stub.script(Reply("Once upon a time, " * 200, chunk_size=4, delay=0.05))
    page.click("[data-testid=aside-send]")
    wait_until(page,
        "() => document.querySelector('#aside-log').textContent.includes('Once upon')")
    page.click("[data-testid=aside-stop]")
    wait_until(page,
        "() => !document.querySelector('[data-testid=aside-send]').disabled")
    assert page.locator("[data-testid=aside-stop]").is_hidden()
    assert "stopped" in page.locator("#aside-status").inner_text()
    assert page.locator("#aside-log").inner_text().count("Once upon a time") < 200
    assert not page.js_errors


def test_an_aside_asked_before_the_page_is_connected_goes_once_it_is(
        page: Page, server: Server) -> None:
    _aside_open(page, server, "Tam", held=True)
    page.fill("[data-testid=aside-input]", "Are we safe here?")
    asked = len(server.stub.requests)
    server.stub.script(Reply("Safe enough for tonight."))
    page.click("[data-testid=aside-send]")
    log = page.locator("#aside-log")
    assert "Are we safe here?" in log.inner_text()
    assert "will be sent when the connection is back" in page.locator("#aside-status").inner_text()
    assert page.locator("[data-testid=aside-send]").is_disabled()
    assert len(server.stub.requests) == asked

    sockets_release(page)
    wait_until(page, "() => document.querySelector('#aside-log').textContent"
               ".includes('Safe enough for tonight.')")
    wait_until(page, "() => !document.querySelector('[data-testid=aside-send]').disabled")
    assert "connection" not in page.locator("#aside-status").inner_text()
    assert log.inner_text().count("Are we safe here?") == 1
    assert not page.js_errors


def test_an_aside_cut_by_a_lost_connection_can_be_asked_again(page: Page, server: Server) -> None:
    _aside_open(page, server, "Bex", held=True)
    sockets_release(page)
    page.fill("[data-testid=aside-input]", "Tell me a long one.")
    server.stub.script(Reply("Long ago, " * 60, chunk_size=4, delay=0.03))
    page.click("[data-testid=aside-send]")
    wait_until(page, "() => document.querySelector('#aside-log').textContent.includes('Long ago')")
    sockets_cut(page)
    wait_until(page, "() => !document.querySelector('[data-testid=aside-send]').disabled")
    assert page.locator("[data-testid=aside-stop]").is_hidden()
    assert "Not connected" in page.locator("#aside-status").inner_text()
    assert "Long ago" in page.locator("#aside-log").inner_text()
    assert not page.js_errors
