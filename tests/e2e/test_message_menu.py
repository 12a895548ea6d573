"""A message's actions without a mouse (issue 33 items 2 and 8): on a touch screen a long press
opens a menu of labelled actions that closes on a tap outside or Escape; with the keyboard
alone (Tab, Enter, arrows, Escape) a player edits, hides, deletes and restores a message and
flips the last reply's versions, the focus always visible and back on the message afterwards."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.axe_audit import AXE, RUN
from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    browser_missing_reason,
    instance_new,
    message_act,
    message_send,
    screenshot_take,
    send_click,
    turn_wait_done,
    wait_until,
)
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

FOCUSED = """() => { const el = document.activeElement;
  return {index: el.closest('.msg')?.dataset.index ?? null, testid: el.dataset.testid ?? null,
          message: el.matches('.msg[data-index]'), text: el.textContent.trim().slice(0, 40),
          outline: getComputedStyle(el).outlineStyle}; }"""


def _touch_screen(page: Page):
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    return cdp


# The element's box once two frames agree: a reply's last render and the scroll to it land in a
# frame after its `done`, and a box read before them sent the finger elsewhere (seen once, in a
# run of every browser file in one process).
BOX_AT_REST = """(element) => new Promise((found) => {
  let last = "";
  const look = () => {
    const {x, y, width, height} = element.getBoundingClientRect();
    const now = [x, y, width, height].join();
    if (now === last) found({x, y, width, height});
    else { last = now; requestAnimationFrame(look); }
  };
  requestAnimationFrame(look);
})"""


def _long_press(page: Page, cdp, target: Locator) -> None:
    box = target.evaluate(BOX_AT_REST)
    x, y = box["x"] + 12, box["y"] + box["height"] / 2
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    page.wait_for_timeout(800)  # a finger held down, longer than the press needs
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def _tap(cdp, x: float, y: float) -> None:
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def _tap_on(cdp, box: dict) -> None:
    _tap(cdp, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def _menu_items(page: Page) -> list[str]:
    return page.locator("[data-testid=message-menu] [role=menuitem]").all_inner_texts()


def test_a_long_press_opens_the_message_menu_with_labelled_actions(page: Page,
                                                                   server: Server) -> None:
    page.set_viewport_size(PHONE)
    cdp = _touch_screen(page)
    instance_id = instance_new(page, server)
    server.stub.script(Reply("A reply to hold."))
    page.fill("[data-testid=input]", "Hello.")
    send_click(page)
    turn_wait_done(page)
    reply = page.locator("[data-last-reply] .text")
    _long_press(page, cdp, reply)
    menu = page.get_by_test_id("message-menu")
    menu.wait_for()
    screenshot_take(page, "33_long_press_menu_390", full_page=False)
    items = _menu_items(page)
    for word in ("Copy", "Edit", "Hide", "Delete", "Branch"):
        assert word in items, items
    assert any(item.startswith("› new version") for item in items), items
    box = menu.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
    _tap(cdp, 20, page.locator("#messages").bounding_box()["y"] + 8)  # outside: closes
    menu.wait_for(state="detached")
    _long_press(page, cdp, reply)
    menu.wait_for()
    page.keyboard.press("Escape")
    menu.wait_for(state="detached")
    # An item does what the message's own button does: hide, then delete with undo.
    _long_press(page, cdp, reply)
    _tap_on(cdp, page.get_by_test_id("menu-hide").bounding_box())
    page.wait_for_selector("[data-last-reply].hidden-from-model")
    assert server.session_lines(instance_id)[-1]["hidden"] is True
    _long_press(page, cdp, page.locator("[data-last-reply] .text"))
    _tap_on(cdp, page.get_by_test_id("menu-delete").bounding_box())
    page.wait_for_selector("[data-testid=undo]")
    assert "A reply to hold." not in page.locator("#messages").inner_text()
    _tap_on(cdp, page.get_by_test_id("undo").bounding_box())
    wait_until(page, "() => document.querySelector('#messages').textContent"
               ".includes('A reply to hold.')")
    assert server.session_lines(instance_id)[-1]["content"] == "A reply to hold."
    # A plain tap opens nothing: the menu wants a press.
    _tap_on(cdp, page.locator("[data-last-reply] .text").bounding_box())
    page.wait_for_timeout(700)
    assert page.get_by_test_id("message-menu").count() == 0
    assert page.js_errors == []


def _tab_until(page: Page, check: str, arg=None, *, key: str = "Tab", limit: int = 60) -> None:
    for _ in range(limit):
        if page.evaluate(check, arg):
            return
        page.keyboard.press(key)
    raise AssertionError(f"never reached: {check}")


def _menu_pick(page: Page, word: str) -> None:
    """Enter on the focused message opens its menu; arrows to the item; Enter runs it."""
    page.keyboard.press("Enter")
    page.get_by_test_id("message-menu").wait_for()
    for _ in range(12):
        if page.evaluate("() => document.activeElement.textContent.trim()").startswith(word):
            page.keyboard.press("Enter")
            return
        page.keyboard.press("ArrowDown")
    raise AssertionError(f"no {word} in {_menu_items(page)}")


def _focused(page: Page) -> dict:
    return page.evaluate(FOCUSED)


def test_every_message_action_works_from_the_keyboard_alone(page: Page, server: Server) -> None:
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(DESKTOP)
    instance_id = instance_new(page, server)
    server.stub.script(Reply("First take."), Reply("Second take."))
    message_send(page, "Hello.")
    turn_wait_done(page)
    page.click("[data-testid=regenerate]")
    turn_wait_done(page)
    mine = page.locator(".msg.user[data-index]").last.get_attribute("data-index")
    page.locator("[data-testid=input]").focus()
    # Back from the input to the player's message, by keys only.
    _tab_until(page, "i => document.activeElement.matches(`.msg[data-index='${i}']`)", mine,
               key="Shift+Tab")
    assert _focused(page)["outline"] != "none"  # the focus can be seen
    page.keyboard.press("Enter")
    page.get_by_test_id("message-menu").wait_for()
    screenshot_take(page, "33_keyboard_menu_1366", full_page=False)
    assert page.evaluate(RUN) == []  # the open menu too (axe-core)
    page.keyboard.press("Escape")
    page.get_by_test_id("message-menu").wait_for(state="detached")
    focused = _focused(page)  # back on the message
    assert focused["message"] and focused["index"] == mine

    _menu_pick(page, "Edit")
    wait_until(page, "() => document.activeElement.dataset.testid === 'edit-box'")
    page.keyboard.press("Control+A")
    page.keyboard.type("Hello again.")
    page.keyboard.press("Enter")
    wait_until(page, "i => document.querySelector(`.msg[data-index='${i}'] .text`)"
               ".textContent.includes('Hello again.')", arg=mine)
    wait_until(page, "i => document.activeElement.matches(`.msg[data-index='${i}']`)", arg=mine)
    user_line = next(line for line in reversed(server.session_lines(instance_id))
                     if line.get("role") == "user")
    assert user_line["content"] == "Hello again."

    _menu_pick(page, "Hide")
    page.wait_for_selector(f".msg[data-index='{mine}'].hidden-from-model")
    wait_until(page, "i => document.activeElement.matches(`.msg[data-index='${i}']`)", arg=mine)

    _menu_pick(page, "Delete")
    wait_until(page, "() => document.activeElement.dataset.testid === 'undo'")
    assert "Hello again." not in page.locator("#messages").inner_text()
    page.keyboard.press("Enter")
    wait_until(page, "() => document.querySelector('#messages').textContent"
               ".includes('Hello again.')")
    wait_until(page, "i => document.activeElement.closest(`.msg[data-index='${i}']`)",
                           arg=mine)
    assert any(line.get("content") == "Hello again." for line in server.session_lines(instance_id))

    # The last reply's ‹ with Tab and Enter; the focus stays on the reply.
    _tab_until(page, "() => document.activeElement.dataset.testid === 'swipe-prev'")
    page.keyboard.press("Enter")
    wait_until(page, "() => document.querySelector('[data-last-reply] .swipe-pos')"
               ".textContent === '1/2'")
    wait_until(page, "() => document.activeElement.closest('[data-last-reply]')")
    assert "First take." in page.locator("[data-last-reply] .text").inner_text()
    _tab_until(page, "() => document.activeElement.matches('[data-last-reply]')", key="Shift+Tab")
    _menu_pick(page, "› next version")
    wait_until(page, "() => document.querySelector('[data-last-reply] .swipe-pos')"
               ".textContent === '2/2'")
    assert "Second take." in page.locator("[data-last-reply] .text").inner_text()
    wait_until(page, "() => document.activeElement.matches('[data-last-reply]')")
    screenshot_take(page, "33_keyboard_done_1366", full_page=False)
    assert page.js_errors == []


# Each change the page sends is counted while it is on its way, and its answer held back
# 400 ms, as a busy server's would be.
CHANGES_COUNTED = """() => {
  const send = window.fetch;
  window.changesAtOnce = {now: 0, most: 0};
  window.fetch = async (address, options = {}) => {
    if (!options.method || options.method === "GET") return send(address, options);
    const count = window.changesAtOnce;
    count.most = Math.max(count.most, ++count.now);
    try {
      const answer = await send(address, options);
      await new Promise((done) => setTimeout(done, 400));
      return answer;
    } finally { count.now -= 1; }
  };
}"""


def test_two_quick_changes_reach_the_server_one_after_the_other(page: Page,
                                                                 server: Server) -> None:
    """Hide pressed on a second message before the first one's answer came: the server holds
    the chat for each change and refuses another meanwhile ("busy"), so the page sends the
    second after the first, and both messages are hidden."""
    page.set_viewport_size(DESKTOP)
    instance_new(page, server)
    server.stub.script(Reply("An answer to hide."))
    message_send(page, "A line to hide.")
    turn_wait_done(page)
    page.evaluate(CHANGES_COUNTED)
    for role in ("user", "assistant"):
        message_act(page.locator(f"#messages .msg.{role}").last, "hide")
    page.locator("#messages .msg.hidden-from-model").nth(1).wait_for()
    assert page.evaluate("window.changesAtOnce") == {"now": 0, "most": 1}
    assert page.js_errors == []
