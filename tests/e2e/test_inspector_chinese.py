"""The prompt inspector wholly in 中文 (issue 33): after a turn in which a lore entry fired,
another was left out by its lorebook's budget, the prompt came near its limit and the director
read no marker, the inspector's warnings, lore and director lines carry no English sentence;
only ids, keys, names and numbers stay as written. Screenshots go to tests/e2e/screenshots/."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    PHONE,
    Server,
    browser_missing_reason,
    context_new,
    login_ensure,
    screenshot_take,
    turn_wait_done,
    wait_until,
)
from tests.e2e.test_chat_extras import _api
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

CHARACTER = "char_lanternkeeper"
QUESTION = "Is the clinic safe tonight?"
# A constant entry outside the budget makes the prompt big enough for "near its limit" (over
# 90 % of the window) to leave room for the conversation.
FILLER = "The lantern of the drowned city burns all night long. " * 90
# Three English words in a row, outside what is marked as written (ids, names, keys, quotes).
ENGLISH = r"/[A-Za-z]{2,}(?:[\s,;:()'\-]+[A-Za-z]{2,}){2,}/"
PARTS = ["#trace-sections", "#trace-warnings", "#lore-fired", "#lore-dropped", "#trace-memory"]


def _setup(page: Page, server: Server) -> None:
    if page.request.get(f"{server.url}/api/v1/characters/{CHARACTER}").ok:
        return
    book = _api(page, server, "POST", "/lorebooks", {
        "name": "Drowned city", "token_budget": 30, "entries": [
            {"uid": 1, "keys": ["clinic"], "comment": "The clinic", "content": "On stilts.",
             "priority": 200},
            {"uid": 2, "keys": ["clinic"], "comment": "The market", "priority": 10,
             "content": "The market floods at noon and the boats come in. " * 8},
            {"uid": 3, "keys": [], "constant": True, "ignore_budget": True,
             "comment": "The lantern", "content": FILLER}]})
    _api(page, server, "POST", "/characters", {
        "character_id": CHARACTER, "name": "Mira", "base_persona": "Mira, a field medic.",
        "lorebook_ids": [book["lorebook_id"]]})


def _turn(page: Page, server: Server, generation: dict | None = None) -> str:
    """One turn of a new chat (with the wasteland outline); its trace id."""
    instance_id = _api(page, server, "POST", "/instances", {
        "character_id": CHARACTER, "background_id": "bg_wasteland"})["instance_id"]
    if generation:
        _api(page, server, "PUT", f"/instances/{instance_id}", {"generation": generation})
    page.goto(f"{server.url}/instances/{instance_id}/")
    server.stub.script(Reply("She trims the wick. [PROGRESS:1:COMPLETED]"))
    # on a touch screen Enter is a new line: the player taps Send
    wait_until(page, "() => !document.querySelector('[data-testid=send]').disabled")
    page.fill("[data-testid=input]", QUESTION)
    page.click("[data-testid=send]")
    page.locator("#messages .msg.user").first.wait_for()
    turn_wait_done(page)
    link = page.locator("#messages .msg.assistant a[href^='/traces/']").last.get_attribute("href")
    return link.strip("/").rsplit("/", 1)[1]


def _english_left(page: Page, part: str) -> list[str]:
    return page.evaluate(f"""s => {{ const node = document.querySelector(s);
      if (!node) return ['(missing: ' + s + ')'];
      const copy = node.cloneNode(true);
      copy.querySelectorAll('[translate=no], code').forEach(e => e.remove());
      return copy.innerText.split('\\n').filter(line => {ENGLISH}.test(line)); }}""", part)


def test_the_inspector_reads_wholly_in_chinese_after_a_full_turn(server: Server) -> None:
    context = context_new(server, viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        login_ensure(server, context)
        context.add_cookies([{"name": "django_language", "value": "zh-hans", "url": server.url}])
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        _setup(page, server)
        # the same turn again with a window just above its size: near the limit, all kept
        measured = _api(page, server, "GET", f"/traces/{_turn(page, server)}")["total_tokens"]
        trace_id = _turn(page, server, {"context_tokens": measured + 90 + 200, "max_tokens": 200})
        page.goto(f"{server.url}/traces/{trace_id}/")

        warnings = page.locator("#trace-warnings").inner_text()
        assert "提示词接近上限" in warnings, warnings
        assert "超出其世界书 30 个 token 的预算" in page.locator("#lore-dropped").inner_text()
        assert "常驻" in page.locator("#lore-fired").inner_text()
        director = page.locator("#trace-memory").inner_text()
        assert "没有有效的进度标记" in director and "大小写不对" in director
        for part in PARTS:
            assert _english_left(page, part) == [], part
        screenshot_take(page, "inspector_zh_390")
        assert errors == []
    finally:
        context.close()
