"""Pages a 中文 player reads wholly in Chinese (issue 33). The chat drawer, the regex scripts and
settings pages and a reloaded import check page: none of the sentences a player met there in
English is left. (The prompt inspector is server HTML: tests/pages/test_trace_notes_in_chinese.py
reads it wholly in Chinese after a full turn.) Screenshots go to tests/e2e/screenshots/."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from tests.chat.st_presets import st_preset
from tests.e2e.conftest import (
    PHONE,
    Server,
    browser_missing_reason,
    message_send,
    screenshot_take,
    turn_wait_done,
)
from tests.e2e.page_api import api_call, character_make, drawer_open
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

# Sentences a 中文 player once met in English, by the page that shows them.
LEFT_IN_ENGLISH = {
    "chat": ["Context size (tokens, reply included)", "Memory share of the window",
             "model's, or 16384", "Reset to my default blocks", "group_nudge",
             ", system)"],  # a prompt block's role
    "/library/regex-scripts/": ["They run in every chat of yours", "Scripts (JSON list"],
    "/settings/": ["Prompt post-processing, chat completion only"],
    "/chats/import": ["choose the chat file again"],
}


def test_a_chinese_player_reads_the_chat_drawer_and_the_regex_and_settings_pages_in_chinese(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    page.context.add_cookies([{"name": "django_language", "value": "zh-hans", "url": server.url}])
    try:
        ids = [character_make(page, server, name) for name in ("Eli", "Fay")]
        instance_id = api_call(page, server, "POST", "/instances",
                           {"character_ids": ids})["instance_id"]
        # prompt blocks to list, each with its role ("系统", not "system")
        api_call(page, server, "POST", f"/instances/{instance_id}/generation/preset", st_preset())
        server.stub.script(Reply("Hello."), Reply("Hi."))
        page.goto(f"{server.url}/instances/{instance_id}/")
        message_send(page, "你好")
        turn_wait_done(page)
        page.locator("#budget small").wait_for(state="attached")  # folded away while typing
        # the prompt's size as the inspector says it, its digits grouped: "1,234 / 16,384 个 token"
        assert re.fullmatch(r"[\d,]+ / \d{1,3}(,\d{3})+ 个 token",
                            page.locator("#budget small").text_content().strip())
        drawer_open(page)
        for fold in page.locator("#drawer details").all():
            fold.evaluate("d => d.open = true")
        shown = {"chat": page.locator("body").inner_text() + " ".join(
            page.locator("[title], [placeholder]").evaluate_all(
                "els => els.map(e => (e.title || '') + ' ' + (e.placeholder || ''))"))}
        screenshot_take(page, "zh_drawer", full_page=False)
        for path in [p for p in LEFT_IN_ENGLISH if p.startswith("/")]:
            page.goto(f"{server.url}{path}")
            shown[path] = page.locator("body").inner_text()
        left = {where: [s for s in sentences if s in shown[where]]
                for where, sentences in LEFT_IN_ENGLISH.items()}
        assert left == {where: [] for where in LEFT_IN_ENGLISH}
        assert "请重新选择聊天文件" in shown["/chats/import"]
    finally:
        page.context.clear_cookies(name="django_language")
    assert page.js_errors == []
