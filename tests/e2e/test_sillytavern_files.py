"""A SillyTavern user's own files through the pages: their chats and cards come in (and go back
out) without a trip to the REST API. Their world info through the library's form needs no
browser: tests/pages/test_library_and_pages.py and test_import_refusal_words.py."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    PHONE,
    SIZES,
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
    from pathlib import Path

    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def _last_reply_text(page: Page) -> str:
    return page.locator("[data-testid=message][data-role=assistant] .text").last.inner_text()


@SIZES
def test_swiping_right_past_the_last_version_asks_for_a_new_one(page: Page, server: Server,
                                                                size: dict) -> None:
    """As in SillyTavern: the last reply's › on its newest version generates another."""
    page.set_viewport_size(size)
    instance_id = instance_new(page, server)
    server.stub.script(Reply("First take."), Reply("Second take."))
    message_send(page, "Where can I sleep tonight?")
    turn_wait_done(page)
    last = page.locator("[data-testid=message][data-role=assistant]").last
    assert last.locator(".swipe-pos").inner_text() == "1/1"
    last.locator("[data-testid=swipe-next]").click()
    wait_until(page,
        "() => [...document.querySelectorAll('[data-testid=message][data-role=assistant]')]"
        ".pop().querySelector('.swipe-pos')?.textContent === '2/2'")
    turn_wait_done(page)
    assert _last_reply_text(page) == "Second take."
    screenshot_take(page, f"qa5_swipe_right_new_{size['width']}", full_page=False)
    page.locator("[data-testid=message][data-role=assistant] [data-testid=swipe-prev]").last.click()
    wait_until(page,
        "() => [...document.querySelectorAll('[data-testid=message][data-role=assistant] .text')]"
        ".pop().textContent.trim() === 'First take.'")
    assert server.session_lines(instance_id)[-1]["content"] == "First take."
    greeting = page.locator("[data-testid=message][data-role=assistant]").first
    assert greeting.locator("[data-testid=swipe-next]").count() == 0  # only the last reply
    assert page.js_errors == []


def _st_chat_ending_with_the_player(path: Path) -> Path:
    records = [{"user_name": "Tom", "character_name": "Alserqi", "create_date": "2024-10-03@20h01m05s",
                "chat_metadata": {}},
               {"name": "Alserqi", "is_user": False, "is_system": False,
                "send_date": "October 3, 2024 8:01pm", "mes": "The gate is shut.", "extra": {}},
               {"name": "Tom", "is_user": True, "is_system": False,
                "send_date": "October 3, 2024 8:02pm", "mes": "Then we climb.", "extra": {}}]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@SIZES
def test_regenerate_and_continue_answer_a_chat_that_ends_with_the_players_line(
        page: Page, server: Server, tmp_path: Path, size: dict) -> None:
    """A SillyTavern chat imported mid-turn, or one whose last reply was deleted: ↻ and →
    give the missing reply (they said "there is no reply to regenerate or continue")."""
    page.set_viewport_size(size)
    instance_id = instance_new(page, server)
    page.locator("[data-testid=drawer-toggle]").click() if size == PHONE else None
    page.locator("#chat-import input[type=file]").set_input_files(
        str(_st_chat_ending_with_the_player(tmp_path / "climb.jsonl")))
    page.locator("#chat-import button[type=submit]").click()
    page.wait_for_selector("#import-report")
    server.stub.script(Reply("We climb at dawn."), Reply("The wall is wet."))
    page.click("[data-testid=regenerate]")
    wait_until(page,
        "() => [...document.querySelectorAll('[data-testid=message][data-role]')].pop()"
        ".querySelector('.text').textContent.trim() === 'We climb at dawn.'")
    turn_wait_done(page)
    assert [line.get("content") for line in server.session_lines(instance_id)[-2:]] == [
        "Then we climb.", "We climb at dawn."]
    message_act(page.locator("[data-testid=message][data-role=assistant]").last, "delete")
    wait_until(page, "() => [...document.querySelectorAll('[data-testid=message][data-role]')]"
               ".pop().dataset.role === 'user'")
    page.click("[data-testid=continue]")
    wait_until(page,
        "() => [...document.querySelectorAll('[data-testid=message][data-role]')].pop()"
        ".querySelector('.text').textContent.trim() === 'The wall is wet.'")
    turn_wait_done(page)
    screenshot_take(page, f"qa5_regenerate_after_import_{size['width']}", full_page=False)
    assert server.session_lines(instance_id)[-1]["content"] == "The wall is wet."
    assert "no reply to regenerate" not in page.locator("#status").inner_text()
    assert page.js_errors == []


def test_an_image_in_a_reply_stays_as_a_link_and_is_never_loaded(page: Page,
                                                                 server: Server) -> None:
    """Images are not shown (no request leaves for another site), but the reader keeps
    what the reply said: its description and where the picture is."""
    page.set_viewport_size(PHONE)
    loaded: list[str] = []
    page.on("request", lambda request: "example.org" in request.url and loaded.append(request.url))
    instance_new(page, server)
    server.stub.script(Reply("The map:\n\n![map of the harbor](https://example.org/map.png)\n\n"
                             '![](javascript:window.__pwned=1) <img src="https://example.org/t.gif">'))
    message_send(page, "Show me the map.")
    turn_wait_done(page)
    for _ in range(2):  # as streamed, then as read back from the file
        last = page.locator("[data-testid=message][data-role=assistant]").last
        link = last.locator("a", has_text="map of the harbor")
        assert link.get_attribute("href") == "https://example.org/map.png"
        assert last.locator("img").count() == 0
        assert all(not (href or "").startswith("javascript:")
                   for href in last.locator("a").evaluate_all("els => els.map(a => a.getAttribute('href'))"))
        page.reload()
        page.wait_for_selector("[data-testid=message][data-role=assistant] .md[data-rendered]")
    screenshot_take(page, "qa5_image_as_link_390", full_page=False)
    assert loaded == [] and page.evaluate("() => window.__pwned") is None
    assert page.js_errors == []


def test_on_a_touch_screen_enter_is_a_new_line_and_send_sends(page: Page, server: Server) -> None:
    """A phone's keyboard has no Shift+Enter: as SillyTavern does on phones, Enter starts a new
    line there and the Send button sends. With a mouse and keyboard, Enter still sends."""
    page.set_viewport_size(PHONE)
    page.context.new_cdp_session(page).send("Emulation.setTouchEmulationEnabled",
                                            {"enabled": True, "maxTouchPoints": 5})
    instance_id = instance_new(page, server)
    server.stub.script(Reply("Two lines, read."))
    box = page.locator("[data-testid=input]")
    box.click()
    page.keyboard.type("*I look up.*")
    page.keyboard.press("Enter")
    page.keyboard.type("Who rang the bell?")
    assert box.input_value() == "*I look up.*\nWho rang the bell?"
    assert "Enter to send" not in (box.get_attribute("placeholder") or "")
    send_click(page)
    turn_wait_done(page)
    sent = [line for line in server.session_lines(instance_id) if line.get("role") == "user"]
    assert sent[-1]["content"] == "*I look up.*\nWho rang the bell?"
    assert page.js_errors == []


def test_message_times_show_in_the_readers_time_zone_with_the_date_of_an_old_chat(
        page: Page, server: Server, tmp_path: Path) -> None:
    """They were the file's UTC hours: 20:01 UTC read "20:01" in Tokyo too, and an imported
    chat from 2024 showed hours with no date."""
    page.set_viewport_size(PHONE)
    page.context.new_cdp_session(page).send("Emulation.setTimezoneOverride",
                                            {"timezoneId": "Asia/Tokyo"})
    instance_new(page, server)
    page.locator("[data-testid=drawer-toggle]").click()
    page.locator("#chat-import input[type=file]").set_input_files(
        str(_st_chat_ending_with_the_player(tmp_path / "climb.jsonl")))
    page.locator("#chat-import button[type=submit]").click()
    page.wait_for_selector("#import-report")
    shown = page.locator("[data-testid=message] time").all_inner_texts()
    assert len(shown) == 2 and all("2024" in text for text in shown), shown
    assert "05:01" in shown[0] or "5:01" in shown[0], shown  # 20:01 UTC is 05:01 next day
    assert "Oct 4" in shown[0] or "4 Oct" in shown[0], shown
    server.stub.script(Reply("Now."))
    message_send(page, "And today?")
    turn_wait_done(page)
    newest = page.locator("[data-testid=message] time").last.inner_text()
    assert "2024" not in newest and ":" in newest  # today's lines keep the short form
    utc = page.evaluate("() => new Date().toISOString().slice(11, 16)")
    page.goto(f"{server.url}/")  # the list of instances says when each was last played
    last_played = page.locator("time[datetime]").first
    assert last_played.get_attribute("data-local") == "1"
    assert utc not in last_played.inner_text() and "-" not in last_played.inner_text()
    assert page.js_errors == []


def test_on_a_touch_screen_an_edit_takes_line_breaks_and_has_save_and_cancel(
        page: Page, server: Server) -> None:
    """Editing was Enter to save and Escape to cancel: a phone has no Escape, and its Enter
    saved at the first line break."""
    page.set_viewport_size(PHONE)
    page.context.new_cdp_session(page).send("Emulation.setTouchEmulationEnabled",
                                            {"enabled": True, "maxTouchPoints": 5})
    instance_id = instance_new(page, server)
    server.stub.script(Reply("Noted."))
    page.fill("[data-testid=input]", "I wait.")
    send_click(page)
    turn_wait_done(page)
    user = page.locator("[data-testid=message][data-role=user]").last
    message_act(user, "edit")
    box = user.locator("[data-testid=edit-box]")
    box.press("End")
    page.keyboard.press("Enter")
    page.keyboard.type("*I wait longer.*")
    assert box.input_value() == "I wait.\n*I wait longer.*"
    user.locator("[data-testid=edit-save]").click()
    wait_until(page,
        "() => [...document.querySelectorAll('[data-testid=message][data-role=user]')].pop()"
        ".querySelector('.text em')?.textContent === 'I wait longer.'")
    lines = [line for line in server.session_lines(instance_id) if line.get("role") == "user"]
    assert lines[-1]["content"] == "I wait.\n*I wait longer.*"
    user = page.locator("[data-testid=message][data-role=user]").last
    message_act(user, "edit")
    user.locator("[data-testid=edit-box]").fill("Thrown away.")
    user.locator("[data-testid=edit-cancel]").click()
    assert user.locator("[data-testid=edit-box]").count() == 0
    assert "I wait longer." in user.locator(".text").inner_text()
    lines = [line for line in server.session_lines(instance_id) if line.get("role") == "user"]
    assert lines[-1]["content"] == "I wait.\n*I wait longer.*"
    assert page.js_errors == []
