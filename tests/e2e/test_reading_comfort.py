"""Reading comfort and message tools a SillyTavern player looks for on an evening (issue 33):
text size, message style, chat width, times and message numbers, set per account from the
chat's drawer or the settings page and applied at once (no reload) on the chat page and in the
history; a message's Info (when, which model, its tokens, how long it took); "Go to message
number"; hidden messages dimmed yet readable in every scheme. Phone (390×844 touch), keyboard open (390×500) and laptop, light and dark, English and
中文. Screenshots go to tests/e2e/screenshots/."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest

from tests.e2e.axe_audit import (
    AXE,
    RUN_PALETTE,
    SCHEMES,
    audit_in_each_scheme,
    audit_report,
    themes_audit,
)
from tests.e2e.axe_audit import RUN as AXE_RUN
from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    browser_missing_reason,
    message_act,
    message_send,
    no_sideways_scroll,
    scheme_emulate,
    screenshot_take,
    turn_wait_done,
    wait_until,
)
from tests.e2e.device_pages import touch_page_new
from tests.e2e.held_requests import HeldRequests, answers_kept, page_wait
from tests.e2e.page_api import (
    api_call,
    character_make,
    reading_card_open,
    reading_wait_saved,
)
from tests.e2e.seeded_chats import st_chat_import
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

KEYBOARD_OPEN = {"width": 390, "height": 500}
DEFAULTS = {"text_size": "100", "chat_width": "full", "message_style": "bubbles",
            "timestamps": True, "message_numbers": False, "theme": "default", "font": "sans",
            "accent": ""}
THEMES = ("default", "paper", "contrast", "night")


@pytest.fixture(autouse=True)
def _reading_put_back(server: Server, page: Page) -> Iterator[None]:
    """Each test starts and ends with the account's reading at its defaults."""
    api_call(page, server, "PUT", "/reading", DEFAULTS)
    yield
    api_call(page, server, "PUT", "/reading", DEFAULTS)


@contextmanager
def _phone_in_a_chat(server: Server, lines: int) -> Iterator[Page]:
    """A phone (390×844, touch) in Shanghai's time zone on a new chat of `lines` messages;
    closed afterwards."""
    phone = touch_page_new(server, PHONE, timezone_id="Asia/Shanghai")
    try:
        phone.goto(f"{server.url}/instances/{st_chat_import(phone, server, lines)}/")
        yield phone
    finally:
        phone.context.close()


def _text_px(page: Page) -> float:
    return page.evaluate("() => parseFloat(getComputedStyle("
                         "document.querySelector('#messages .msg[data-index] .text')).fontSize)")


def _choose(page: Page, form, setting: str, value: str) -> None:
    """A value picked in a reading form, once the page has saved and applied it."""
    form.get_by_test_id(f"reading-{setting}").select_option(value)
    reading_wait_saved(page, setting, value)


def _page_colours(page: Page) -> list[str]:
    """The page's background and the first message's text colour and font, as drawn."""
    return page.evaluate("""() => {
        const text = document.querySelector('#messages .msg[data-index] .text');
        return [getComputedStyle(document.body).backgroundColor, getComputedStyle(text).color,
                getComputedStyle(text).fontFamily];
    }""")


def test_reading_settings_in_the_chats_drawer_apply_at_once_and_stay(server: Server,
                                                                     page: Page) -> None:
    with _phone_in_a_chat(server, 6) as phone:
        first = phone.locator("#messages .msg[data-index]").first
        assert first.locator(".who time").is_visible()
        assert not first.get_by_test_id("message-number").is_visible()
        # The browser's zone is kept for the account's clock macros (static/reading.js).
        wait_until(phone, "() => document.body.dataset.readingTimeZone === 'Asia/Shanghai'")
        kept = json.loads(next((server.data / "modules" / "reading" / "accounts").glob("*.json"))
                          .read_text())
        assert kept["record"]["accounts"]["time_zone"] == "Asia/Shanghai"
        normal = _text_px(phone)
        reading_card_open(phone)
        form = phone.locator("#reading-drawer")
        _choose(phone, form, "text-size", "130")
        assert _text_px(phone) == pytest.approx(normal * 1.3, rel=0.02)
        _choose(phone, form, "message-style", "document")
        form.get_by_test_id("reading-timestamps").uncheck()
        reading_wait_saved(phone, "timestamps", "off")
        form.get_by_test_id("reading-message-numbers").check()
        reading_wait_saved(phone, "message-numbers", "on")
        assert form.locator("[data-reading-said]").inner_text() == "Saved for your account."
        screenshot_take(phone, "reading_drawer_390x844", full_page=False)
        phone.locator("button.drawer-close").click()
        assert not first.locator(".avatar").is_visible()
        assert not first.locator(".who time").is_visible()
        assert first.get_by_test_id("message-number").inner_text() == "#0"
        no_sideways_scroll(phone)
        screenshot_take(phone, "reading_document_390x844", full_page=False)
        phone.reload()
        assert _text_px(phone) == pytest.approx(normal * 1.3, rel=0.02)
        assert phone.locator("#reading-drawer [name=message_style]").input_value() == "document"
        assert not phone.locator("#reading-drawer [name=timestamps]").is_checked()
        assert phone.js_errors == []


def test_the_settings_page_sets_the_width_and_style_and_the_history_follows(
        server: Server, page: Page) -> None:
    page.set_viewport_size(DESKTOP)
    chat = st_chat_import(page, server, 6)
    page.goto(f"{server.url}/instances/{chat}/")
    full = page.locator("#messages .msg[data-index]").first.bounding_box()["width"]
    page.goto(f"{server.url}/settings/")
    form = page.get_by_test_id("reading-settings").get_by_test_id("reading-form")
    _choose(page, form, "chat-width", "narrow")
    _choose(page, form, "message-style", "flat")
    form.get_by_test_id("reading-message-numbers").check()
    reading_wait_saved(page, "message-numbers", "on")
    page.goto(f"{server.url}/instances/{chat}/")
    message = page.locator("#messages .msg[data-index]").first
    narrow = message.bounding_box()["width"]
    assert full > 900 and narrow <= 42 * 16 + 1, (full, narrow)
    assert message.evaluate("m => getComputedStyle(m.querySelector('.bubble')).backgroundColor") \
        == "rgba(0, 0, 0, 0)"
    screenshot_take(page, "reading_flat_narrow_1366", full_page=False)
    page.goto(f"{server.url}/instances/{chat}/history/")
    row = page.locator(".history-row").nth(2)
    assert row.locator(".msg-number").inner_text().strip() == "#2"
    assert page.locator(".history-layout > section").bounding_box()["width"] <= 44 * 16 + 1
    assert page.js_errors == []


def test_two_changes_made_at_once_keep_the_last_one_on_the_page_and_the_server(
        server: Server, page: Page) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(f"{server.url}/settings/")
    page.wait_for_load_state("networkidle")  # the page's own time zone save, if any, is done
    form = page.get_by_test_id("reading-settings").get_by_test_id("reading-form")
    sizes = HeldRequests(page, r".*/api/v1/reading$",
                         lambda request: "text_size" in (request.post_data or ""),
                         first_only=True)
    answered = answers_kept(page, lambda r: r.request.method == "PUT"
                            and r.url.endswith("/reading"))
    size = form.get_by_test_id("reading-text-size")
    size.select_option("130")
    sizes.wait("the first change was never sent")
    size.select_option("150")
    page.wait_for_timeout(200)  # time for a second request, had it been sent beside the first
    sizes.release()
    page_wait(page, lambda: len(answered) == 2, "the two changes were not both answered")
    sent = [r.request.post_data or "" for r in answered]
    assert len(sent) == 2 and "130" in sent[0] and "150" in sent[1], sent
    sizes.stop()
    assert page.evaluate("() => document.body.dataset.readingTextSize") == "150"
    assert api_call(page, server, "GET", "/reading")["text_size"] == "150"
    assert page.js_errors == []


def test_a_replys_info_says_when_which_model_its_tokens_and_how_long(server: Server,
                                                                    page: Page) -> None:
    phone = touch_page_new(server, PHONE)
    try:
        made = api_call(phone, server, "POST", "/instances", {"character_id": "char_alserqi"})
        phone.goto(f"{server.url}/instances/{made['instance_id']}/")
        server.stub.script(Reply("The dunes shift under the moon, and I keep walking.",
                                 chunk_size=4, delay=0.02))
        wait_until(phone, "() => !document.querySelector('[data-testid=send]').disabled")
        phone.get_by_test_id("input").fill("Where are we going?")
        phone.get_by_test_id("send").tap()
        turn_wait_done(phone)
        reply = phone.locator("#messages .msg.assistant[data-index]").last
        reply.locator("a[data-trace]").wait_for(state="attached")  # read again from the file
        message_act(reply, "info")
        info = phone.get_by_test_id("message-info")
        info.get_by_test_id("info-model").wait_for()
        assert info.locator("h3").inner_text() == f"Message #{reply.get_attribute('data-index')}"
        assert info.get_by_test_id("info-model").inner_text().startswith("stub-model")
        assert re.fullmatch(r"\d+ tokens", info.get_by_test_id("info-reply-tokens").inner_text())
        assert re.fullmatch(r"[\d,]+ tokens", info.get_by_test_id("info-prompt-tokens").inner_text())
        assert re.fullmatch(r"\d+\.\d\d? s", info.get_by_test_id("info-took").inner_text())
        assert info.get_by_test_id("info-from").inner_text() == "Alserqi"
        assert info.get_by_test_id("info-written").inner_text()
        screenshot_take(phone, "message_info_390x844", full_page=False)
        info.get_by_test_id("message-info-close").tap()
        assert not info.is_visible()
        mine = phone.locator("#messages .msg.user[data-index]").last
        message_act(mine, "info")
        assert "No model wrote this message" in info.locator("[data-info-note]").inner_text()
        assert info.get_by_test_id("info-length").inner_text() == "19 characters"
        phone.keyboard.press("Escape")
        assert not info.is_visible()
        # The reply's Info answered slowly, after the player had closed it and opened their
        # own message's: the answer is not shown in the other message's dialog.
        traces = HeldRequests(phone, r".*/traces/[^/]+\?fields=info$", lambda request: True)
        message_act(reply, "info")
        traces.wait("the reply's Info never asked for its trace")
        phone.keyboard.press("Escape")
        message_act(mine, "info")
        with phone.expect_response(lambda r: "fields=info" in r.url):
            traces.release()
        phone.wait_for_timeout(200)  # the late answer's own task has run
        assert info.get_by_test_id("info-length").inner_text() == "19 characters"
        assert info.get_by_test_id("info-model").count() == 0
        assert "No model wrote this message" in info.locator("[data-info-note]").inner_text()
        phone.keyboard.press("Escape")
        assert phone.js_errors == []
    finally:
        phone.context.close()


# Counts what a jump does in the task that puts the older lines in (htmx.process calls, read
# by a mutation observer's callback, which runs right after that task's code), the looks for
# messages without a tabindex over the whole #chat, and the Markdown cleaned in the <template>s'
# document (DOMPurify leaves a node iterator on the document it cleans in).
WATCH_JUMP = """() => {
  const jump = window.__jump = {processed: 0, at_insert: null, whole_list_looks: 0,
                                cleaned_in_templates: 0};
  const templates = document.createElement("template").content.ownerDocument;
  const sanitize = window.DOMPurify.sanitize;
  window.DOMPurify.sanitize = (dirty, ...rest) => {
    if (dirty?.ownerDocument === templates) jump.cleaned_in_templates += 1;
    return sanitize(dirty, ...rest);
  };
  const process = window.htmx.process;
  window.htmx.process = (node) => { jump.processed += 1; return process(node); };
  const find = Element.prototype.querySelectorAll;
  Element.prototype.querySelectorAll = function (selector) {
    if (this.id === "chat" && String(selector).includes("tabindex")) jump.whole_list_looks += 1;
    return find.call(this, selector);
  };
  new MutationObserver((records, observer) => {
    if (!records.some((r) => [...r.addedNodes].some((n) => n.matches?.(".msg")))) return;
    jump.at_insert = jump.processed;
    observer.disconnect();
  }).observe(document.getElementById("messages"), {childList: true});
}"""


def test_go_to_a_message_number_and_its_info_from_the_keyboard(server: Server,
                                                               page: Page) -> None:
    """A chat longer than a page (40): message #3 is read in one page of older ones, shown and
    focused; Enter opens its menu, Info its dialog, Escape goes back to the message; "↓ Newest"
    goes back down to the newest line."""
    page.set_viewport_size(DESKTOP)
    chat = st_chat_import(page, server, 90)
    page.goto(f"{server.url}/instances/{chat}/")
    assert page.locator('#messages .msg[data-index="3"]').count() == 0
    reading_card_open(page)
    reads: list[str] = []
    page.on("request", lambda request: "/messages?" in request.url and reads.append(request.url))
    page.evaluate(WATCH_JUMP)
    page.get_by_test_id("message-jump-index").fill("3")
    page.get_by_test_id("message-jump-index").press("Enter")
    target = page.locator('#messages .msg[data-index="3"]')
    wait_until(page, "() => document.activeElement?.dataset?.index === '3'")
    # one read down to it, not a page of 40 after another (#5 of 1,236 took 30 reads, 9 s);
    # the reader now near the top, the scroll reads the three lines before it
    assert reads[0].endswith("?before=50&shown=47") and len(reads) <= 2, reads
    # the lines are made live a slice at a time, those nearest #3 first, not all 47 in the task
    # that puts them in (1,000 held a phone's page for seconds); and the slices' mutations do
    # not each look over the whole list for messages to make focusable
    wait_until(page, "() => !document.querySelector('#messages .md:not([data-rendered])')")
    watched = page.evaluate("() => window.__jump")
    assert watched["at_insert"] == 30 and watched["whole_list_looks"] == 0, watched
    # Markdown is cleaned in a document of its own: DOMPurify leaves a node iterator on the
    # document it cleans in, and each node a page of older lines (parsed in a <template>) took
    # out of the templates' document walked every one (seconds after 2,000 drawn lines)
    assert watched["cleaned_in_templates"] == 0, watched
    box, shown = target.bounding_box(), page.locator("#messages").bounding_box()
    assert shown["y"] - 1 <= box["y"] < shown["y"] + shown["height"]
    # only the list scrolled: the page (which a wheel cannot scroll) stayed where it was, and
    # the side column's hidden legends do not make it taller than the window (it went blank)
    assert page.evaluate("() => [scrollY, document.documentElement.scrollHeight - innerHeight]") \
        == [0, 0]
    page.keyboard.press("Enter")
    page.get_by_test_id("menu-info").focus()
    page.keyboard.press("Enter")
    info = page.get_by_test_id("message-info")
    info.locator("h3", has_text="Message #3").wait_for()
    assert info.get_by_test_id("info-from").inner_text() == "Ann"
    page.keyboard.press("Escape")
    wait_until(page, "() => document.activeElement?.dataset?.index === '3'")
    newest = page.get_by_test_id("to-newest")
    assert newest.is_visible()
    newest.focus()
    page.keyboard.press("Enter")
    wait_until(page, "() => document.activeElement?.dataset?.index === '89'")
    newest.wait_for(state="hidden")
    last = page.locator('#messages .msg[data-index="89"]').bounding_box()
    assert last["y"] + last["height"] <= shown["y"] + shown["height"] + 1
    page.get_by_test_id("message-jump-index").fill("500")
    page.get_by_test_id("message-jump-index").press("Enter")
    page.locator("[data-jump-said]", has_text="There is no message #500").wait_for()
    # the lines a jump did not draw first are drawn soon after, Markdown and all
    wait_until(page, "() => !document.querySelector('#messages .md:not([data-rendered])')")
    assert page.js_errors == []


def test_reading_in_chinese_with_the_keyboard_open_in_dark_is_translated_and_axe_clean(
        server: Server, page: Page) -> None:
    phone = touch_page_new(server, KEYBOARD_OPEN, language="zh-hans")
    try:
        phone.add_init_script(path=str(AXE))
        phone.emulate_media(color_scheme="dark")
        chat = st_chat_import(phone, server, 6)
        api_call(phone, server, "PUT", "/reading", {"message_style": "flat", "message_numbers": True})
        phone.goto(f"{server.url}/instances/{chat}/")
        reading_card_open(phone)
        card = phone.get_by_test_id("reading-card")
        assert "阅读" in card.locator("summary").inner_text()
        assert "字号" in card.inner_text() and "English" not in card.inner_text()
        assert "配色" in card.inner_text() and "夜间蓝" in card.inner_text()
        assert "衬线体" in card.inner_text() and "Serif" not in card.inner_text()
        card.get_by_test_id("reading-message-style").select_option("document")
        reading_wait_saved(phone, "message-style", "document")
        assert card.locator("[data-reading-said]").inner_text() == "已为你的账户保存。"
        assert phone.evaluate(AXE_RUN) == []
        screenshot_take(phone, "reading_drawer_zh_dark_390x500", full_page=False)
        phone.locator("button.drawer-close").click()
        message_act(phone.locator("#messages .msg[data-index]").last, "info")
        info = phone.get_by_test_id("message-info")
        assert info.locator("h3").inner_text().startswith("第")
        assert "字符" in info.get_by_test_id("info-length").inner_text()
        assert phone.evaluate(AXE_RUN) == []
        screenshot_take(phone, "message_info_zh_dark_390x500", full_page=False)
        assert phone.js_errors == []
    finally:
        phone.context.close()


def test_every_reading_style_is_axe_clean_on_a_laptop(server: Server, page: Page) -> None:
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(DESKTOP)
    chat = st_chat_import(page, server, 6)
    api_call(page, server, "PUT", "/reading", {"message_numbers": True, "text_size": "150"})
    page.goto(f"{server.url}/instances/{chat}/")
    reading_card_open(page)
    form = page.locator("#reading-drawer")
    found = {}
    for style in ("bubbles", "flat", "document"):  # as the drawer puts each on, at once
        _choose(page, form, "message-style", style)
        if problems := audit_in_each_scheme(page):
            found[style] = problems
    # The settings page shows no message, the only thing these reading settings change: it is
    # audited at this width in tests/e2e/test_accessibility.py.
    assert found == {}, audit_report(found)


def test_a_theme_and_a_font_from_the_drawer_apply_at_once_and_stay(server: Server,
                                                                   page: Page) -> None:
    with _phone_in_a_chat(server, 4) as phone:
        background, colour, font = _page_colours(phone)
        reading_card_open(phone)
        form = phone.locator("#reading-drawer")
        _choose(phone, form, "theme", "night")
        _choose(phone, form, "font", "serif")
        night = _page_colours(phone)
        assert night[0] != background and night[1] != colour, (background, colour, night)
        assert night[2] != font and night[2].endswith("serif"), night[2]
        screenshot_take(phone, "reading_night_serif_390x844", full_page=False)
        _choose(phone, form, "font", "mono")
        assert _page_colours(phone)[2].endswith("monospace")
        phone.reload()
        assert _page_colours(phone)[:2] == night[:2]
        assert phone.locator("#reading-drawer [name=theme]").input_value() == "night"
        assert phone.js_errors == []


# At a phone's width with the drawer open; at a laptop's, every page in every theme and scheme
# is audited in tests/e2e/test_accessibility.py (themes_audit).
def test_every_theme_is_axe_clean_in_both_schemes(server: Server, page: Page) -> None:
    """Each theme as the drawer puts it on, at once (paper with flat messages), on one load."""
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(PHONE)
    chat = st_chat_import(page, server, 6)
    api_call(page, server, "PUT", "/reading", {"message_numbers": True})
    page.goto(f"{server.url}/instances/{chat}/")
    reading_card_open(page)
    form = page.locator("#reading-drawer")
    drawn = set()
    for theme in THEMES:
        _choose(page, form, "message-style", "flat" if theme == "paper" else "bubbles")
        _choose(page, form, "theme", theme)
        # A theme changes only the colours: the default one is audited in full, the rest
        # with the palette's rules (tests/e2e/axe_audit.py, RUN_PALETTE).
        audit = AXE_RUN if theme == THEMES[0] else RUN_PALETTE
        for scheme in SCHEMES:  # the page's colours follow the scheme live
            scheme_emulate(page, scheme)
            drawn.add(tuple(_page_colours(page)[:2]))
            assert page.evaluate(audit if scheme == SCHEMES[0] else RUN_PALETTE) == [], (
                theme, scheme)
            screenshot_take(page, f"reading_theme_{theme}_{scheme}_390", full_page=False)
    # The settings page in each theme's colours (night, the account's now, among them); its
    # full audit at this width is tests/e2e/test_accessibility.py's.
    page.goto(f"{server.url}/settings/")
    assert themes_audit(page) == {}
    # night is dark in both schemes: the other three themes draw two palettes each
    assert len(drawn) == 2 * len(THEMES) - 1, drawn


CONTRAST = """async () => (await axe.run(document, {runOnly: ["color-contrast"]})).violations
  .flatMap((v) => v.nodes.map((n) => n.target.join(" ") + " :: " + n.failureSummary))"""


def test_a_hidden_message_stays_readable_in_the_chat_and_the_history(
        page: Page, server: Server) -> None:
    """Hidden lines are dimmed, and were dimmed to 3.2:1 (light) / 4.4:1 (dark) in the
    history: still dimmed, now with the muted text colour every palette keeps at 4.5:1. Each
    page is read in both schemes (its colours follow the scheme live)."""
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(PHONE)
    instance_id = api_call(page, server, "POST", "/instances",
                       {"character_id": character_make(page, server, "Gil")})["instance_id"]
    server.stub.script(Reply("A plain answer, *with a gesture*, and more words."))
    page.goto(f"{server.url}/instances/{instance_id}/")
    message_send(page, "Tell me something.")
    turn_wait_done(page)
    for role in ("user", "assistant"):
        message_act(page.locator(f"#messages .msg.{role}").last, "hide")
    page.locator("#messages .msg.hidden-from-model").nth(1).wait_for()
    found = {}
    for scheme in SCHEMES:
        scheme_emulate(page, scheme)
        found[f"chat {scheme}"] = page.evaluate(CONTRAST)
    page.goto(f"{server.url}/instances/{instance_id}/history/")
    page.locator(".history-row.hidden-from-model").nth(1).wait_for()
    for scheme in SCHEMES:
        scheme_emulate(page, scheme)
        found[f"history {scheme}"] = page.evaluate(CONTRAST)
        screenshot_take(page, f"hidden_history_{scheme}", full_page=False)
    assert found == {f"{where} {scheme}": [] for where in ("chat", "history")
                     for scheme in SCHEMES}
