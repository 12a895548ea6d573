"""An author who typed in an editor (character, background, persona, lorebook) and leaves it unsaved is
asked first (the browser's own "leave site?" question); after a save the page leaves freely."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Page

from tests.e2e.conftest import Server

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


@pytest.fixture
def editor_page(logged_in: BrowserContext) -> Iterator[Page]:
    """A page of its own: closing it runs no "leave site?" question (the module's kept page
    would stop at one on its way to the next test)."""
    page = logged_in.new_page()
    page.questions = []

    def answered(dialog) -> None:
        page.questions.append(dialog.type)
        dialog.dismiss()  # "stay on the page"

    page.on("dialog", answered)
    yield page
    page.close()


@pytest.mark.parametrize("address,field,text", [
    ("/library/characters/new", "name", "Unsaved Lin"),
    ("/library/backgrounds/new", "world_setting", "An island nobody saved."),
    ("/library/lorebooks/new", "name", "Unsaved lore"),
], ids=["character", "background", "lorebook"])
def test_leaving_an_editor_with_unsaved_typing_asks_first_and_keeps_the_text(
        editor_page: Page, server: Server, address: str, field: str, text: str) -> None:
    page = editor_page
    page.goto(server.url + address)
    page.click(f"[name={field}]")
    page.keyboard.type(text)
    with page.expect_event("dialog"):  # without the question: a timeout, the page gone
        page.click("nav >> text=Library")
    assert page.questions == ["beforeunload"]
    assert page.url == server.url + address
    assert page.input_value(f"[name={field}]") == text


def test_an_editor_left_untouched_or_saved_leaves_without_asking(
        editor_page: Page, server: Server) -> None:
    page = editor_page
    page.goto(server.url + "/library/characters/new")
    page.click("nav >> text=Library")
    page.wait_for_url(server.url + "/library/")
    page.goto(server.url + "/library/characters/new")
    page.click("[name=name]")
    page.keyboard.type("Saved Lin")
    page.click("#character-form button[type=submit]:has-text('Save')")
    page.wait_for_url(lambda url: "/characters/char_" in url)
    page.click("nav >> text=Library")
    page.wait_for_url(server.url + "/library/")
    assert page.questions == []


def test_an_outline_point_saved_in_place_keeps_the_unsaved_world_text_and_points_asked_for(
        editor_page: Page, server: Server) -> None:
    page = editor_page
    page.goto(server.url + "/library/backgrounds/new")
    page.fill("[name=name]", "Outlined isle")
    page.fill("[name=outline_text]", "Arrive\nExplore")
    page.click("#background-form button[type=submit]:has-text('Save')")
    page.wait_for_url(lambda url: "/backgrounds/bg_" in url)
    page.click("[name=world_setting]")
    page.keyboard.type(" Tides rise at dusk.")
    # A point typed in and not saved keeps its typing when another point is added (the list
    # is redrawn: static/outline_editor.js).
    page.locator("#outline-editor ol [name=content]").first.fill("Arrive by boat")
    page.fill("#outline-add [name=content]", "Leave" + " by the northern pass" * 20)
    page.click("#outline-add button")
    long_point = page.locator("#outline-editor ol [name=content]").nth(2)
    long_point.wait_for()
    assert page.locator("#outline-editor ol [name=content]").first.input_value() == (
        "Arrive by boat")
    # A long point is read whole: its box grows to its lines instead of hiding them.
    assert long_point.evaluate(
        "e => e.scrollHeight <= e.clientHeight + 1 && e.rows === 1"
        " && e.clientHeight > 2 * parseFloat(getComputedStyle(e).lineHeight)")
    with page.expect_event("dialog"):
        page.click("nav >> text=Library")
    assert page.questions == ["beforeunload"]
    assert page.input_value("[name=world_setting]").endswith("Tides rise at dusk.")
