"""A player's evening on a phone, the rough edges a newcomer still met (issue 33): the prompt
inspector names its sections in the reader's language (the id beside each, for the author) and
fits a 390 px screen; the history page's header leaves the conversation most of the screen; a
refused or failed REST call says so in the page's language, or in the server's own words; a
streaming bubble's letter avatar has its speaker's colour from the first token. Screenshots go
to tests/e2e/screenshots/."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.e2e.axe_audit import AXE, audit_in_each_scheme
from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    browser_missing_reason,
    history_act,
    message_act,
    message_send,
    network_quiet,
    no_sideways_scroll,
    phone_page_open,
    screenshot_take,
    send_click,
    turn_wait_done,
    wait_until,
)
from tests.e2e.page_api import api_call
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

KEYBOARD_OPEN = {"width": 390, "height": 500}
MESSAGE_API = re.compile(r"/api/v1/instances/[^/]+/sessions/[^/]+/messages/\d+")


def _character(page: Page, server: Server, character_id: str, name: str) -> None:
    """A character without a picture (its avatar is its letter), made once per server."""
    if page.request.get(f"{server.url}/api/v1/characters/{character_id}").ok:
        return
    api_call(page, server, "POST", "/characters", {"character_id": character_id, "name": name,
                                                "base_persona": f"{name}, a traveller."})


def _chat(page: Page, server: Server, body: dict) -> str:
    instance_id = api_call(page, server, "POST", "/instances", body)["instance_id"]
    page.goto(f"{server.url}/instances/{instance_id}/")
    return instance_id


@pytest.fixture
def chinese(server: Server) -> Iterator[Page]:
    """A logged-in page of a player who chose 中文 (in a context of its own, so the module's
    other pages stay English)."""
    yield from phone_page_open(server, language="zh-hans")


def _trace_open(page: Page, server: Server) -> str:
    """A one-turn chat with the demo character, its reply's prompt inspector open; its URL."""
    _chat(page, server, {"character_id": "char_alserqi"})
    server.stub.script(Reply("The lamp is lit."))
    message_send(page, "Is the lamp lit?")
    turn_wait_done(page)
    # on a phone the link is in the reply's ⋯ menu: its address is the same
    page.goto(server.url + page.locator("#messages .msg.assistant a[href^='/traces/']").last
              .get_attribute("href"))
    return page.url


def _row(page: Page, section: str) -> dict:
    return page.evaluate("""s => { const row = document.querySelector(`#sections tr[data-section="${s}"]`);
      const [tokens, share] = row.querySelectorAll('td.num');
      return {label: row.querySelector('.section-label').textContent, id: row.querySelector('.raw-id').textContent,
              tokensRight: Math.round(tokens.getBoundingClientRect().right),
              shareRight: Math.round(share.getBoundingClientRect().right)}; }""", section)


def test_the_prompt_inspector_names_its_sections_and_fits_a_phone(page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    address = _trace_open(page, server)
    screenshot_take(page, "evening_trace_390")
    no_sideways_scroll(page)
    description, conversation = _row(page, "base_persona"), _row(page, "conversation")
    assert (description["label"], description["id"]) == ("Character description", "base_persona")
    assert conversation["label"] == "Conversation"
    # the numbers stand in columns, each row's ending at the same x
    assert description["tokensRight"] == conversation["tokensRight"]
    assert description["shareRight"] == conversation["shareRight"] <= PHONE["width"]
    # the card fields' long ids and places wrap, nothing hidden past the screen's edge (the
    # demo card's turn lists none: a table as an imported card's turn writes it is put in)
    assert page.evaluate("""() => { let t = document.querySelector('#card-fields');
      if (!t) { t = document.createElement('table'); t.id = 'card-fields'; t.className = 'list';
        t.innerHTML = '<tr><th>Field</th><th>Where it went</th></tr><tr>'
          + '<td>post_history_instructions</td>'
          + '<td>not sent (post_history_instructions empty or not in the template)</td></tr>';
        document.querySelector('#trace-sections').append(t); }
      return t.scrollWidth <= t.clientWidth + 1
        && t.getBoundingClientRect().right <= innerWidth; }""")
    assert page.locator("#timings .section-label", has_text="Total").count() == 1
    assert page.locator("#section-bar [data-section=conversation]").get_attribute(
        "title").startswith("Conversation: ")
    # each part folds under its heading
    page.locator("#trace-messages > summary").click()
    assert not page.locator("#trace-messages pre").first.is_visible()
    screenshot_take(page, "evening_trace_390_folded", full_page=False)
    assert page.js_errors == []
    page.context.add_cookies([{"name": "django_language", "value": "zh-hans", "url": server.url}])
    try:
        page.goto(address)
        assert _row(page, "base_persona")["label"] == "角色描述"
        meta = page.locator("#sections tr[data-section=conversation] .section-meta").inner_text()
        assert meta.startswith("中段") and "条消息，省略 0 条" in meta, meta
        screenshot_take(page, "evening_trace_390_zh")
    finally:
        page.context.add_cookies([{"name": "django_language", "value": "en", "url": server.url}])


def test_the_chat_pages_prompt_bar_names_its_parts_in_the_page_language(
        chinese: Page, server: Server) -> None:
    page = chinese
    _chat(page, server, {"character_id": "char_alserqi"})
    server.stub.script(Reply("灯亮着。"))
    page.fill("[data-testid=input]", "灯亮着吗？")
    send_click(page)
    turn_wait_done(page)
    # folded into the header on a phone; its parts keep their names for a wider screen
    page.wait_for_selector("#budget .seg[data-section=conversation]", state="attached")
    title = page.locator("#budget .seg[data-section=conversation]").get_attribute("title")
    assert title.startswith("对话："), title
    assert "个 token" in page.locator("#budget small").text_content()


def test_the_history_header_leaves_the_conversation_most_of_a_phone(page: Page,
                                                                   server: Server) -> None:
    """Measured from the top at 390x844: no rule of the history and persona pages depends on
    the window's height, so with the keyboard open (390x500) they are the same."""
    page.set_viewport_size(PHONE)
    page.goto(f"{server.url}/instances/inst_001/history/")
    page.wait_for_selector(".history-row")
    screenshot_take(page, "evening_history_head_844", full_page=False)
    no_sideways_scroll(page)
    first_row = page.locator(".history-row").first.bounding_box()
    # the top bar, the way back, the title and the search: ~230 px (they took 437)
    assert first_row["y"] < 250, first_row
    title = page.locator(".subpage-head h1").bounding_box()
    assert title["height"] < 40, "the title is one line"
    assert page.get_by_role("searchbox", name="Search").is_visible()
    assert page.get_by_role("link", name="← back to the chat").is_visible()


def test_the_persona_pages_header_is_as_short_as_historys(page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{server.url}/instances/inst_001/persona/")
    screenshot_take(page, "evening_persona_head_844", full_page=False)
    no_sideways_scroll(page)
    # the first card (the evolved persona) starts at ~117 px (it started at 227)
    assert page.locator("#persona-body .card").first.bounding_box()["y"] < 190
    assert page.locator(".subpage-head h1").bounding_box()["height"] < 40


def _refuse(status: int, body: str, content_type: str):
    def handle(route: Route) -> None:
        if route.request.method in ("PUT", "DELETE"):
            route.fulfill(status=status, body=body, content_type=content_type)
        else:
            route.continue_()
    return handle


def _unreachable(route: Route) -> None:
    if route.request.method in ("PUT", "DELETE"):
        route.abort("connectionrefused")
    else:
        route.continue_()


def test_a_refused_change_on_the_chat_page_says_why_in_the_players_language(
        chinese: Page, server: Server) -> None:
    page = chinese
    _chat(page, server, {"character_id": "char_alserqi"})
    message = page.locator("#messages .msg.assistant").first
    toast = page.locator("#toast span")
    # a proxy's error page: no words from the API, the page's own in Chinese
    page.route(MESSAGE_API, _refuse(502, "<html>Bad gateway</html>", "text/html"))
    message_act(message, "hide")
    wait_until(page, "() => !document.getElementById('toast').hidden")
    assert toast.inner_text() == "服务器拒绝了此操作（错误 502）。"
    screenshot_take(page, "evening_refused_zh_390", full_page=False)
    page.unroute(MESSAGE_API)
    # the server's own message when it gives one
    page.route(MESSAGE_API, _refuse(409, json.dumps({"error": {"code": "busy", "message":
                                                               "正在回复，请稍后再试。"}}),
                                    "application/json"))
    message_act(message, "hide")
    wait_until(page, "t => document.querySelector('#toast span').textContent === t",
                           arg="正在回复，请稍后再试。")
    page.unroute(MESSAGE_API)
    page.route(MESSAGE_API, _unreachable)
    message_act(message, "hide")
    wait_until(page, "t => document.querySelector('#toast span').textContent === t",
                           arg="无法连接到服务器；连接恢复后请重试。")
    assert page.js_errors == []


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_refused_change_in_the_history_manager_says_why(page: Page, server: Server,
                                                          size: dict) -> None:
    page.set_viewport_size(size)
    instance_id = _chat(page, server, {"character_id": "char_alserqi"})  # its greeting
    page.goto(f"{server.url}/instances/{instance_id}/history/")
    row = page.locator(".history-row").first
    page.route(MESSAGE_API, _refuse(502, "<html>Bad gateway</html>", "text/html"))
    history_act(row, "Hide")
    notice = page.locator("[data-testid=history-notice].error")
    assert notice.locator("span").inner_text() == "The server refused this (error 502)."
    screenshot_take(page, f"evening_history_refused_{size['width']}", full_page=False)
    page.unroute(MESSAGE_API)
    page.route(MESSAGE_API, _refuse(409, json.dumps({"error": {"code": "stale", "message":
                                                               "The message changed."}}),
                                    "application/json"))
    history_act(page.locator(".history-row").first, "Hide")
    wait_until(page, "t => document.querySelector('[data-testid=history-notice] span')"
               ".textContent === t", arg="The message changed.")
    assert page.js_errors == []


STREAMING_OF = """name => { const b = [...document.querySelectorAll('#messages .msg.assistant.pending')].pop();
  return !!b && b.querySelector('.text').textContent.length > 0 && b.querySelector('.who strong').textContent === name; }"""
AVATARS = """name => { const colour = a => a && [a.className.match(/letter-c\\d+/)?.[0] || null, getComputedStyle(a).backgroundColor];
  const of = sel => [...document.querySelectorAll(sel)].filter(m => m.querySelector('.who strong').textContent.trim() === name)
    .map(m => m.querySelector('.avatar')).pop();
  return {streaming: colour(of('#messages .msg.assistant.pending')),
          finished: colour(of('#messages .msg.assistant:not(.pending)'))}; }"""


def _held(text: str) -> Reply:
    """A reply that stops after a few pieces until the test lets it go: seen mid-stream."""
    return Reply(text, chunk_size=2, held_after=4)


def test_a_streaming_bubble_has_its_speakers_letter_colour_from_the_first_token(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    _character(page, server, "char_ivo_evening", "Ivo")
    _chat(page, server, {"character_id": "char_ivo_evening"})
    server.stub.script(Reply("The pass is open."))
    message_send(page, "Is the pass open?")
    turn_wait_done(page)
    server.stub.script(_held("Snow comes by the evening, and the road will close behind us. " * 3))
    message_send(page, "And tomorrow?")
    wait_until(page, STREAMING_OF, arg="Ivo")
    ivo = page.evaluate(AVATARS, "Ivo")
    screenshot_take(page, "evening_streaming_letter_390", full_page=False)
    assert ivo["streaming"][0] is not None and ivo["streaming"] == ivo["finished"], ivo
    server.stub.release()
    turn_wait_done(page)
    assert page.js_errors == []


def test_each_group_members_streaming_bubble_has_their_letter_colour(page: Page,
                                                                     server: Server) -> None:
    page.set_viewport_size(PHONE)
    _character(page, server, "char_ivo_evening", "Ivo")
    _character(page, server, "char_sela_evening", "Sela")
    _chat(page, server, {"character_ids": ["char_ivo_evening", "char_sela_evening"],
                         "reply_order": "everyone"})
    server.stub.script(Reply("Ivo here."), Reply("Sela here."))
    message_send(page, "Who keeps watch?")
    turn_wait_done(page)
    slow = "The fire is low and the wind turns; someone should fetch more wood. " * 3
    server.stub.script(_held(slow), _held(slow))
    message_send(page, "Then we wait.")
    for name in ("Ivo", "Sela"):
        wait_until(page, STREAMING_OF, arg=name, timeout=30_000)
        seen = page.evaluate(AVATARS, name)
        screenshot_take(page, "evening_group_streaming_letter_390", full_page=False)
        assert seen["streaming"][0] is not None and seen["streaming"] == seen["finished"], seen
        server.stub.release()
    turn_wait_done(page)
    assert page.js_errors == []


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_prompt_inspector_has_no_serious_accessibility_violation(
        page: Page, server: Server, size: dict) -> None:
    """The inspector is reached from a reply (no fixed address): axe-core as
    test_accessibility.py runs it on the other pages."""
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(size)
    address = _trace_open(page, server)
    with network_quiet(page):
        page.goto(address)
    assert audit_in_each_scheme(page) == {}  # one load: the colours follow the scheme live


def test_the_prompt_bar_shows_once_there_is_a_prompt_to_measure(page: Page, server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    with network_quiet(page):
        _chat(page, server, {"character_id": "char_alserqi"})
    # a new chat: its greeting was asked of no model, so no empty bar and legend
    assert not page.locator(".budget-wrap").is_visible()
    server.stub.script(Reply("The tide is in."))
    message_send(page, "Is the tide in?")
    turn_wait_done(page)
    page.locator("[data-testid=input]").blur()
    page.wait_for_selector(".budget-wrap #budget .seg")
    assert page.locator(".budget-wrap").is_visible()


def test_a_new_chat_is_one_tap_from_the_top_of_the_home_page(page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{server.url}/")
    jump = page.get_by_test_id("start-chat-jump")
    assert jump.bounding_box()["y"] < 200  # beside "Your chats", above every chat
    screenshot_take(page, "evening_home_390", full_page=False)
    jump.click()
    page.wait_for_url(re.compile(r"#start-chat$"))
    assert page.locator("#start-chat select[name=character_id]").is_visible()
    assert page.locator("#start-chat").bounding_box()["y"] < PHONE["height"] / 2


def test_an_inline_edit_has_the_composers_room_with_the_keyboard_open(page: Page,
                                                                       server: Server) -> None:
    """A phone with its keyboard open (390×500): while a message is edited in place the input and
    its four buttons step aside, so the edit box and its Save / Cancel have the screen; they come
    back when the edit is cancelled or saved."""
    page.set_viewport_size(KEYBOARD_OPEN)
    instance_id = _chat(page, server, {"character_id": "char_alserqi"})
    server.stub.script(Reply("The caravan left at dawn."))
    message_send(page, "When did the caravan leave?")
    turn_wait_done(page)
    composer = page.get_by_test_id("input")
    assert composer.is_visible() and page.get_by_test_id("send").is_visible()
    mine = page.locator("#messages .msg.user").last

    message_act(mine, "edit")
    box = mine.locator("[data-testid=edit-box]")
    box.wait_for()
    screenshot_take(page, "evening_inline_edit_390x500", full_page=False)
    assert not composer.is_visible() and not page.get_by_test_id("send").is_visible()
    assert not page.get_by_test_id("regenerate").is_visible()
    save = mine.get_by_test_id("edit-save")
    assert save.is_visible() and save.bounding_box()["y"] + save.bounding_box()["height"] <= 500
    mine.get_by_test_id("edit-cancel").click()
    box.wait_for(state="detached")
    assert composer.is_visible() and page.get_by_test_id("send").is_visible()

    message_act(mine, "edit")
    box.wait_for()
    assert not composer.is_visible()
    box.fill("When did the caravan leave the oasis?")
    mine.get_by_test_id("edit-save").click()
    wait_until(page, "() => !document.querySelector('[data-testid=edit-box]')")
    page.locator("#messages .msg.user", has_text="the oasis?").wait_for()
    assert composer.is_visible() and page.get_by_test_id("send").is_visible()
    assert any(line.get("content") == "When did the caravan leave the oasis?"
               for line in server.session_lines(instance_id))
    assert page.js_errors == []
