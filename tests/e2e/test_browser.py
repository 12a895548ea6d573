"""End-to-end through a real browser: log in (the fixture's login page; the list of chats it
lands on is server HTML, tests/pages/test_library_and_pages.py), write a character and a
background (outline edited with htmx), start an instance, stream, stop, warnings, prompt
inspector, summarize, and a second tab that follows a reply still streaming. One Daphne server
and one Chromium for the module; the tests run in order and build on each other (the instance
the home page starts is reused).

Run: .venv/bin/python -m pytest tests/e2e -q   (skips without /usr/bin/chromium or playwright)."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    PHONE,
    Server,
    browser_missing_reason,
    context_new,
    message_send,
    network_quiet,
    no_sideways_scroll,
    screenshot_take,
    turn_wait_done,
    wait_until,
)
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

CHARACTER_NAME = "Mira Test"
BACKGROUND_NAME = "Harbor of Glass"
# ~400 characters: at 4 characters per 20 ms the reply streams for about two seconds.
LONG_REPLY = "".join(f"Wave {n} rolls in over the glass harbor. " for n in range(1, 11))
SUMMARY_JSON = json.dumps({"events": [
    {"summary": "Mira met the traveller at the glass harbor.",
     "plot": "The traveller arrived by boat; Mira questioned them about the storm."},
]}, ensure_ascii=False)

flow: dict[str, str] = {}


def _needs(key: str) -> str:
    if key not in flow:
        pytest.skip(f"needs {key!r} from an earlier test in this module")
    return flow[key]


def _assistant_texts(page: Page) -> list[str]:
    return page.locator("#messages .msg.assistant .text").all_inner_texts()


def _streaming_length(page: Page) -> int:
    return page.evaluate(
        "() => { const t = [...document.querySelectorAll('#messages .msg.assistant .text')].pop();"
        " return t ? t.textContent.length : 0; }")


def _wait_length_above(page: Page, length: int) -> int:
    wait_until(page,
        "n => { const t = [...document.querySelectorAll('#messages .msg.assistant .text')].pop();"
        " return t && t.textContent.length > n; }", arg=length)
    return _streaming_length(page)


def _instance_open(page: Page, server: Server) -> str:
    instance_id = _needs("instance")
    page.goto(f"{server.url}/instances/{instance_id}/")
    return instance_id


def test_library_character_and_background_with_outline(page: Page, server: Server) -> None:
    page.goto(f"{server.url}/library/")
    assert page.title() == "Library · PersonaLab"
    screenshot_take(page, "03_library")
    page.click("text=+ New character")
    page.fill("#character-form input[name=name]", CHARACTER_NAME)
    page.fill("#character-form textarea[name=base_persona]", "A lighthouse keeper who trusts nobody.")
    page.fill("#character-form textarea[name=greeting]", "Who sails in this weather?")
    page.fill("#character-form [name=tags]", "sea\ne2e")
    page.click("#character-form button[type=submit]")
    page.wait_for_url(re.compile(r"/library/characters/[^/]+/$"))
    flow["character"] = page.url.rstrip("/").rsplit("/", 1)[1]
    assert "Character saved." in page.inner_text(".flash")
    screenshot_take(page, "04_character_saved")

    page.goto(f"{server.url}/library/backgrounds/new")
    page.fill("#background-form input[name=name]", BACKGROUND_NAME)
    page.fill("#background-form textarea[name=world_setting]", "A harbor city built of glass.")
    page.fill("#background-form textarea[name=outline_text]", "Arrive at the harbor\nMeet the keeper")
    page.click("#background-form button[type=submit]")
    page.wait_for_url(re.compile(r"/library/backgrounds/[^/]+/$"))
    background_id = page.url.rstrip("/").rsplit("/", 1)[1]
    flow["background"] = background_id

    editor_inputs = "#outline-editor li [name=content]"
    assert page.locator(editor_inputs).evaluate_all("els => els.map(e => e.value)") == [
        "Arrive at the harbor", "Meet the keeper"]
    for point in ("Find the storm's cause", "Light the great lamp"):
        page.fill("#outline-add input[name=content]", point)
        page.click("#outline-add button[value=add]")
        wait_until(page,
            "v => [...document.querySelectorAll('#outline-editor li [name=content]')]"
            ".some(e => e.value === v)", arg=point)
    # Move the last point up one place.
    page.locator("#outline-editor li").nth(3).locator("button[value=up]").click()
    wait_until(page,
        "() => document.querySelectorAll('#outline-editor li [name=content]')[2].value"
        " === 'Light the great lamp'")
    expected = ["Arrive at the harbor", "Meet the keeper", "Light the great lamp",
                "Find the storm's cause"]
    assert page.locator(editor_inputs).evaluate_all("els => els.map(e => e.value)") == expected
    assert page.locator("#outline-editor li").first.locator("button[value=up]").is_disabled()
    screenshot_take(page, "05_background_outline")

    saved = server.store.background_read(background_id)
    assert [p["content"] if isinstance(p, dict) else p for p in saved["story_outline"]] == expected
    page.goto(f"{server.url}/library/")
    # Once in the list of characters (the chat-import picker names it too).
    assert page.get_by_test_id("character-tile").locator("h3 a", has_text=CHARACTER_NAME).count() == 1
    assert "4 outline points" in page.inner_text("body")
    assert page.js_errors == []


def test_start_an_instance_from_the_home_page(page: Page, server: Server) -> None:
    character_id, background_id = _needs("character"), _needs("background")
    page.goto(f"{server.url}/")
    page.select_option("select[name=character_id]", character_id)
    page.select_option("select[name=background_id]", background_id)
    page.click("form[action='/instances/new'] button[type=submit]")
    page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
    flow["instance"] = page.url.rstrip("/").rsplit("/", 1)[1]
    assert CHARACTER_NAME in page.inner_text("h1")
    outline = page.inner_text("#outline")
    assert "Light the great lamp" in outline and "Arrive at the harbor" in outline
    screenshot_take(page, "06_instance_new")
    assert page.js_errors == []


def test_a_reply_streams_into_the_page(page: Page, server: Server) -> None:
    instance_id = _instance_open(page, server)
    server.stub.script(Reply(LONG_REPLY, chunk_size=4, delay=0.02))
    message_send(page, "Tell me about the harbor.")
    first = _wait_length_above(page, 20)
    # The box stays open for the next line while the reply streams; only Send waits.
    assert page.is_enabled("#input") and page.is_disabled("#send-button")
    assert page.is_enabled("#stop-button")
    second = _wait_length_above(page, first + 40)
    assert page.is_disabled("#send-button")
    assert first < second < len(LONG_REPLY)
    screenshot_take(page, "07_streaming")
    turn_wait_done(page)
    assert _assistant_texts(page)[-1] == LONG_REPLY.strip()
    assert page.is_enabled("#input") and page.is_disabled("#stop-button")
    page.wait_for_selector("#budget .seg", timeout=5000)
    screenshot_take(page, "08_streamed")
    lines = server.session_lines(instance_id)
    # stored trimmed, as SillyTavern stores a reply (chat/play/reply_clean.py)
    assert lines[-1]["role"] == "assistant" and lines[-1]["content"] == LONG_REPLY.strip()
    # Send with the box empty: the character speaks again, as in SillyTavern (it did nothing)
    server.stub.script(Reply("And another thing."))
    replies = page.locator("#messages .msg.assistant").count()
    page.click("#send-button")
    wait_until(page, "n => document.querySelectorAll('#messages .msg.assistant').length > n",
               arg=replies)
    turn_wait_done(page)
    assert "Enter to send" in page.get_attribute("#input", "placeholder")  # the script's Enter
    # Send clicked with a mouse gives the focus back to the box (the button turned off
    # dropped it on the page, and the next line typed went nowhere).
    assert page.evaluate("document.activeElement.id") == "input"
    assert _assistant_texts(page)[-2:] == [LONG_REPLY.strip(), "And another thing."]
    assert [line["role"] for line in server.session_lines(instance_id)[-3:]] == [
        "user", "assistant", "assistant"]
    assert page.js_errors == []


def test_stop_keeps_the_partial_reply_marked_interrupted(page: Page, server: Server) -> None:
    instance_id = _instance_open(page, server)
    server.stub.script(Reply(LONG_REPLY * 3, chunk_size=2, delay=0.03))
    message_send(page, "Keep talking, slowly.")
    _wait_length_above(page, 30)
    page.click("#stop-button")
    wait_until(page,
        "() => document.getElementById('status').textContent.startsWith('Stopped')")
    turn_wait_done(page)
    page.reload()
    last = page.locator("#messages .msg.assistant").last
    assert "interrupted" in (last.get_attribute("class") or "")
    assert last.locator(".tag", has_text="interrupted").count() == 1
    # One mark, on the bubble (the row had a second bar, left of the picture).
    assert last.evaluate("m => getComputedStyle(m).borderLeftWidth") == "0px"
    assert last.locator(".bubble").evaluate("b => getComputedStyle(b).borderLeftWidth") == "3px"
    kept = last.locator(".text").inner_text()
    assert 30 <= len(kept) < len(LONG_REPLY * 3) and (LONG_REPLY * 3).startswith(kept)
    screenshot_take(page, "09_interrupted")
    line = server.session_lines(instance_id)[-1]
    assert line["interrupted"] is True and line["content"].strip() == kept.strip()
    assert page.js_errors == []


def test_stop_before_the_first_word_says_the_reply_never_began(page: Page,
                                                               server: Server) -> None:
    """It said "Stopped: the partial reply is saved." with nothing saved."""
    _instance_open(page, server)
    server.stub.script(Reply("Too late.", held_after=0))
    message_send(page, "Wait, never mind.")
    wait_until(page, "() => !document.getElementById('stop-button').disabled")
    page.click("#stop-button")
    wait_until(page,
        "() => document.getElementById('status').textContent.startsWith('Stopped')")
    assert page.locator("#status").inner_text() == "Stopped before the reply began."
    turn_wait_done(page)
    server.stub.release()
    assert page.js_errors == []


def test_the_prompt_inspector_opens_from_a_reply(page: Page, server: Server) -> None:
    # The page's reads after its load (the prompt's budget bar among them) done first: a click
    # while one moved the list once landed beside the link (a whole run, issue 31).
    with network_quiet(page):
        _instance_open(page, server)
    link = page.locator("#messages .msg.assistant a[href^='/traces/']").last
    link.click()
    page.wait_for_url(re.compile(r"/traces/[^/]+/$"))
    body = page.inner_text("body")
    assert "lighthouse keeper" in body  # the base persona is in the prompt
    assert "Keep talking, slowly." in body
    screenshot_take(page, "10_trace")
    assert page.js_errors == []


def test_a_middle_section_warning_shows_as_a_badge(page: Page, server: Server) -> None:
    page.goto(f"{server.url}/settings/")
    page.fill("input[name='limits.middle_section_warning_tokens']", "1000")
    page.click("#settings-form button[type=submit]:not([name=reset])")
    page.wait_for_load_state()
    assert page.locator(".field-error").count() == 0
    screenshot_take(page, "11_settings")
    config = server.store.config_read()
    assert config["limits"]["middle_section_warning_tokens"] == 1000

    _instance_open(page, server)
    assert page.is_hidden("#warnings")
    server.stub.script(Reply("The lamp is heavy.", chunk_size=4))
    message_send(page, "The storm log reads: " + " ".join(f"gale{n} surge{n}" for n in range(700)))
    page.wait_for_selector("#warnings:not([hidden])")
    turn_wait_done(page)
    count = int(page.inner_text("#warning-count"))
    assert count >= 1
    assert page.is_hidden("#warning-list")
    page.click("#warning-badge")
    assert page.is_visible("#warning-list")
    items = page.locator("#warning-list li")
    assert items.count() == count
    screenshot_take(page, "12_warnings_open")
    items.first.dblclick()
    dialog = page.locator("#warning-dialog")
    assert dialog.evaluate("d => d.open")
    detail = page.inner_text("#warning-detail")
    assert "1,000" in detail  # grouped as the page's language writes numbers
    screenshot_take(page, "13_warning_dialog", full_page=False)  # the backdrop covers the viewport
    dialog.locator("button", has_text="Close").click()
    assert not dialog.evaluate("d => d.open")
    assert page.js_errors == []


def test_summarize_moves_to_a_new_session(page: Page, server: Server) -> None:
    instance_id = _instance_open(page, server)
    old_session = server.instance_state(instance_id)["current_session_id"]
    server.stub.script(Reply(SUMMARY_JSON))
    page.click("button:has-text('Summarize')")
    wait_until(page,
        "() => document.getElementById('memory-result').textContent.trim() !== ''", timeout=60_000)
    result = page.inner_text("#memory-result")
    new_session = server.instance_state(instance_id)["current_session_id"]
    assert new_session != old_session, result
    assert "Summarized into 1 events" in result and new_session not in result
    assert f"conversation {int(new_session.removeprefix('sess_'))}" in result
    screenshot_take(page, "14_summarized")
    page.reload()
    # The header names the session as players do: sess_002 is "conversation 2".
    assert f"conversation {int(new_session.split('_')[1])}" in page.inner_text(".chat-title")
    summary = page.locator("#messages .msg.summary")
    assert summary.count() >= 1
    assert "Mira met the traveller" in summary.first.inner_text()
    screenshot_take(page, "15_new_session")
    assert page.js_errors == []


def _follows_from(tab: Page) -> list[object]:
    """The "stream" frames `tab`'s sockets receive: what the file holds of a reply streaming
    when a socket opens (chat/live/followers.py). From then on the tab follows that reply."""
    snapshots: list[object] = []

    def frame(payload: str | bytes) -> None:
        try:
            event = json.loads(payload)
        except ValueError:
            return
        if isinstance(event, dict) and event.get("type") == "stream":
            snapshots.append(event)

    tab.on("websocket", lambda socket: socket.on("framereceived", frame))
    return snapshots


def _wait_following(tab: Page, snapshots: list[object]) -> None:
    for _ in range(300):
        if snapshots:
            return
        tab.wait_for_timeout(50)
    raise AssertionError("the tab's socket was never sent the reply streaming")


def test_a_second_tab_follows_a_reply_streaming_elsewhere_across_a_reload(
        page: Page, logged_in: BrowserContext, server: Server) -> None:
    """The reply waits at 20 and at 60 characters (the stub's holds): the second tab opens
    while it waits at 20, follows it live to 60, is reloaded while it waits there, and follows
    it to the end. No stream made slow enough to be caught: few frames in two tabs."""
    instance_id = _instance_open(page, server)
    reply = LONG_REPLY
    server.stub.script(Reply(reply, chunk_size=4, held_after=(5, 15)))
    first, second = reply[:20].strip(), reply[:60].strip()  # where it waits
    message_send(page, "Tell it again, for the second tab.")
    wait_until(page, "s => [...document.querySelectorAll('#messages .msg.assistant .text')]"
               ".pop()?.textContent.trim() === s", arg=first)

    watcher = logged_in.new_page()
    snapshots = _follows_from(watcher)
    shown = "s => document.querySelector('#streaming-line .text').textContent.trim() === s"
    try:
        watcher.goto(f"{server.url}/instances/{instance_id}/")
        streaming = watcher.locator("#streaming-line .text")
        assert streaming.count() == 1
        seen = len(streaming.inner_text())
        assert 0 < seen < len(reply)
        _wait_following(watcher, snapshots)
        server.stub.release()  # on to 60 characters, streamed live into both tabs
        wait_until(watcher, shown, arg=second)
        watcher.locator("#streaming-line").scroll_into_view_if_needed()
        screenshot_take(watcher, "16_second_tab_following")
        before_reload = len(watcher.locator("#streaming-line .text").inner_text())
        assert before_reload >= seen + 20
        snapshots.clear()
        watcher.reload()  # the reply waits at 60 characters meanwhile: still streaming
        assert watcher.locator("#streaming-line").count() == 1
        assert len(watcher.locator("#streaming-line .text").inner_text()) >= before_reload
        _wait_following(watcher, snapshots)
        server.stub.release()  # the rest, live into the reloaded tab
        wait_until(watcher, "() => !document.getElementById('streaming-line')",
                                  timeout=60_000)
        assert watcher.locator("#messages .msg.assistant .text").last.inner_text() == reply.strip()
        screenshot_take(watcher, "17_second_tab_done")
    finally:
        watcher.close()
    turn_wait_done(page)
    assert _assistant_texts(page)[-1] == reply.strip()
    assert page.js_errors == []


def test_a_page_made_mid_reply_whose_socket_opens_after_it_ended_shows_the_kept_reply(
        page: Page, logged_in: BrowserContext, server: Server) -> None:
    """A reload while a reply streams: the page is made with the reply "writing…", and when
    its socket opens the reply has ended, so no stream of it comes. The page reads the file
    again instead of keeping a "writing…" bubble that never changes."""
    instance_id = _instance_open(page, server)
    reply = "The lamp is lit; the keeper waits for the tide."
    server.stub.script(Reply(reply, chunk_size=4, held_after=2))
    message_send(page, "Is the lamp lit?")
    _wait_length_above(page, 0)

    reloaded = logged_in.new_page()
    errors, held = [], []
    reloaded.on("pageerror", lambda exc: errors.append(str(exc)))
    frames: list[str] = []  # told at once that nothing streams, not after a 1.5 s wait
    reloaded.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
    reloaded.route(re.compile(r".*/chat/socket\.js$"), lambda route: held.append(route))
    try:
        # The page's scripts wait for socket.js, and DOMContentLoaded for them.
        reloaded.goto(f"{server.url}/instances/{instance_id}/", wait_until="commit")
        reloaded.wait_for_selector("#streaming-line", state="attached")
        server.stub.release()
        turn_wait_done(page)  # ended before the reloaded page has a socket
        for route in held:
            route.continue_()
        wait_until(reloaded, "() => !document.getElementById('streaming-line')", timeout=30_000)
        assert reloaded.locator("#messages .msg.assistant .text").last.inner_text() == reply
        assert '{"type": "idle"}' in frames, frames
        assert errors == []
    finally:
        reloaded.close()
    assert page.js_errors == []


def test_a_page_opened_again_asks_the_server_for_none_of_its_scripts(server: Server) -> None:
    """Each script and style sheet comes once, named under the files' version and kept for a
    year (personalab/static_files.py): before, a page load asked again for its ~30 files
    whenever they were younger than the browser's guess (just after an install, an upgrade)."""
    url = f"{server.url}/instances/{_needs('instance')}/"
    context = context_new(server)  # an empty cache
    try:
        page = context.new_page()
        kept = {}
        page.on("response", lambda response: kept.setdefault(
            response.url, response.headers.get("cache-control"))
            if "/static/" in response.url else None)
        for address in (url, f"{server.url}/"):
            with network_quiet(page):
                page.goto(address)
        assert len(kept) > 20, kept  # the chat page's modules, each named in the page or imported
        assert set(kept.values()) == {"public, max-age=31536000, immutable"}, kept
        asked = server.log.read_text(errors="replace").count('"GET /static/')
        for address in (url, f"{server.url}/"):
            with network_quiet(page):
                page.goto(address)
        assert server.log.read_text(errors="replace").count('"GET /static/') == asked
    finally:
        context.close()


def test_the_story_button_shows_the_outline_moving_on_a_phone(page: Page, server: Server) -> None:
    """On a phone the outline is behind ☰ Story: the story's progress showed nowhere else, so a
    player saw the director move only by opening the drawer after each turn."""
    page.set_viewport_size(PHONE)
    _instance_open(page, server)
    progress = page.get_by_test_id("story-progress")
    assert progress.is_visible() and progress.inner_text() == "0/4"
    assert progress.get_attribute("title") == "0 of 4 outline points done"
    server.stub.script(Reply("Mira lights the lamp. [PROGRESS:1:completed]"))
    message_send(page, "Let us light it.")
    turn_wait_done(page)
    wait_until(page, "() => document.querySelector('[data-testid=story-progress]')"
                     ".textContent === '1/4'")
    # Deleting that reply takes its progress back (the server did; the page kept showing it).
    page.locator("#messages .msg.assistant").last.locator("button.more").click()
    page.locator(".msg-menu button", has_text="Delete").click()
    wait_until(page, "() => document.querySelector('[data-testid=story-progress]')"
                     ".textContent === '0/4'")
    assert "completed" not in page.locator("#outline li").first.inner_text()
    # A point under way is said beside the points done, and fits the phone's header.
    server.stub.script(Reply("Mira reaches for the lamp. [PROGRESS:1:in_progress]"))
    message_send(page, "Let us light it, slowly.")
    turn_wait_done(page)
    wait_until(page, "() => document.querySelector('[data-testid=story-progress]')"
                     ".textContent === '0/4 · 1 in progress'")
    assert progress.get_attribute("title") == (
        "0 of 4 outline points done; point 1 is in progress")
    no_sideways_scroll(page)
    assert page.js_errors == []
