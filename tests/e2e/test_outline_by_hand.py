"""The author moves the story by hand from the chat's outline: "go here" skips to (or goes back
to) a point, "mark done" finishes the current one; the ☰ Story count (and a held beat's ⚓) and
the files follow, the words are Chinese on a Chinese page, and a point the outline lost since the
page showed it is refused in words, nothing moved."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from tests.e2e.conftest import PHONE, Server, csrf_token, own_context_page, screenshot_take
from tests.e2e.page_api import api_call

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def _chat(page: Page, server: Server, name: str) -> str:
    page.goto(server.url + "/library/")
    character = api_call(page, server, "POST", "/characters",
                     {"name": f"Guide {name}", "base_persona": "A guide."})["character_id"]
    background = api_call(page, server, "POST", "/backgrounds", {
        "name": f"Isles {name}", "world_setting": "Floating isles.",
        "story_outline": ["Arrive", "Meet the keeper", "Cross the bridge", "Find the map",
                          "Sail home"]})["background_id"]
    return api_call(page, server, "POST", "/instances",
                {"character_id": character, "background_id": background})["instance_id"]


def _statuses(page: Page) -> list[str]:
    return page.locator("#outline li").evaluate_all(
        "rows => rows.map(row => row.className.match(/status-(\\w+)/)[1])")


@pytest.fixture
def zh_phone(server: Server) -> Iterator[Page]:
    yield from own_context_page(server, language="zh-hans", viewport=PHONE, has_touch=True,
                                is_mobile=True)


def test_go_here_skips_to_a_point_and_mark_done_finishes_it(page: Page, server: Server) -> None:
    instance_id = _chat(page, server, "skip")
    page.goto(f"{server.url}/instances/{instance_id}/")
    page.click("[data-testid=outline-go][aria-label='go here (point 3)']")
    page.locator("#outline li.current:nth-child(3)").wait_for()
    assert _statuses(page) == ["completed", "completed", "in_progress", "pending", "pending"]
    assert server.instance_state(instance_id)["plot_state"] == {
        "current_plot_index": 3, "current_status": "in_progress", "no_update_count": 0}
    assert page.locator("[data-testid=story-progress]").text_content() == "2/5 · 3 in progress"
    page.click("[data-testid=outline-done]")
    page.locator("#outline li.current.status-completed:nth-child(3)").wait_for()
    assert "next goal" in page.locator("#outline li:nth-child(4)").inner_text()
    page.click("[data-testid=outline-go][aria-label='go here (point 2)']")
    page.locator("#outline li.current:nth-child(2)").wait_for()
    assert _statuses(page) == ["completed", "in_progress", "pending", "pending", "pending"]
    page.reload()
    assert _statuses(page) == ["completed", "in_progress", "pending", "pending", "pending"]


def test_a_point_the_outline_lost_is_refused_in_chinese_and_nothing_moves(
        zh_phone: Page, server: Server) -> None:
    page = zh_phone
    instance_id = _chat(page, server, "lost")
    page.goto(f"{server.url}/instances/{instance_id}/")
    page.click("[data-testid=drawer-toggle]")
    go = page.locator("[data-testid=outline-go][aria-label='跳到这里（第 5 点）']")
    go.wait_for()  # the drawer opened
    assert go.inner_text() == "跳到这里"
    assert page.locator("[data-testid=outline-done]").inner_text() == "标为完成"
    # a thumb's target on a touch screen, as the rest of an evening's controls
    heights = page.locator("#outline button").evaluate_all(
        "buttons => buttons.map(b => b.getBoundingClientRect().height)")
    assert heights and min(heights) >= 44, heights
    screenshot_take(page, "outline_by_hand_zh_390")
    # A held beat shows on the phone's ☰ Story, and a release from another device reaches it.
    page.click("[data-testid=plot-hold]")
    held = page.locator("[data-testid=story-held]")
    held.wait_for()
    assert held.text_content() == "⚓这一幕停住了"
    api_call(page, server, "PUT", f"/instances/{instance_id}/plot_hold", {"held": False})
    held.wait_for(state="hidden")
    background = server.instance_state(instance_id)["background_id"]
    # another tab shortens the outline to four points
    page.request.post(f"{server.url}/library/backgrounds/{background}/outline",
                      form={"action": "delete", "position": "5"},
                      headers={"X-CSRFToken": csrf_token(page, server)})
    before = server.instance_state(instance_id)["plot_state"]
    go.click()
    refusal = page.locator("[data-testid=outline-refusal]")
    refusal.wait_for()
    assert refusal.inner_text().startswith("剧情没有移动")
    assert page.locator("#outline li").count() == 4
    assert server.instance_state(instance_id)["plot_state"] == before
