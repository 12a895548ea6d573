"""The chat page keeps up without a reload: a streaming reply is named, with its picture, from
its first token (each member of a group its own); Summarize's result stays until dismissed,
its elapsed time starts at 0 on each run; the recap due moves after each turn; a group's title
follows its members; a click on the turn buttons before the page's script or socket is ready is
never lost. Screenshots go to tests/e2e/screenshots/. (A Summarize cut by the server
going down: tests/e2e/test_server_outage.py, the module that stops its server.)"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from library.avatars import avatar_write
from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    browser_missing_reason,
    instance_new,
    message_send,
    screenshot_take,
    turn_wait_done,
    wait_until,
)
from tests.e2e.page_api import api_call, members_card_open, persona_make
from tests.png_files import png_bytes
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

STREAMING_NAME = """name => { const bubble = [...document.querySelectorAll('#messages .msg.assistant.pending')].pop();
  return !!bubble && bubble.querySelector('.text').textContent.length > 0
    && bubble.querySelector('.who strong').textContent === name; }"""


def _pending(page: Page) -> dict:
    return page.evaluate("""() => { const b = [...document.querySelectorAll('#messages .msg.assistant.pending')].pop();
      const img = b.querySelector('img.avatar');
      return {name: b.querySelector('.who strong').textContent, text: b.querySelector('.text').textContent,
              picture: img ? img.getAttribute('src') : null,
              initial: img ? null : b.querySelector('.avatar').textContent}; }""")


def test_each_streaming_reply_of_a_group_is_named_with_its_picture_from_its_first_token(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    api_call(page, server, "POST", "/characters", {"character_id": "char_wren_live", "name": "Wren",
                                                "base_persona": "Wren, a scout."})
    # The member with a picture is a character of its own: the demo's is shared by the modules
    # on the shared server.
    api_call(page, server, "POST", "/characters", {"character_id": "char_rook_live", "name": "Rook",
                                                "base_persona": "Rook, a driver."})
    avatar_write(server.data / "characters" / "char_rook_live", png_bytes(20, 30), "png")
    group = api_call(page, server, "POST", "/instances", {
        "character_ids": ["char_wren_live", "char_rook_live"], "reply_order": "everyone"})["instance_id"]
    page.goto(f"{server.url}/instances/{group}/")
    slow = "The road bends north and the dust rises behind the last truck. " * 3
    # Each reply stops after a few pieces until the test lets it go (tests/stub_llm.py).
    server.stub.script(Reply(slow, chunk_size=2, held_after=4),
                       Reply(slow, chunk_size=2, held_after=4))
    message_send(page, "We leave at dawn.")
    wait_until(page, STREAMING_NAME, arg="Wren")
    wren = _pending(page)
    assert (wren["name"], wren["picture"], wren["initial"]) == ("Wren", None, "W")
    screenshot_take(page, "live_state_streaming_wren_390", full_page=False)
    server.stub.release()
    wait_until(page, STREAMING_NAME, arg="Rook", timeout=30_000)
    rook = _pending(page)
    assert rook["picture"] == "/library/characters/char_rook_live/avatar.png"
    assert len(rook["text"]) < len(slow)  # still streaming
    screenshot_take(page, "live_state_streaming_rook_390", full_page=False)
    server.stub.release()
    turn_wait_done(page)
    assert page.js_errors == []


def test_a_groups_title_follows_its_members_without_a_reload(page: Page, server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    api_call(page, server, "POST", "/characters", {"character_id": "char_mara_live", "name": "Mara",
                                                "base_persona": "Mara, a medic."})
    solo = api_call(page, server, "POST", "/instances", {"character_id": "char_alserqi"})
    page.goto(f"{server.url}/instances/{solo['instance_id']}/")
    assert page.inner_text("[data-testid=chat-title]") == "Alserqi"
    card = members_card_open(page)
    card.locator("select[name=character_id]").select_option("char_mara_live")
    card.locator("button:has-text('Add to the story')").click()
    wait_until(page, "() => document.querySelector('[data-testid=chat-title]')"
               ".textContent === 'Alserqi & Mara'")
    # The tab's title follows once htmx has settled the swap (20 ms after it).
    wait_until(page, "() => document.title.startsWith('Alserqi & Mara')", timeout=5000)
    screenshot_take(page, "live_state_group_title_1366", full_page=False)
    assert page.js_errors == []


def test_summarize_results_stay_until_dismissed_and_the_recap_due_moves_with_each_turn(
        page: Page, server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    instance_new(page, server)
    assert "(now at turn 0)" in page.inner_text("#recap-due")
    server.stub.script(Reply("Noted."))
    message_send(page, "Remember the red sail.")
    turn_wait_done(page)
    wait_until(page, "() => document.getElementById('recap-due').textContent"
               ".includes('(now at turn 1)')")
    summary = json.dumps({"events": [{"summary": "A red sail was seen.",
                                      "plot": "The player pointed out a red sail."}]})
    server.stub.script(Reply(summary, chunk_size=2, delay=0.03))
    page.click("[data-memory-action=summarize]")
    wait_until(page, "() => /took/.test(document.getElementById('memory-result').textContent)",
                           timeout=60_000)
    wait_until(page, "() => document.querySelector('#messages .msg.summary')")
    # The old page reloaded itself 0.8 s after the result came, wiping it.
    page.wait_for_timeout(2000)
    result = page.inner_text("#memory-result")
    assert "Summarized into 1 events" in result
    screenshot_take(page, "live_state_summarized_1366", full_page=False)
    page.click("[data-testid=memory-result-dismiss]")
    assert page.inner_text("#memory-result") == ""
    # A second run counts from 0, not from where the first one ended.
    elapsed = page.evaluate("""() => { document.querySelector('[data-memory-action=summarize]').click();
      return document.getElementById('memory-elapsed').textContent; }""")
    assert elapsed == "0 s"
    wait_until(page, "() => document.getElementById('memory-result').textContent.trim() !== ''",
                           timeout=60_000)
    assert page.js_errors == []


def test_the_players_line_shows_their_personas_name_and_picture_before_the_reply(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    persona = persona_make(page, server, "Ann")
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    uploaded = page.request.post(
        f"{server.url}/api/v1/personas/{persona}/avatar", headers={"X-CSRFToken": token},
        multipart={"file": {"name": "ann.png", "mimeType": "image/png",
                            "buffer": png_bytes(20, 30)}})
    assert uploaded.ok, uploaded.text()
    chat = api_call(page, server, "POST", "/instances", {"character_id": "char_alserqi",
                                                     "persona_id": persona})["instance_id"]
    page.goto(f"{server.url}/instances/{chat}/")
    server.stub.script(Reply("Welcome, Ann. " * 10, chunk_size=2, held_after=2))
    message_send(page, "I am back.")
    mine = page.evaluate("""() => { const b = [...document.querySelectorAll('#messages .msg.user.pending')].pop();
      return {name: b.querySelector('.who strong').textContent,
              picture: b.querySelector('img.avatar') && b.querySelector('img.avatar').getAttribute('src')}; }""")
    assert mine == {"name": "Ann", "picture": f"/library/personas/{persona}/avatar"}
    screenshot_take(page, "live_state_persona_line_390", full_page=False)
    server.stub.release()
    turn_wait_done(page)
    assert page.js_errors == []


# The page's WebSocket opens 2 s late, as on a loaded server: its "open" reaches the page's
# listeners (and readyState says OPEN) only then.
SOCKET_OPENS_LATE = """(() => {
  const Real = window.WebSocket;
  window.WebSocket = function (...args) {
    const socket = new Real(...args);
    let open = false;
    const listen = socket.addEventListener.bind(socket);
    listen("open", () => setTimeout(() => { open = true; }, 2000));
    socket.addEventListener = (type, handler, ...rest) => listen(
      type, type === "open" ? (event) => setTimeout(() => handler(event), 2000) : handler, ...rest);
    Object.defineProperty(socket, "readyState", {get: () => open ? Real.OPEN : Real.CONNECTING});
    return socket;
  };
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})()"""


def test_regenerate_clicked_before_the_socket_opens_waits_for_it(page: Page,
                                                                 server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    page.add_init_script(SOCKET_OPENS_LATE)
    instance_id = instance_new(page, server)
    server.stub.script(Reply("First take."), Reply("Second take."))
    message_send(page, "Where is the gate?")
    turn_wait_done(page)
    page.reload()
    page.click("[data-testid=regenerate]")
    wait_until(page, "() => [...document.querySelectorAll('#messages .msg[data-role] .text')]"
               ".pop().textContent.trim() === 'Second take.'")
    turn_wait_done(page)
    assert server.session_lines(instance_id)[-1]["content"] == "Second take."
    assert page.locator("#messages .msg[data-role]").count() == 3  # the old version left the view
    assert page.get_by_test_id("connection").is_hidden()
    assert page.js_errors == []


def test_the_turn_buttons_are_off_until_the_page_script_listens(page: Page,
                                                                server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    instance_id = instance_new(page, server)
    page.route("**/chat/main.js", lambda route: route.abort())
    page.goto(f"{server.url}/instances/{instance_id}/")
    page.wait_for_load_state()
    for testid in ("send", "regenerate", "continue", "impersonate"):
        assert page.get_by_test_id(testid).is_disabled(), testid
    page.unroute("**/chat/main.js")
    page.reload()
    for testid in ("send", "regenerate", "continue", "impersonate"):
        page.get_by_test_id(testid).wait_for(state="visible")
        wait_until(page, f"() => !document.querySelector('[data-testid={testid}]').disabled")
