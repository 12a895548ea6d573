"""What a newcomer's second walk through an evening and an author's hour still met (issue 33,
round 12): a member who left a group kept its lines but they spoke in another's name; reloading
the chat import's check page showed a blank page. Screenshots go to tests/e2e/screenshots/."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    browser_missing_reason,
    screenshot_take,
)
from tests.e2e.test_chat_extras import _api

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def _character(page: Page, server: Server, name: str) -> str:
    return _api(page, server, "POST", "/characters", {
        "name": name, "base_persona": f"{name} keeps the inn.",
        "greeting": "*{{char}} waves.* I am {{char}}."})["character_id"]


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_member_who_left_the_story_still_greets_under_its_own_name(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    tag = f"L{size['width']}"
    names = [f"{name}{tag}" for name in ("Ann", "Bob", "Cy")]
    ids = [_character(page, server, name) for name in names]
    instance_id = _api(page, server, "POST", "/instances", {"character_ids": ids})["instance_id"]
    page.goto(f"{server.url}/instances/{instance_id}/")
    toggle = page.get_by_test_id("drawer-toggle")
    if toggle.is_visible():
        toggle.click()
    card = page.get_by_test_id("members-card")
    card.locator("summary").click()
    card.locator(f"li[data-member='{ids[2]}'] button[value=remove]").click()
    page.locator(f"#members-card li[data-member='{ids[2]}']").wait_for(state="detached")
    page.reload()
    greetings = page.locator("[data-testid=message][data-role=assistant]").all_inner_texts()
    screenshot_take(page, f"w12_member_left_{tag}", full_page=False)
    for name in names:
        assert sum(f"I am {name}." in text for text in greetings) == 1, greetings
    assert page.js_errors == []
