"""A reply cut by a kill -9 of the server: after the restart its "Prompt" link opens the prompt
inspector with what was sent, and says the reply was interrupted (it opened "Not found")."""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING

from tests.e2e.conftest import (
    PHONE,
    Server,
    instance_new,
    message_act,
    message_send,
    screenshot_take,
    turn_wait_done,
)
from tests.stub_llm import Reply

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
    page.wait_for_function(
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
    page.wait_for_function(
        "() => (document.querySelector('#messages .msg.assistant.pending .text') || {}).textContent"
        "?.length > 20")
    server.stop()
    try:
        page.wait_for_selector("[data-testid=connection]:visible")
    finally:
        server.start()
    page.wait_for_selector("[data-testid=connection]", state="hidden", timeout=30_000)
    # Without a reload the page shows the line the file kept, not the bubble it was filling.
    page.wait_for_function(
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
