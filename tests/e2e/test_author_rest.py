"""The author pages call the REST API through the shared module (static/rest.js) as the chat
page does (issue 33): a refused change or a server that cannot be reached says so in the page's
language, in the editors' "Remove the picture" and in the prompt blocks (settings page and chat
drawer); a file that is not a preset says so too, and a block's place and why a part of the
preset was not imported read in 中文."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.chat.st_presets import st_preset
from tests.e2e.conftest import Server, browser_missing_reason, screenshot_take
from tests.e2e.page_api import api_call
from tests.png_files import png_bytes

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

REFUSED = "服务器拒绝了此操作（错误 502）。"
UNREACHABLE = "无法连接到服务器；连接恢复后请重试。"


@pytest.fixture
def page_zh(page: Page, server: Server) -> Iterator[Page]:
    """The module's page with 中文 chosen, English again after the test."""
    page.context.add_cookies([{"name": "django_language", "value": "zh-hans", "url": server.url}])
    try:
        yield page
    finally:
        page.context.add_cookies([{"name": "django_language", "value": "en", "url": server.url}])


def _refused(route: Route) -> None:
    if route.request.method == "GET":
        route.continue_()
    else:
        route.fulfill(status=502, body="<html>Bad gateway</html>", content_type="text/html")


def _unreachable(route: Route) -> None:
    if route.request.method == "GET":
        route.continue_()
    else:
        route.abort("connectionrefused")


def test_removing_a_picture_says_a_refusal_and_an_outage_in_chinese(page_zh: Page,
                                                                     server: Server) -> None:
    page = page_zh
    character_id = "char_picture_rest"
    if not page.request.get(f"{server.url}/api/v1/characters/{character_id}").ok:
        api_call(page, server, "POST", "/characters", {"character_id": character_id,
                                                    "name": "Rest Test", "base_persona": "."})
    (server.data / "characters" / character_id / "avatar.png").write_bytes(png_bytes(2, 3))
    page.goto(f"{server.url}/library/characters/{character_id}/")
    button = page.locator("[data-testid=picture-remove-button]")
    status = page.locator("[data-testid=picture-remove-status]")
    for handler, said in ((_refused, REFUSED), (_unreachable, UNREACHABLE)):
        page.route(re.compile(r".*/picture$"), handler)
        button.click()
        status.filter(has_text=said).wait_for()
        assert button.is_enabled()
        page.unroute(re.compile(r".*/picture$"))
    assert page.locator("img[data-role=avatar-now]").count() == 1
    screenshot_take(page, "author_rest_picture_refused_zh", full_page=False)
    button.click()
    page.locator("img[data-role=avatar-now]").wait_for(state="detached")
    assert not list((server.data / "characters" / character_id).glob("avatar.*"))
    assert page.js_errors == []


def test_prompt_blocks_say_a_refusal_an_outage_and_a_bad_file_in_chinese(
        page_zh: Page, server: Server, tmp_path) -> None:
    page = page_zh
    page.goto(f"{server.url}/settings/")
    card = page.locator("[data-testid=account-prompt-blocks] [data-testid=prompt-blocks]")
    error = card.locator("[data-role=error]")
    preset = tmp_path / "grim.json"
    preset.write_text(json.dumps(st_preset()))
    card.locator("[data-role=preset-file]").set_input_files(str(preset))
    box = card.locator("li", has_text="Whisper").locator("input")
    # The import's own read of the blocks answered (the page's first read can list them
    # before it, and a switch clicked then had its refusal cleared by that read's answer).
    card.locator("[data-testid=preset-imported]").wait_for()
    assert "(深度 1, 用户)" in card.locator("li", has_text="Whisper").inner_text()
    assert "charPersonality: 预设中已关闭" in card.locator("[data-role=skipped]").inner_text()
    was = box.is_checked()
    for handler, said in ((_refused, REFUSED), (_unreachable, UNREACHABLE)):
        page.route(re.compile(r".*/prompt_manager$"), handler)
        box.click()
        error.filter(has_text=said).wait_for()
        assert box.is_checked() == was  # the switch goes back: nothing was saved
        page.unroute(re.compile(r".*/prompt_manager$"))
    screenshot_take(page, "author_rest_blocks_refused_zh", full_page=False)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    card.locator("[data-role=preset-file]").set_input_files(str(broken))
    error.filter(has_text="此文件不是 SillyTavern 预设").wait_for()
    assert page.js_errors == []
