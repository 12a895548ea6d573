"""The chat page through a server outage: a reply cut by a kill -9 of the server (after the
restart its "Prompt" link opens the prompt inspector with what was sent, and says the reply was
interrupted; it opened "Not found"), a reply cut by a stop, typed text kept while the server is
down, and a Summarize the server's crash cut.

The one browser module that stops and starts its server: the others share the process's
(tests/e2e/conftest.py, `server_shared`), so the tests that take a server down live here."""

from __future__ import annotations

import signal
import time
from typing import TYPE_CHECKING

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    instance_new,
    message_act,
    message_send,
    network_quiet,
    screenshot_take,
    turn_wait_done,
    wait_until,
)
from tests.stub_llm import Hang, Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

SLOW = "".join(f"Bell {n} rings over the bay. " for n in range(1, 40))
LAMPS = "".join(f"Lamp {n} is lit along the pier. " for n in range(1, 40))


def test_the_prompt_of_a_reply_a_kill_9_cut_opens_and_says_it_was_interrupted(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    instance_id = instance_new(page, server)
    server.stub.script(Reply(SLOW, chunk_size=3, delay=0.05))
    message_send(page, "Ring the bells, one by one.")
    wait_until(page,
        "() => (document.querySelector('#messages .msg.assistant.pending .text') || {}).textContent"
        "?.length > 20")
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(timeout=10)
    server.start()
    page.goto(f"{server.url}/instances/{instance_id}/")
    last = page.locator("#messages .msg.assistant").last
    assert last.locator(".tag", has_text="interrupted").count() == 1
    page.wait_for_selector("#budget .seg", timeout=10_000)  # the bar reads the trace too
    kept = server.session_lines(instance_id)[-1]
    message_act(last, "prompt")  # on a phone, an item of the message's ⋯ menu
    page.wait_for_selector("#trace-unfinished")
    assert "was interrupted" in page.locator("#trace-unfinished").inner_text()
    assert "Ring the bells, one by one." in page.locator("pre").all_inner_texts()
    assert kept["content"].strip() in page.locator("pre").last.inner_text()
    screenshot_take(page, "crash_trace_01_prompt_of_cut_reply_390", full_page=False)
    assert page.js_errors == []


def test_a_reply_cut_by_a_server_outage_shows_as_kept_once_the_server_is_back(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    instance_id = instance_new(page, server)
    server.stub.script(Reply(LAMPS, chunk_size=3, delay=0.05))
    message_send(page, "Light the lamps, slowly.")
    wait_until(page,
        "() => (document.querySelector('#messages .msg.assistant.pending .text') || {}).textContent"
        "?.length > 20")
    server.stop()
    try:
        page.wait_for_selector("[data-testid=connection]:visible")
    finally:
        server.start()
    page.wait_for_selector("[data-testid=connection]", state="hidden", timeout=30_000)
    # Without a reload the page shows the line the file kept, not the bubble it was filling.
    wait_until(page,
        "() => !document.querySelector('#messages .msg.pending')"
        " && document.querySelector('#messages .msg:last-child')?.dataset.role === 'assistant'"
        " && document.querySelector('#messages .msg:last-child').dataset.index !== undefined",
        timeout=15_000)
    last = page.locator("#messages .msg").last
    kept = server.session_lines(instance_id)[-1]
    assert kept["role"] == "assistant" and len(kept["content"]) > 20
    assert last.locator(".text").inner_text().strip() == kept["content"].strip()
    assert last.locator(".tag", has_text="interrupted").count() == 1
    screenshot_take(page, "evening_01_after_outage_390", full_page=False)
    server.stub.script(Reply("The last lamp is lit."))
    message_send(page, "And now?")
    turn_wait_done(page)
    assert page.locator("#messages .msg.assistant .text").last.inner_text() == "The last lamp is lit."


# Counts the page's sockets and keeps the last, so a test can see a reconnection attempt made.
SOCKETS_COUNTED = """(() => { const Real = WebSocket; const seen = window.sockets = {count: 0, last: null};
  window.WebSocket = class extends Real {
    constructor(...args) { super(...args); seen.count += 1; seen.last = this; } }; })()"""
# Once the socket is closed (its close handler has run and the next try is waiting), the network
# coming back: whether a new socket was opened at once, before the back-off's timer.
ONLINE_AGAIN = """() => { const seen = window.sockets;
  if (!seen.last || seen.last.readyState !== WebSocket.CLOSED) return false;
  const before = seen.count;
  dispatchEvent(new Event("online"));
  return seen.count === before + 1 ? "tried at once" : "waited"; }"""


def test_typed_text_survives_a_reload_and_a_server_outage(page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    page.add_init_script(SOCKETS_COUNTED)
    instance_id = instance_new(page, server)
    page.fill("[data-testid=input]", "A draft I have not sent.")
    # The reloaded page's own reads done first: a stop while one is in flight keeps Daphne's
    # process from exiting (the request's thread waits on the stopped event loop) until
    # `Server.stop` kills it 20 s later.
    with network_quiet(page):
        page.reload()
    assert page.input_value("[data-testid=input]") == "A draft I have not sent."
    server.stop()
    try:
        page.wait_for_selector("[data-testid=connection]:visible")
        page.fill("[data-testid=input]", "Sent while the server was down.")
        page.press("[data-testid=input]", "Enter")
        assert page.input_value("[data-testid=input]") == "Sent while the server was down."
        banner = page.locator("[data-testid=connection]")
        assert "kept" in banner.inner_text()
        box = banner.bounding_box()
        assert box["y"] + box["height"] <= PHONE["height"]  # next to the input, not below the fold
        screenshot_take(page, "30_disconnected_390", full_page=False)
        assert wait_until(page, ONLINE_AGAIN).json_value() == "tried at once"
    finally:
        server.start()
    server.stub.script(Reply("Welcome back."))
    page.wait_for_selector("[data-testid=connection]", state="hidden", timeout=30_000)
    turn_wait_done(page)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        contents = [line.get("content") for line in server.session_lines(instance_id)]
        if "Sent while the server was down." in contents:
            break
        time.sleep(0.2)
    assert "Sent while the server was down." in contents
    assert page.input_value("[data-testid=input]") == ""
    screenshot_take(page, "31_reconnected_390", full_page=False)


def test_a_summarize_cut_by_the_server_going_down_says_it_stopped(page: Page,
                                                                  server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    instance_new(page, server)
    server.stub.script(Reply("Noted."))
    message_send(page, "Remember the lighthouse.")
    turn_wait_done(page)
    # A summary is asked for without streaming: the model's answer never comes, so the crash
    # below cuts the action while it runs.
    server.stub.script(Hang(120))
    page.click("[data-memory-action=summarize]")
    wait_until(page, "() => /[1-9] s/.test(document.getElementById('memory-elapsed').textContent)")
    server.process.kill()  # a crash: no graceful end for the request in flight
    server.process.wait(timeout=10)
    try:
        wait_until(page, "() => /Stopped/.test(document.getElementById('memory-result').textContent)",
                               timeout=30_000)
        assert page.locator("[data-testid=memory-result-dismiss]").is_visible()
        screenshot_take(page, "live_state_summarize_stopped_1366", full_page=False)
    finally:
        server.start()
