"""Controls a thumb can read, and names where a player looks (issue 33 items 2 and 3), at phone
(390×844, touch) and laptop (1366×900) size: Regenerate / Continue / Impersonate say their word
on a phone too, a sideways swipe on the last reply flips its versions, the delete undo lasts
long enough to reach, the home page names chats instead of showing ids, and the history's times
follow the chosen UI language. On a touch screen every control of an evening (swipe arrows, ⋯,
Undo, the folded header's ≡ and ☰, the drawer's folds) is at least 44 × 44 px."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    SIZES,
    Server,
    browser_missing_reason,
    history_act,
    instance_new,
    message_act,
    message_send,
    no_sideways_scroll,
    phone_page_open,
    screenshot_take,
    send_click,
    turn_wait_done,
    wait_until,
)
from tests.e2e.page_api import api_call, character_make, drawer_open
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def _touch_screen(page: Page):
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    return cdp


def _finger_slide(cdp, box: dict, dx: float) -> None:
    """One finger across the middle of `box`, `dx` px sideways (negative: to the left)."""
    x, y = box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 30)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 6):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove",
                                              "touchPoints": [{"x": x + dx * step / 5, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def _send_by_button(page: Page, text: str) -> None:
    """On a touch screen Enter is a new line: the Send button sends."""
    page.fill("[data-testid=input]", text)
    send_click(page)
    turn_wait_done(page)


def _last_reply_position(page: Page) -> str:
    return page.locator("[data-last-reply] .swipe-pos").inner_text()


@SIZES
def test_the_buttons_under_the_input_say_what_they_do(page: Page, server: Server,
                                                      size: dict) -> None:
    page.set_viewport_size(size)
    instance_new(page, server)
    server.stub.script(Reply("Here."))
    message_send(page, "Hello.")
    turn_wait_done(page)
    screenshot_take(page, f"33_labelled_buttons_{size['width']}", full_page=False)
    no_sideways_scroll(page)
    for testid, word in (("regenerate", "Regenerate"), ("continue", "Continue"),
                         ("impersonate", "Impersonate")):
        button = page.locator(f"[data-testid={testid}]")
        label = button.locator(".label")
        assert label.is_visible() and label.inner_text() == word, testid
        inside, outside = button.bounding_box(), label.bounding_box()
        assert outside["x"] >= inside["x"] - 1, testid
        assert outside["x"] + outside["width"] <= inside["x"] + inside["width"] + 1, testid
        assert inside["x"] + inside["width"] <= size["width"], testid
    assert page.js_errors == []


def test_a_sideways_swipe_on_the_last_reply_shows_its_other_versions(page: Page,
                                                                      server: Server) -> None:
    page.set_viewport_size(PHONE)
    cdp = _touch_screen(page)
    instance_new(page, server)
    server.stub.script(Reply("First take."), Reply("Second take."), Reply("Third take."))
    _send_by_button(page, "Tell me.")
    page.click("[data-testid=regenerate]")
    turn_wait_done(page)
    # The streamed bubble shows the new version first; its "2/2" comes with the page's read of
    # the file that follows a turn.
    wait_until(page, "() => document.querySelector('[data-last-reply] .swipe-pos')"
               "?.textContent === '2/2'")
    reply = page.locator("[data-last-reply]")
    _finger_slide(cdp, reply.bounding_box(), 150)  # to the right: the version before
    wait_until(page, "() => document.querySelector('[data-last-reply] .swipe-pos')"
               ".textContent === '1/2'")
    assert "First take." in page.locator("[data-last-reply] .text").inner_text()
    _finger_slide(cdp, page.locator("[data-last-reply]").bounding_box(), -150)
    wait_until(page, "() => document.querySelector('[data-last-reply] .swipe-pos')"
               ".textContent === '2/2'")
    # On the newest version a swipe to the left asks for a new one, as › does.
    _finger_slide(cdp, page.locator("[data-last-reply]").bounding_box(), -150)
    wait_until(page, "() => document.querySelector('[data-last-reply] .swipe-pos')"
               "?.textContent === '3/3'")
    turn_wait_done(page)
    assert "Third take." in page.locator("[data-last-reply] .text").inner_text()
    # Scrolling the chat (mostly up and down) never flips a reply.
    box = page.locator("[data-last-reply]").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + 20
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchMove",
                                          "touchPoints": [{"x": x + 70, "y": y + 200}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.wait_for_timeout(300)
    assert _last_reply_position(page) == "3/3"
    screenshot_take(page, "33_swiped_390", full_page=False)
    assert page.js_errors == []


def test_a_deleted_message_can_still_be_restored_after_a_few_seconds_on_a_phone(
        page: Page, server: Server) -> None:
    """The toast and the undo window were 3 s: gone before a thumb reached Undo."""
    page.set_viewport_size(PHONE)
    _touch_screen(page)
    instance_id = instance_new(page, server)
    server.stub.script(Reply("Keep me."))
    _send_by_button(page, "Hello.")
    message_act(page.locator("[data-last-reply]"), "delete")
    page.wait_for_selector("[data-testid=undo]")
    assert "Keep me." not in page.locator("#messages").inner_text()
    page.wait_for_timeout(4500)  # reading the toast, reaching for it
    page.click("[data-testid=undo]")
    wait_until(page, "() => document.querySelector('#messages').textContent"
               ".includes('Keep me.')")
    assert server.session_lines(instance_id)[-1]["content"] == "Keep me."
    assert page.js_errors == []


def test_players_read_names_and_times_in_their_language_not_ids(page: Page,
                                                                server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    instance_id = instance_new(page, server)
    server.stub.script(Reply("Hi."))
    message_send(page, "Hello.")
    turn_wait_done(page)
    session_id = server.instance_state(instance_id)["current_session_id"]
    page.goto(f"{server.url}/")
    home = page.locator("main").inner_text()
    assert instance_id not in home and session_id not in home
    store = server.store
    read = store.session_read(instance_id, session_id)
    first = next(i for i, line in enumerate(read.lines) if line.get("role") == "user")
    lines = list(read.lines)
    lines[first] = {**lines[first], "timestamp": "2024-10-04T20:01:00Z"}
    store.session_rewrite(instance_id, session_id, [read.metadata, *lines])
    page.context.add_cookies([{"name": "django_language", "value": "zh-hans",
                               "url": server.url}])
    try:
        page.goto(f"{server.url}/instances/{instance_id}/history/")
        row = page.locator(".history-row", has_text="Hello.")
        page.wait_for_selector(".history-row time[data-local]")
        shown = row.locator("time").inner_text()
        screenshot_take(page, "33_history_zh_1366", full_page=False)
    finally:
        page.context.clear_cookies(name="django_language")
    assert "2024年" in shown and "T20" not in shown, shown
    assert page.js_errors == []


@SIZES
def test_the_history_manager_edits_hides_deletes_and_undoes_through_the_api(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    page.on("dialog", lambda dialog: dialog.accept())
    instance_id = instance_new(page, server)
    server.stub.script(Reply("Old words."))
    message_send(page, "Hello.")
    turn_wait_done(page)
    page.goto(f"{server.url}/instances/{instance_id}/history/")
    row = page.locator(".history-row", has_text="Old words.")
    history_act(row, "Edit")
    row.locator("textarea[name=text]").fill("New words.")
    row.locator("button[type=submit]", has_text="Save").click()
    page.wait_for_selector("#history-rows .notice [data-testid=history-undo]")
    assert "New words." in page.locator("#history-rows").inner_text()
    assert server.session_lines(instance_id)[-1]["content"] == "New words."
    screenshot_take(page, f"33_history_edited_{size['width']}", full_page=False)
    page.click("[data-testid=history-undo]")
    wait_until(page, "() => !document.querySelector('[data-testid=history-undo]')"
               " && document.querySelector('#history-rows .notice')")
    assert server.session_lines(instance_id)[-1]["content"] == "Old words."
    row = page.locator(".history-row", has_text="Old words.")
    history_act(row, "Hide")
    page.wait_for_selector(".history-row.hidden-from-model")
    assert server.session_lines(instance_id)[-1]["hidden"] is True
    row = page.locator(".history-row", has_text="Old words.")
    history_act(row, "Delete")
    wait_until(page, "() => !document.querySelector('#history-rows').textContent"
               ".includes('Old words.')")
    assert all(line.get("content") != "Old words." for line in server.session_lines(instance_id))
    no_sideways_scroll(page)
    assert page.js_errors == []


@pytest.fixture
def thumb(server: Server) -> Iterator[Page]:
    """A logged-in phone page with a touch screen (a context of its own)."""
    yield from phone_page_open(server)


def _box(locator) -> tuple[int, int]:
    box = locator.bounding_box()
    return round(box["width"]), round(box["height"])


def test_the_controls_of_an_evening_are_big_enough_for_a_thumb(thumb: Page, server: Server) -> None:
    """The swipe arrows, the Undo of a deletion and the folded header's ≡ and ☰ were 24–31 px
    tall on a touch screen: each is now at least 44 × 44 px."""
    page = thumb
    instance_id = api_call(page, server, "POST", "/instances",
                       {"character_id": character_make(page, server, "Hal")})["instance_id"]
    server.stub.script(Reply("First answer."), Reply("Second answer."))
    page.goto(f"{server.url}/instances/{instance_id}/")
    # the header's links, while reading (typing folds the header and hides them)
    links = {name: _box(page.locator(".chat-title small a", has_text=name))
             for name in ("History", "Persona & memory")}
    for text in ("One.", "Two."):  # on a touch screen Enter is a new line: Send sends
        page.locator("[data-testid=input]").fill(text)
        page.get_by_test_id("send").click()
        page.locator("#messages .msg.user", has_text=text).wait_for()
        turn_wait_done(page)
    # a message's ⋯ (drawn 36 px tall in the name's line) answers a tap over 44 px
    more = page.locator("#messages .msg").last.get_by_test_id("more")
    box = more.bounding_box()
    reach = page.evaluate("""([x, top, bottom]) => [top - 3, bottom + 3].map((y) =>
      document.elementFromPoint(x, y)?.closest('[data-testid=more]') !== null)""",
                          [box["x"] + box["width"] / 2, box["y"], box["y"] + box["height"]])
    sizes = {"⋯": (round(box["width"]), round(box["height"]) + 8 if all(reach) else 0),
             "‹": _box(page.get_by_test_id("swipe-prev").last),
             "›": _box(page.get_by_test_id("swipe-next").last), **links}
    page.locator("[data-testid=input]").fill("a line being typed")
    wait_until(page, "() => document.body.classList.contains('folded')")
    sizes["≡"] = _box(page.locator(".nav-menu"))
    sizes["☰"] = _box(page.get_by_test_id("drawer-toggle"))
    message_act(page.locator("#messages .msg.user").first, "delete")
    sizes["Undo"] = _box(page.get_by_test_id("undo"))
    screenshot_take(page, "thumb_controls", full_page=False)
    assert {name: size for name, size in sizes.items() if min(size) < 44} == {}
    assert page.js_errors == []


def test_the_chat_drawers_folds_open_from_a_thumb_sized_heading(thumb: Page, server: Server) -> None:
    page = thumb
    instance_id = api_call(page, server, "POST", "/instances",
                       {"character_id": character_make(page, server, "Ida")})["instance_id"]
    page.goto(f"{server.url}/instances/{instance_id}/")
    drawer_open(page)
    folds = page.locator("#drawer details.card > summary, #drawer .instance-manage > summary")
    shut = folds.evaluate_all("els => els.map(e => e.closest('details').getBoundingClientRect().height)")
    sizes = {text.strip(): _box(fold) for text, fold in zip(folds.all_inner_texts(), folds.all())}
    assert len(sizes) >= 4
    for export in ("jsonl", "md"):  # the export links were 18 px tall
        sizes[export] = _box(page.locator(f"#drawer a[data-export={export}]"))
    assert {text: size for text, size in sizes.items() if size[1] < 44} == {}
    folds.first.click()  # a tap on the heading opens it
    assert folds.first.evaluate("s => s.closest('details').open")
    screenshot_take(page, "drawer_folds", full_page=False)
    # the cards are drawn as before: a shut one is its heading's line and its padding
    assert max(shut) < 60, shut
