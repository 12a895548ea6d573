"""The pages around the chat at phone width: nothing may stick out past the right edge (the
page hides horizontal overflow, so whatever sticks out is cut off and unreachable), and the
history manager's rows read top to bottom at any width. Reads the seeded demo instance;
renames and archives a chat of its own."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    PHONE,
    Server,
    browser_missing_reason,
    own_context_page,
    screenshot_take,
    topnav_open,
    wait_until,
)
from tests.e2e.page_api import api_call

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

CUT_OFF = """() => [...document.querySelectorAll('main *')]
  .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.right > innerWidth + 1; })
  .slice(0, 5).map(e => `${e.tagName}.${e.className} ends at ${Math.round(e.getBoundingClientRect().right)}`)"""


@pytest.fixture
def scriptless_phone(server: Server) -> Iterator[Page]:
    yield from own_context_page(server, viewport=PHONE, is_mobile=True, has_touch=True,
                                java_script_enabled=False)


def test_a_phone_without_javascript_reaches_the_story_drawer_and_the_menu(
        scriptless_phone: Page, server: Server) -> None:
    """☰ Story, ≡ Menu and the language are wired by scripts: without them a phone could open
    neither the drawer (outline, memory, export) nor the top bar's links, nor switch language,
    and the chat opened at its oldest shown line."""
    from playwright.sync_api import expect  # with the browser, not when it is missing

    page = scriptless_phone
    page.goto(f"{server.url}/instances/inst_001/")
    assert page.get_by_test_id("needs-script").is_visible()  # what needs a script
    # The chat opens at its newest line, as with scripts (it opened at the oldest shown), and
    # Send posts (tests/pages/test_no_script_send.py); Stop and ✍ need the script.
    expect(page.get_by_test_id("message").last).to_be_in_viewport()
    expect(page.get_by_test_id("message").first).not_to_be_in_viewport()
    assert page.get_by_test_id("send-post").is_enabled()
    for script_only in ("send", "stop", "impersonate"):
        assert not page.get_by_test_id(script_only).is_visible()
    assert not page.locator("#outline-card").is_visible()
    page.get_by_test_id("drawer-link").click()
    expect(page.locator("#outline-card")).to_be_visible()  # once the drawer has slid in
    screenshot_take(page, "40_phone_no_script_drawer", full_page=False)
    page.get_by_test_id("drawer-close-link").click()
    expect(page.locator("#outline-card")).to_be_hidden()
    assert page.locator(".topbar nav a", has_text="Library").is_visible()
    page.select_option("[data-testid=language]", "zh-hans")
    page.get_by_test_id("language-go").click()
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    page.select_option("[data-testid=language]", "en")
    page.get_by_test_id("language-go").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    # A message's buttons and ⋯ menu run in the script: its link opens a page of forms.
    last = page.get_by_test_id("message").last
    assert not last.get_by_test_id("more").is_visible()
    last.get_by_test_id("message-changes").click()
    expect(page.get_by_test_id("message-actions")).to_be_visible()
    page.locator("[data-testid=message-actions] details.edit > summary").click()
    assert page.locator("[data-testid=message-actions] textarea[name=text]").is_visible()
    for testid in ("hide", "delete", "branch"):
        assert page.locator(f"[data-testid=message-actions] [data-testid={testid}]").is_visible()


@pytest.mark.parametrize("path", ["/instances/inst_001/history/", "/instances/inst_001/persona/",
                                  "/library/backgrounds/bg_wasteland/"])
def test_nothing_is_cut_off_at_phone_width(page: Page, server: Server, path: str) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{server.url}{path}")
    page.wait_for_selector("main .card")
    screenshot_take(page, "40_phone" + path.replace("/", "_").rstrip("_"))
    assert page.evaluate(CUT_OFF) == []
    assert page.js_errors == []


def test_history_rows_put_the_text_above_its_buttons(page: Page, server: Server) -> None:
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{server.url}/instances/inst_001/history/")
    for row in page.locator(".history-row").all()[:6]:
        text, actions = row.locator(".text").first.bounding_box(), row.locator(".actions").bounding_box()
        assert actions["y"] >= text["y"] + text["height"] - 1


def test_rename_archive_and_restore_at_phone_width(page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    page.on("dialog", lambda dialog: dialog.accept())
    # A chat of its own: the demo's is shared by the modules on the shared server.
    chat = api_call(page, server, "POST", "/instances", {"character_id": "char_alserqi"})["instance_id"]
    page.goto(f"{server.url}/")
    item = page.locator(".instance-item", has=page.locator(f'a[href="/instances/{chat}/"]'))
    item.get_by_test_id("instance-manage-toggle").click()
    screenshot_take(page, "41_phone_manage")
    assert page.evaluate(CUT_OFF) == []
    item.get_by_test_id("instance-name").fill("Phone run")
    item.get_by_test_id("instance-rename").click()
    page.wait_for_url(f"{server.url}/")
    assert server.instance_state(chat)["name"] == "Phone run"
    item = page.locator(".instance-item", has=page.locator(f'a[href="/instances/{chat}/"]'))
    assert "Phone run" in item.inner_text()

    item.get_by_test_id("instance-manage-toggle").click()
    item.get_by_test_id("instance-archive").click()
    archived = page.get_by_test_id("archived-instances")
    archived.wait_for()
    screenshot_take(page, "41_phone_archived")
    assert page.evaluate(CUT_OFF) == []
    assert server.instance_state(chat)["archived"] is True
    archived.get_by_test_id("instance-restore").click()
    page.wait_for_load_state()
    assert page.get_by_test_id("archived-instances").count() == 0
    assert server.instance_state(chat)["archived"] is False
    assert page.js_errors == []


def test_the_language_switch_translates_settings_and_library_at_phone_width(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    asked: list[str] = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.goto(f"{server.url}/settings/")
    assert page.inner_text("main h1") == "Settings"
    topnav_open(page)
    page.select_option("[data-testid=language]", "zh-hans")
    wait_until(page, "() => document.querySelector('main h1').textContent.trim() === '设置'")
    page.get_by_test_id("reset-thresholds").click()  # dismissed: nothing is reset
    assert asked and asked[-1].startswith("恢复本节（阈值）的默认设置？")
    screenshot_take(page, "42_phone_settings_zh", full_page=False)
    assert page.evaluate(CUT_OFF) == []
    page.goto(f"{server.url}/library/")
    assert "导入角色卡" in page.inner_text("main") and "Characters" not in page.inner_text("main")
    screenshot_take(page, "43_phone_library_zh", full_page=False)
    assert page.evaluate(CUT_OFF) == []
    # "+ New lorebook" and "Your regex scripts" touched: a thumb's gap stands between them
    button, link = (page.get_by_test_id(t).bounding_box()
                    for t in ("lorebook-new", "regex-scripts-link"))
    assert (link["x"] - (button["x"] + button["width"]) >= 12
            or link["y"] - (button["y"] + button["height"]) >= 6), (button, link)
    page.goto(f"{server.url}/settings/")
    topnav_open(page)
    page.select_option("[data-testid=language]", "en")
    wait_until(page, "() => document.querySelector('main h1').textContent.trim() === "
               "'Settings'")
    assert re.search(r"[\u3400-\u9fff]", page.inner_text("main")) is None
    assert page.js_errors == []
