"""The chat page a player lives in, at phone (390×844) and laptop (1366×900) size: layout and
hit-testing, rendered Markdown that never runs script, swipes after several turns, inline edit /
delete / undo, paging of long sessions, dark mode, the language switch, visible progress, and
the budget bar. Screenshots go to tests/e2e/screenshots/.

On the process's shared Daphne and Chromium; each test starts its own instance. (Typed text
that survives a reload and a server outage: tests/e2e/test_server_outage.py.)"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    SIZES,
    Server,
    browser_missing_reason,
    message_act,
    message_send,
    screenshot_take,
    topnav_open,
    turn_wait_done,
    wait_until,
)
from tests.e2e.conftest import instance_new as _new_instance
from tests.e2e.conftest import no_sideways_scroll as _no_sideways_scroll
from tests.e2e.seeded_chats import long_session_open
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

def _hit(page: Page, testid: str) -> bool:
    """True when a tap at the centre of the element lands on that element."""
    return page.evaluate(
        """id => { const el = document.querySelector(`[data-testid=${id}]`);
           const r = el.getBoundingClientRect();
           const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
           return !!at && !!at.closest(`[data-testid=${id}]`); }""", testid)


@SIZES
def test_the_conversation_comes_first_and_every_control_is_reachable(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    instance_id = _new_instance(page, server)
    server.stub.script(Reply("The tide is *turning*.", chunk_size=6))
    message_send(page, "Hello there.")
    turn_wait_done(page)
    name = f"20_chat_{size['width']}"
    screenshot_take(page, name, full_page=False)
    _no_sideways_scroll(page)
    box = page.locator("[data-testid=input]").bounding_box()
    assert box["width"] >= size["width"] * 0.8 - 40 or box["width"] >= 600
    assert box["y"] + box["height"] <= size["height"]
    for testid in ("input", "send", "stop", "regenerate", "continue"):
        control = page.locator(f"[data-testid={testid}]").bounding_box()
        assert control["y"] + control["height"] <= size["height"], testid
        assert control["x"] >= 0 and control["x"] + control["width"] <= size["width"], testid
        if testid != "stop":  # disabled between turns, still placed beside the input
            assert _hit(page, testid), testid
    messages = page.locator("[data-testid=message]")
    assert messages.last.get_attribute("data-role") == "assistant"
    assert messages.last.get_attribute("data-turn") == "1"
    # the page of forms is for a browser without scripts: here the message's own buttons
    assert not messages.last.get_by_test_id("message-changes").is_visible()
    outline = page.locator("#outline")
    toggle = page.locator("[data-testid=drawer-toggle]")
    if size is PHONE:
        assert not outline.is_visible()  # the story tools wait in the drawer
        toggle.click()
        outline.wait_for(state="visible")
        page.wait_for_timeout(300)  # the slide-in transition
        screenshot_take(page, f"{name}_drawer", full_page=False)
        drawer = page.locator("#drawer").bounding_box()
        assert drawer["x"] >= 0 and drawer["x"] + drawer["width"] <= size["width"] + 1
        # the focus went in (a Tab went to the messages under it, all before its first card)
        wait_until(page, "() => document.activeElement.id === 'drawer'")
        page.locator("#drawer [data-action=drawer-close]").click()
        outline.wait_for(state="hidden")
        assert page.evaluate("() => document.activeElement.dataset.testid") == "drawer-toggle"
        assert _hit(page, "send")
        toggle.click()  # Escape closes it too, as a phone's keyboard or a laptop's would
        outline.wait_for(state="visible")
        page.keyboard.press("Escape")
        outline.wait_for(state="hidden")
        assert toggle.get_attribute("aria-expanded") == "false"
    else:
        assert not toggle.is_visible() and outline.is_visible()
    for url in ("/", f"/instances/{instance_id}/history/", "/library/", "/settings/",
                page.locator("#messages a[href^='/traces/']").last.get_attribute("href")):
        page.goto(server.url + url)
        _no_sideways_scroll(page)
    screenshot_take(page, f"21_trace_{size['width']}")
    assert page.js_errors == []


def test_markdown_renders_and_a_reply_can_never_run_script(page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    instance_id = _new_instance(page, server)
    reply = ('*She lifts the lamp.* **Listen.**\n\n> "The sea remembers."\n\n- rope\n- oil\n\n'
             '`knot` <script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
             ' [PROGRESS:1:in_progress]')
    # The model opens with the character's name: never shown, even while it streams.
    server.stub.script(Reply(f"Alserqi: {reply}", chunk_size=5, delay=0.01))
    # SillyTavern's "Auto-fix Markdown" as it shows a line (static/chat/markdown_fix.js): no
    # space inside a pair, and an odd `*` or `"` closed at the line's end; the file unchanged.
    said = 'What do you *see*? <b>bold?</b>\n* waves * "Wait, *listen'
    message_send(page, said)
    # Markdown while it streams
    page.wait_for_selector("#messages .msg.assistant.pending .md em")
    assert "Alserqi:" not in page.locator("#messages .msg.assistant.pending .md").inner_text()
    turn_wait_done(page)
    last = page.locator("[data-testid=message][data-role=assistant]").last
    assert last.locator("em", has_text="She lifts the lamp.").count() == 1
    assert last.locator("strong", has_text="Listen.").count() == 1
    assert last.locator("blockquote").count() == 1 and last.locator("li").count() == 2
    assert last.locator("code", has_text="knot").count() == 1
    assert last.locator("script, img[onerror]").count() == 0
    badge = last.locator(".progress-badge")
    assert badge.is_visible() and badge.inner_text() == "◆ 1 · in progress"  # not in_progress
    assert page.evaluate("() => window.__pwned") is None
    page.reload()
    assert page.evaluate("() => window.__pwned") is None
    mine = page.locator("[data-testid=message][data-role=user]").last
    assert mine.locator("em", has_text="see").count() == 1
    assert mine.locator("em", has_text="waves").count() == 1
    assert mine.locator(".text").inner_text().endswith('"Wait, *listen"')  # `"` wins, as there
    assert server.session_lines(instance_id)[-2]["content"] == said
    # While a reply streams, the text so far is balanced first, as SillyTavern's
    # onProgressStreaming: an odd `*`, `"` or ``` gets one more at its end.
    assert page.evaluate("""async () => {
        const fix = await import("/static/chat/markdown_fix.js");
        return [fix.streamingBalanced("Look: ```py\\nx = 1  "),
                fix.streamingBalanced('*She lifts "the'), fix.streamingBalanced("**ok**")];
    }""") == ["Look: ```py\nx = 1\n```", '*She lifts "the*"', "**ok**"]
    screenshot_take(page, "22_markdown_390", full_page=False)
    page.set_viewport_size(DESKTOP)
    screenshot_take(page, "22_markdown_1366", full_page=False)
    line = server.session_lines(instance_id)[-1]
    assert line["content"] == reply  # the file keeps the marker and the markup verbatim
    assert page.js_errors == []
    # The reply's own onerror is refused by the policy while the sanitizer parses it (as in
    # test_hostile_markup.py): the second line of defence, not a broken feature.
    assert [text for text in page.csp_refused
            if not text.startswith("Executing inline event handler")] == []
    page.csp_refused.clear()


def test_swipe_arrows_keep_working_after_three_turns(page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    instance_id = _new_instance(page, server)
    for n in (1, 2, 3):
        server.stub.script(Reply(f"Answer {n}."))
        message_send(page, f"Question {n}.")
        turn_wait_done(page)
    server.stub.script(Reply("Version B."), Reply("Version C."))
    for _ in range(2):
        page.click("[data-testid=regenerate]")
        turn_wait_done(page)
    last = page.locator("[data-testid=message][data-role=assistant]").last
    assert last.locator(".text").inner_text() == "Version C."
    assert last.locator(".swipe-pos").inner_text() == "3/3"
    for expected, arrow in (("Version B.", "swipe-prev"), ("Answer 3.", "swipe-prev"),
                            ("Version B.", "swipe-next")):
        page.locator(f"[data-testid=message][data-role=assistant] [data-testid={arrow}]").last.click()
        wait_until(page,
            "t => [...document.querySelectorAll('[data-testid=message][data-role=assistant] .text')]"
            ".pop().textContent.trim() === t", arg=expected)
    screenshot_take(page, "23_swipes_390", full_page=False)
    assert server.session_lines(instance_id)[-1]["content"] == "Version B."
    old_session = server.instance_state(instance_id)["current_session_id"]
    message_act(page.locator("[data-testid=message][data-role=assistant]").nth(2),
                "branch")  # the reply "Answer 2."
    wait_until(page, "s => document.getElementById('messages').dataset.session !== s",
                           arg=old_session)
    texts = page.locator("[data-testid=message] .text").all_inner_texts()
    assert texts[-1] == "Answer 2." and "Question 3." not in texts
    assert any(line.get("content") == "Version B." for line in
               server.store.session_read(instance_id, old_session).lines)  # the old one stays
    new_session = server.instance_state(instance_id)["current_session_id"]
    # The header names the session as a player does, never by its id (a phone in short words,
    # its title in full).
    title = page.locator(".chat-head").inner_text()
    assert "conv. 2" in title and new_session not in title and old_session not in title
    assert page.locator("[data-current-session-short]").get_attribute("title") == "conversation 2"
    for export in page.locator("a[data-export]").all():  # exports the session on screen
        assert f"/sessions/{new_session}/export" in export.get_attribute("href")
    screenshot_take(page, "23_branched_390", full_page=False)
    assert page.js_errors == []


@SIZES
def test_edit_in_place_and_delete_with_undo(page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    instance_id = _new_instance(page, server)
    server.stub.script(Reply("The keeper nods."))
    message_send(page, "I bring oil.")
    turn_wait_done(page)
    user = page.locator("[data-testid=message][data-role=user]").last
    message_act(user, "edit")
    editor = user.locator("[data-testid=edit-box]")
    editor.fill("I bring nothing.")
    editor.press("Escape")
    assert user.locator(".text").inner_text() == "I bring oil."
    message_act(user, "edit")
    user.locator("[data-testid=edit-box]").fill("I bring *two* barrels of oil.")
    user.locator("[data-testid=edit-box]").press("Enter")
    page.wait_for_selector("[data-testid=message][data-role=user] em")
    assert server.session_lines(instance_id)[-2]["content"] == "I bring *two* barrels of oil."
    message_act(page.locator("[data-testid=message][data-role=assistant]").last, "delete")
    toast = page.locator("#toast")
    toast.wait_for(state="visible")
    box = toast.bounding_box()
    assert 0 <= box["y"] and box["y"] + box["height"] <= size["height"]  # where the player looks
    assert "The keeper nods." not in page.inner_text("#messages")
    assert server.session_lines(instance_id)[-1]["role"] == "user"
    screenshot_take(page, f"24_deleted_undo_{size['width']}", full_page=False)
    toast.locator("[data-testid=undo]").click()
    wait_until(page, "() => document.getElementById('messages').textContent"
               ".includes('The keeper nods.')")
    assert server.session_lines(instance_id)[-1]["content"] == "The keeper nods."
    assert page.js_errors == []


_TOP_SHOWN = """() => { const box = document.getElementById('messages');
  const top = box.getBoundingClientRect().top;
  const shown = [...box.querySelectorAll('[data-testid=message]')]
    .find(m => m.getBoundingClientRect().bottom > top + 5);
  return parseInt(shown.querySelector('.text').textContent.replace('line ', ''), 10); }"""


def test_scrolling_back_with_the_wheel_keeps_the_reader_where_they_were(
        page: Page, server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    long_session_open(page, server, 200)
    first_count = page.locator("[data-testid=message]").count()
    page.hover("#messages")
    tops = [page.evaluate(_TOP_SHOWN)]
    while page.locator("[data-testid=message]").count() < first_count + 20 and len(tops) < 80:
        page.mouse.wheel(0, -120)
        page.wait_for_timeout(120)
        tops.append(page.evaluate(_TOP_SHOWN))
    page.wait_for_timeout(300)
    tops.append(page.evaluate(_TOP_SHOWN))
    # Loading older lines above must not move the view: the line at the top stays about where
    # the wheel had brought it (it jumped back down by a whole page of loaded lines before).
    assert tops[-1] <= min(tops[:-1]) + 3, tops
    assert page.js_errors == []



def test_a_reply_in_another_tab_leaves_a_reader_who_scrolled_back_in_place(
        page: Page, server: Server, logged_in: BrowserContext) -> None:
    page.set_viewport_size(DESKTOP)
    long_session_open(page, server, 200)
    page.hover("#messages")
    while page.evaluate(_TOP_SHOWN) > 150:
        page.mouse.wheel(0, -240)
        page.wait_for_timeout(100)
    page.wait_for_timeout(300)
    reading = page.evaluate(_TOP_SHOWN)
    writer = logged_in.new_page()
    try:
        writer.goto(page.url)
        server.stub.script(Reply("The keeper lights a lamp."))
        message_send(writer, "Anyone awake?")
        turn_wait_done(writer)
    finally:
        writer.close()
    wait_until(page, "() => document.getElementById('messages').textContent"
               ".includes('The keeper lights a lamp.')")
    turn_wait_done(page)
    # The reply arrived below, and the reader is put back on the same line once the page has
    # reloaded from the file (it used to jump to the newest line, dropping the older ones).
    wait_until(page, f"() => Math.abs(({_TOP_SHOWN})() - {reading}) <= 1")
    page.wait_for_timeout(300)
    assert abs(page.evaluate(_TOP_SHOWN) - reading) <= 1
    assert page.js_errors == []


def test_a_long_session_shows_the_newest_messages_and_older_ones_on_scroll(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    long_session_open(page, server, 400)
    shown = page.locator("[data-testid=message]")
    first_count = shown.count()
    assert 20 <= first_count <= 41
    assert shown.last.locator(".text").inner_text() == "line 399"
    page.evaluate("() => { document.getElementById('messages').scrollTop = 0; }")
    wait_until(page, "n => document.querySelectorAll('[data-testid=message]').length > n",
                           arg=first_count)
    screenshot_take(page, "25_older_loaded_390", full_page=False)
    for _ in range(20):
        if page.locator("[data-testid=message] .text", has_text=re.compile(r"^line 0$")).count():
            break
        page.evaluate("() => { document.getElementById('messages').scrollTop = 0; }")
        page.wait_for_timeout(200)
    texts = page.locator("[data-testid=message] .text").all_inner_texts()
    assert texts == [f"line {n}" for n in range(400)]
    assert page.js_errors == []


def _background(page: Page) -> tuple[int, int, int]:
    rgb = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    return tuple(int(v) for v in re.findall(r"\d+", rgb)[:3])


@SIZES
def test_dark_mode_follows_the_system_and_the_toggle_wins(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    page.emulate_media(color_scheme="dark")
    page.goto(f"{server.url}/instances/inst_001/")
    page.evaluate("() => localStorage.removeItem('personalab-theme')")
    page.reload()
    assert sum(_background(page)) < 150
    screenshot_take(page, f"26_dark_{size['width']}", full_page=False)
    topnav_open(page)  # on a phone the toggle is behind the top bar's ≡ Menu
    page.click("[data-testid=theme-toggle]")
    assert sum(_background(page)) > 600
    page.reload()
    assert sum(_background(page)) > 600  # the choice is kept
    topnav_open(page)
    page.click("[data-testid=theme-toggle]")
    assert sum(_background(page)) < 150
    page.evaluate("() => localStorage.removeItem('personalab-theme')")
    page.emulate_media(color_scheme="light")
    page.reload()
    assert sum(_background(page)) > 600
    assert page.js_errors == []


def test_the_language_switch_turns_the_page_into_chinese_and_back(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{server.url}/instances/inst_001/")
    assert page.inner_text("[data-testid=send]") == "Send"
    topnav_open(page)
    page.select_option("[data-testid=language]", "zh-hans")
    # the page is reloaded in Chinese: between the two documents there is no Send button
    wait_until(page, "() => document.querySelector('[data-testid=send]')?.textContent"
               ".trim() === '发送'")
    assert page.get_attribute("html", "lang") == "zh-hans"
    screenshot_take(page, "27_chinese_390", full_page=False)
    page.goto(f"{server.url}/")  # the choice follows the player to every page
    topnav_open(page)
    assert "对话" in page.inner_text(".topbar")
    page.select_option("[data-testid=language]", "en")
    wait_until(page, "() => document.querySelector('.topbar')?.textContent"
               ".includes('Chats')")
    assert page.js_errors == []


def test_summarize_shows_its_stage_and_time_and_what_changed(page: Page, server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    instance_id = _new_instance(page, server)
    server.stub.script(Reply("Noted."))
    message_send(page, "Remember the red sail.")
    turn_wait_done(page)
    summary = json.dumps({"events": [{"summary": "A red sail was seen.",
                                      "plot": "The player pointed out a red sail."}]})
    server.stub.script(Reply(summary, chunk_size=2, delay=0.03))
    page.click("[data-memory-action=summarize]")
    wait_until(page, "() => /[1-9] s/.test(document.getElementById('memory-elapsed').textContent)")
    assert page.locator("#memory-progress").is_visible()
    screenshot_take(page, "28_summarize_running_1366", full_page=False)
    wait_until(page, "() => /took/.test(document.getElementById('memory-result').textContent)",
                           timeout=60_000)
    result = page.inner_text("#memory-result")
    new_session = server.instance_state(instance_id)["current_session_id"]
    assert "Summarized into 1 events" in result and "conversation 2" in result
    assert new_session not in result  # a name, not the id
    wait_until(page, "s => document.getElementById('messages').dataset.session === s",
                           arg=new_session)
    assert page.locator("#messages .msg.summary").count() == 1  # the page moved on by itself
    # The bar no longer shows the previous conversation's prompt (the turn copied over keeps
    # its trace, of conversation 1).
    page.wait_for_selector("[data-testid=budget-next-turn]", timeout=5000)
    assert page.locator("#budget .seg").count() == 0
    screenshot_take(page, "29_summarized_1366", full_page=False)
    assert page.js_errors == []


def test_the_budget_bar_colours_the_conversation_as_its_legend_says(
        page: Page, server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    _new_instance(page, server)
    asked: list[str] = []  # the bar asks the light trace, not every message sent
    page.on("request", lambda r: asked.append(r.url) if "/api/v1/traces/" in r.url else None)
    server.stub.script(Reply("The harbor is quiet."))
    message_send(page, "How is the harbor?")
    turn_wait_done(page)
    page.wait_for_selector("#budget .seg", timeout=5000)
    assert asked and all(url.endswith("?fields=sections") for url in asked)
    titles = page.eval_on_selector_all(
        "#budget .seg", "els => els.map(e => [e.className, e.dataset.section])")
    classes = {name: cls for cls, name in titles}
    assert classes["conversation"] == "seg seg-history"
    assert all(cls in ("seg seg-head", "seg seg-middle", "seg seg-history")
               for cls, _ in titles)
    legend = page.locator(".legend .key.seg-history")
    segment = page.locator("#budget .seg-history").first
    colour = "el => getComputedStyle(el).backgroundColor"
    assert legend.evaluate(colour) == segment.evaluate(colour)
    screenshot_take(page, "evening_02_budget_1366", full_page=False)
    page.locator("#messages .msg.assistant").last.locator("a", has_text="Prompt").click()
    page.wait_for_selector("#section-bar")
    bar = page.eval_on_selector_all(
        "#section-bar span", "els => els.map(e => [e.className, e.dataset.section])")
    assert {name: cls for cls, name in bar}["conversation"] == "seg-history"
    assert all(cls in ("seg-head", "seg-middle", "seg-history") for cls, _ in bar)
    assert page.js_errors == []
