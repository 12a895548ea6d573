"""What an evening's walk through the chat page found: a reply cut by a server outage shows as
the file kept it once the server is back (no reload needed), and the prompt budget bar colours
the conversation as its legend says."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    instance_new,
    message_send,
    screenshot_take,
    turn_wait_done,
)
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

SLOW = "".join(f"Lamp {n} is lit along the pier. " for n in range(1, 40))


def test_a_reply_cut_by_a_server_outage_shows_as_kept_once_the_server_is_back(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    instance_id = instance_new(page, server)
    server.stub.script(Reply(SLOW, chunk_size=3, delay=0.05))
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


def test_the_budget_bar_colours_the_conversation_as_its_legend_says(
        page: Page, server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    instance_new(page, server)
    asked: list[str] = []  # the bar asks the light trace, not every message sent
    page.on("request", lambda r: asked.append(r.url) if "/api/v1/traces/" in r.url else None)
    server.stub.script(Reply("The harbor is quiet."))
    message_send(page, "How is the harbor?")
    turn_wait_done(page)
    page.wait_for_selector("#budget .seg", timeout=5000)
    assert asked and all(url.endswith("?fields=sections") for url in asked)
    titles = page.eval_on_selector_all(
        "#budget .seg", "els => els.map(e => [e.className, e.title.split(':')[0]])")
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
        "#section-bar span", "els => els.map(e => [e.className, e.title.split(':')[0]])")
    assert dict((name, cls) for cls, name in bar)["conversation"] == "seg-history"
    assert all(cls in ("seg-head", "seg-middle", "seg-history") for cls, _ in bar)
    assert page.js_errors == []


def test_the_import_report_says_which_narrator_lines_are_sent_and_keeps_off_the_edge(
        page: Page, server: Server, tmp_path) -> None:
    import json

    page.set_viewport_size(PHONE)
    instance_new(page, server)
    records = [{"user_name": "Tom", "character_name": "Mira", "create_date": "2024-10-3 @20h 01m",
                "chat_metadata": {}},
               {"name": "Tom", "is_user": True, "is_system": False, "mes": "Is it late?",
                "send_date": "October 3, 2024 8:01pm", "extra": {}},
               {"name": "System", "is_user": False, "is_system": False, "mes": "Night falls.",
                "send_date": "October 3, 2024 8:02pm", "extra": {"type": "narrator"}},
               {"name": "System", "is_user": False, "is_system": True, "mes": "ooc: a comment",
                "send_date": "October 3, 2024 8:03pm", "extra": {"type": "comment"}}]
    path = tmp_path / "Mira - night.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    page.locator("[data-testid=drawer-toggle]").click()
    page.locator("#chat-import input[type=file]").set_input_files(str(path))
    page.locator("#chat-import button[type=submit]").click()
    report = page.wait_for_selector("#import-report")
    assert "2 narrator lines (1 sent to the model, as SillyTavern sends it)" in report.inner_text()
    text = page.locator("#import-report p").first.bounding_box()
    assert text["x"] >= 8, "the report's text touches the screen's edge"
    screenshot_take(page, "evening_03_import_report_390", full_page=False)
    assert page.js_errors == []
