"""The chat page's aside panel in a real browser, at phone and laptop size: a quick word with
one character of a two-character story, answered in the side panel while the story's file
stays as it was. Screenshots go to tests/e2e/screenshots/."""

from __future__ import annotations

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
from tests.e2e.page_api import api_call, drawer_open, members_card_open
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


@SIZES
def test_an_aside_is_answered_in_the_side_panel_and_not_in_the_story(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    character_id = f"char_wren_side{size['width']}"
    api_call(page, server, "POST", "/characters", {
        "character_id": character_id, "name": "Wren", "base_persona": "A quiet scout."})
    created = api_call(page, server, "POST", "/instances", {
        "character_ids": ["char_alserqi", character_id], "reply_order": "everyone",
        "background_id": "bg_wasteland"})
    instance_id = created["instance_id"]
    page.goto(f"{server.url}/instances/{instance_id}/")
    server.stub.script(Reply("Alserqi nods."), Reply("Wren watches the road."))
    message_send(page, "We leave at dawn.")
    turn_wait_done(page)
    story = server.session_lines(instance_id)
    bubbles = page.locator("[data-testid=message]").count()

    drawer_open(page)
    page.locator("[data-testid=aside-card] summary").click()
    page.fill("[data-testid=aside-input]", "Just between us: are you afraid?")
    # A reload while typing keeps the question (it was lost), its card opened on it.
    page.reload()
    drawer_open(page)
    assert page.get_by_test_id("aside-input").input_value() == "Just between us: are you afraid?"
    page.select_option("[data-testid=aside-speaker]", character_id)
    server.stub.script(Reply("A little. Don't tell him."))
    page.click("[data-testid=aside-send]")
    wait_until(page,   # the answer is whole and the panel ready for the next aside
        "() => document.querySelector('#aside-log').textContent.includes(\"Don't tell him.\")"
        " && !document.querySelector('[data-testid=aside-send]').disabled")
    log = page.locator("#aside-log").inner_text()
    assert "Just between us" in log and "Wren: A little. Don't tell him." in log
    assert page.evaluate("() => Object.keys(localStorage)"
                         ".filter(k => k.startsWith('personalab-draft-aside-'))") == []
    assert server.session_lines(instance_id) == story
    assert page.locator("[data-testid=message]").count() == bubbles
    assert "A quiet scout." in server.stub.requests[-1]["messages"][0]["content"]
    no_sideways_scroll(page)
    screenshot_take(page, f"46_aside_{size['width']}", full_page=False)
    assert page.js_errors == []


def test_a_member_added_in_the_drawer_can_be_spoken_to_aside_without_a_reload(
        page: Page, server: Server) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    api_call(page, server, "POST", "/characters", {
        "character_id": "char_wren_aside", "name": "Wren Aside", "base_persona": "A quiet scout."})
    created = api_call(page, server, "POST", "/instances", {"character_id": "char_alserqi",
                                                       "background_id": "bg_wasteland"})
    page.goto(f"{server.url}/instances/{created['instance_id']}/")
    card = members_card_open(page)
    card.locator("select[name=character_id]").select_option("char_wren_aside")
    card.locator("button[type=submit]", has_text="Add").click()
    wait_until(page,
        "() => [...document.querySelectorAll('[data-testid=aside-speaker] option')]"
        ".some(o => o.value === 'char_wren_aside')")
    assert page.locator("[data-testid=aside-speaker]").count() == 1
    assert page.js_errors == []
