"""Room to read on a phone (issue 33 item 1): with the keyboard open (a 390×844 phone keeps
390×500) the chrome folds away while the player types, so the conversation keeps at least 250 px;
leaving the input brings it back, and nothing is lost at 390×844 or 1366×900 (the nav through
the menu button, the offline state as a mark in the header).

The server here has no language model configured, as a fresh clone: the offline demo answers
and its banner shows, the state the issue measured."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.e2e.axe_audit import AXE, RUN, audit_in_each_scheme
from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    _free_port,
    _server_env,
    browser_missing_reason,
    instance_new,
    message_send,
    phone_page_open,
    screenshot_take,
    screenshots_in_each_scheme,
    server_kill,
    turn_wait_done,
    wait_until,
)
from tests.e2e.page_api import api_call
from tests.prepared_data import Prepared, prepared_copy

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = pytest.mark.e2e

KEYBOARD_OPEN = {"width": 390, "height": 500}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, stub_llm_server,
           prepared_data: Prepared) -> Iterator[Server]:
    """As conftest's, but with no endpoint configured: the offline demo and its banner."""
    base = tmp_path_factory.mktemp("e2e-offline")
    copy = prepared_copy(prepared_data, base)
    env = _server_env(copy.data, stub_llm_server, copy.secret)
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        env.pop(name)
    running = Server(f"http://127.0.0.1:{_free_port()}", copy.data, copy.password,
                     stub_llm_server, None, env, base / "daphne.log")
    running.start()
    try:
        yield running
    finally:
        server_kill(running)


def _visible_height(page: Page, selector: str) -> float:
    return page.evaluate("""s => { const r = document.querySelector(s).getBoundingClientRect();
        return Math.min(r.bottom, innerHeight) - Math.max(r.top, 0); }""", selector)


def _chat_with_a_few_turns(page: Page, server: Server) -> None:
    instance_new(page, server)
    for text in ("Hello there.", "Tell me about the forest.", "And the river?"):
        message_send(page, text)
        turn_wait_done(page)


def _typing(page: Page) -> bool:
    return page.evaluate("() => document.body.classList.contains('typing')")


def test_typing_with_the_keyboard_open_leaves_room_to_read(page: Page, server: Server) -> None:
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(KEYBOARD_OPEN)
    _chat_with_a_few_turns(page, server)
    page.locator("#messages").click(position={"x": 10, "y": 10})  # not typing
    screenshots_in_each_scheme(page, "33_room_390x500_reading", full_page=False)
    assert page.locator("[data-testid=offline-mark]").is_visible()  # a short screen stays folded
    page.locator("[data-testid=input]").focus()
    wait_until(page, "() => document.body.classList.contains('typing')")
    assert _visible_height(page, "#messages") >= 250
    # the prompt-size mark says what it measures: a touch screen shows no title (newcomer walk)
    mark = page.get_by_test_id("budget-mini")
    assert mark.is_visible() and re.fullmatch(r"prompt (<1|\d+)%", mark.inner_text()), mark
    assert mark.get_attribute("aria-label").startswith("Last prompt: ")
    assert page.locator(".chat-head h1").bounding_box()["width"] >= 48
    screenshots_in_each_scheme(page, "33_room_390x500_typing", full_page=False)
    assert audit_in_each_scheme(page) == {}  # the folded chrome reads as well as the rest
    # The newest message is in view, the composer and Send above the keyboard's edge.
    newest = page.locator("#messages .msg").last.bounding_box()
    listed = page.locator("#messages").bounding_box()
    assert newest["y"] + newest["height"] <= listed["y"] + listed["height"] + 1
    for testid in ("input", "send", "regenerate", "continue", "impersonate"):
        box = page.locator(f"[data-testid={testid}]").bounding_box()
        assert 0 <= box["y"] and box["y"] + box["height"] <= KEYBOARD_OPEN["height"], testid
    # Folded, not lost: the offline state is a mark in the header, the nav behind ≡.
    assert page.locator("[data-testid=offline-mark]").is_visible()
    assert "Offline demo" in page.locator("[data-testid=offline-mark]").get_attribute("title")
    assert not page.locator(".topbar").is_visible()
    # Send while typing: the message goes and the input keeps the focus (a phone its keyboard).
    page.fill("[data-testid=input]", "One more thing.")
    page.click("[data-testid=send]")
    wait_until(page, "() => [...document.querySelectorAll('#messages .msg.user')]"
               ".some(m => m.textContent.includes('One more thing.'))")
    turn_wait_done(page)
    assert _typing(page)
    assert page.evaluate("() => document.activeElement.id") == "input"
    page.click("[data-testid=nav-menu]")
    wait_until(page, "() => !document.body.classList.contains('typing')")
    assert page.locator(".topbar a", has_text="Library").is_visible()
    # The menu says the offline state in full, once; the banner stays away under it.
    assert page.get_by_test_id("menu-offline").is_visible()
    assert not page.locator("#offline-banner").is_visible()
    screenshots_in_each_scheme(page, "33_room_390x500_menu", full_page=False)
    assert page.js_errors == []


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_leaving_the_input_brings_everything_back(page: Page, server: Server, size: dict) -> None:
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(size)
    _chat_with_a_few_turns(page, server)
    page.locator("[data-testid=input]").focus()
    name = f"33_room_{size['width']}x{size['height']}_typing"
    screenshot_take(page, name, full_page=False)
    if size is PHONE:
        assert _typing(page)
        assert page.locator("[data-testid=offline-mark]").is_visible()
        assert page.locator("[data-testid=nav-menu]").is_visible()
        assert _visible_height(page, "#messages") >= 500
    else:  # a laptop has room: nothing folds
        assert not _typing(page)
        assert page.locator("#offline-banner").is_visible()
        assert page.locator(".topbar a", has_text="Library").is_visible()
        assert page.locator("#budget").is_visible()
    page.locator("#messages").click(position={"x": 10, "y": 10})
    wait_until(page, "() => !document.body.classList.contains('typing')")
    if size is PHONE:
        # The banner's two lines are a mark in the top bar: with the bar and the chat's header
        # they took 190 px of the 844 above the conversation (131 since).
        assert page.get_by_test_id("offline-mark-top").is_visible()
        assert "Offline demo" in page.get_by_test_id("offline-mark-top").get_attribute("title")
        assert not page.locator("#offline-banner").is_visible()
        assert page.locator("#messages").bounding_box()["y"] <= 150
        assert audit_in_each_scheme(page) == {}
    else:
        assert page.locator("#offline-banner").is_visible()
    # the top bar is back: on a phone one row, its links behind its own ≡ Menu
    top = page.get_by_test_id("nav-toggle") if size is PHONE else page.locator(
        ".topbar a", has_text="Library")
    assert top.is_visible()
    assert page.locator("#budget").is_visible()
    assert not page.locator("[data-testid=nav-menu]").is_visible()
    screenshot_take(page, f"33_room_{size['width']}x{size['height']}_reading", full_page=False)
    assert page.js_errors == []


@pytest.mark.parametrize("size", [KEYBOARD_OPEN, {"width": 844, "height": 390}],
                         ids=["390x500", "844x390"])
def test_a_short_screen_keeps_room_to_read_with_the_keyboard_closed(page: Page, server: Server,
                                                                    size: dict) -> None:
    """A short phone (or one held sideways) with no keyboard: the chrome stays folded while
    reading, so the conversation keeps at least 250 px (it kept 112 at 390×500, 231 at 844×390,
    where the composer is one row); ≡ opens the
    nav and the full offline banner, a tap in the conversation folds them again."""
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(size)
    _chat_with_a_few_turns(page, server)
    page.locator("#messages").click(position={"x": 10, "y": 10})
    wait_until(page, "() => document.activeElement.id !== 'input'")
    page.wait_for_timeout(700)  # the unfold after a tap away from the input would have come
    assert not _typing(page)
    screenshot_take(page, f"33_room_{size['width']}x{size['height']}_keyboard_closed", full_page=False)
    # 844×390 kept 231 px until the composer became one row beside its buttons (issue 33).
    assert _visible_height(page, "#messages") >= 250
    assert page.locator("[data-testid=offline-mark]").is_visible()
    assert not page.locator(".topbar").is_visible()
    assert page.evaluate(RUN) == []
    for testid in ("input", "send", "regenerate", "continue", "impersonate"):
        box = page.locator(f"[data-testid={testid}]").bounding_box()
        assert 0 <= box["y"] and box["y"] + box["height"] <= size["height"], testid
    page.click("[data-testid=nav-menu]")
    assert page.locator(".topbar a", has_text="Library").is_visible()
    if size["width"] <= 700:  # a phone's menu says it; wider, the banner has the room
        assert page.get_by_test_id("menu-offline").is_visible()
    else:
        assert page.locator("#offline-banner").is_visible()
    screenshot_take(page, f"33_room_{size['width']}x{size['height']}_menu_open", full_page=False)
    page.keyboard.press("Escape")  # a phone's top bar opened its menu of links over the page
    page.locator("#messages").click(position={"x": 10, "y": 10})
    wait_until(page, "() => document.body.classList.contains('folded')")
    assert not page.locator(".topbar").is_visible()
    assert page.js_errors == []


@pytest.fixture
def phone_page(server: Server) -> Iterator[Page]:
    yield from phone_page_open(server)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_phones_chat_header_is_one_line_and_its_menu_keeps_the_offline_mark(
        phone_page: Page, server: Server, language: str) -> None:
    """A touch phone in English: "conversation 3 · History · Persona & memory" wrapped onto two
    44 px lines (the header 131 px; the Chinese fitted at 390, not at 360). ≡ Menu brought the
    full offline banner back under its list (the mark went). The demo chat's outline is under
    way: ☰ Story's "2/10 · 3 in progress" beside the line cut it to "conv. 3 · History …", and
    while typing cut the name to "A."."""
    page = phone_page
    page.context.add_cookies([{"name": "django_language", "value": language, "url": server.url}])
    page.goto(f"{server.url}/instances/inst_001/")
    assert page.get_by_test_id("story-progress").is_visible()
    # the links that stand for ☰ Story and ✕ Close without a script (a.button showed them)
    assert page.get_by_test_id("drawer-link").is_hidden()
    for width in (390, 360):
        page.set_viewport_size({"width": width, "height": 844})
        page.wait_for_timeout(50)
        line = page.locator(".chat-title small")
        assert line.bounding_box()["height"] <= 46, (language, width)
        assert page.locator(".chat-head").bounding_box()["height"] <= 90, (language, width)
        assert page.evaluate("() => { const s = document.querySelector('.chat-title small');"
                             " return s.scrollWidth <= s.clientWidth; }"), (language, width)
        # Short words, nothing hidden: both links are there, the second named in full.
        assert page.get_by_role("link", name="Persona & memory" if language == "en"
                                else "人格与记忆").is_visible()
        assert page.get_by_role("link", name="History" if language == "en"
                                else "历史").is_visible()
        toggle = page.get_by_test_id("drawer-toggle").bounding_box()
        assert toggle["x"] + toggle["width"] <= width, (language, width)
    page.set_viewport_size({"width": 1366, "height": 768})  # the drawer a side column
    assert page.get_by_test_id("drawer-close-link").is_hidden()
    page.set_viewport_size({"width": 360, "height": 844})
    # A long title (a group of three's "林梅 & Bram Holt & Lyra Vance") took a second line
    long_name = "Lin Mei & Bram Holt & Lyra Vance"
    api_call(page, server, "PUT", "/instances/inst_001", {"name": long_name})
    try:
        page.reload()
        title = page.get_by_test_id("chat-title")
        assert title.bounding_box()["height"] <= 30 and title.get_attribute("title") == long_name
        assert page.locator(".chat-head").bounding_box()["height"] <= 90, language
    finally:
        api_call(page, server, "PUT", "/instances/inst_001", {"name": ""})
        page.reload()
    # While the memory index catches up (a long import), the script says so after the links:
    # it was cut to "memory…" there. Shown as static/chat/memory.js shows it.
    page.evaluate("() => { const p = document.getElementById('index-progress'); p.hidden = false;"
                  " p.textContent = p.dataset.text.replace('%(embedded)s', '0')"
                  ".replace('%(lines)s', '81'); }")
    assert page.evaluate("() => [document.querySelector('.chat-title small'),"
                         " document.getElementById('index-progress')]"
                         ".every(s => s.scrollWidth <= s.clientWidth)"), language
    assert page.evaluate("() => ['.chat-title small', '[data-testid=drawer-toggle]'].every(s =>"
                         " document.querySelector(s).getBoundingClientRect().right <= innerWidth)")
    assert page.get_by_role("link", name="History" if language == "en" else "历史").is_visible()
    page.locator("[data-testid=input]").focus()
    wait_until(page, "() => document.body.classList.contains('typing')")
    assert page.locator(".chat-head h1").bounding_box()["width"] >= 48, language
    page.locator("#messages").click(position={"x": 10, "y": 10})
    wait_until(page, "() => !document.body.classList.contains('typing')")
    page.get_by_test_id("nav-toggle").click()
    assert page.locator(".topbar nav a").first.is_visible()
    assert page.get_by_test_id("offline-mark-top").is_visible()
    assert page.get_by_test_id("menu-offline").is_visible()
    assert not page.locator("#offline-banner").is_visible()
    screenshot_take(page, f"33_phone_menu_offline_{language}", full_page=False)
    page.keyboard.press("Escape")
    page.context.add_cookies([{"name": "django_language", "value": "en", "url": server.url}])
    assert page.js_errors == []
