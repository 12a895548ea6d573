"""Issue 33's "done when", walked again by an author at 390x844 (touch) and 1366x900, light and
dark: a 100-entry lorebook written and edited without reading an id or losing the place (the
rows in sight stay in sight after a save, the open entry stays open, "Test this text" names
entries and opens them), a group of three changed in its drawer without losing the place, and
a character saved far down its editor coming back where the author was."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.e2e.axe_audit import AXE
from tests.e2e.axe_audit import RUN as AXE_RUN
from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    no_sideways_scroll,
    screenshot_take,
    wait_until,
)
from tests.e2e.device_pages import author_page_open
from tests.e2e.lore_pages import lore_row, lore_row_top, lorebook_import
from tests.e2e.page_api import api_call, character_make, drawer_open
from tests.e2e.seeded_chats import party_file_write

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

WALKS = pytest.mark.parametrize("size,scheme", [(PHONE, "dark"), (DESKTOP, "light")],
                                ids=["phone-dark", "desktop-light"])
ID_TEXT = re.compile(r"#\d+|entries\[\d+\]|\b(?:char|inst|sess|lb|lore)_[a-z0-9_]+")


@pytest.fixture
def author(server: Server, request: pytest.FixtureRequest) -> Iterator[Page]:
    params = request.node.callspec.params
    yield from author_page_open(server, size=params["size"], scheme=params["scheme"])


def _ids_shown(page: Page) -> list[str]:
    return ID_TEXT.findall(page.locator("main").inner_text())


@WALKS
def test_a_bulk_delete_mid_book_keeps_the_rows_in_sight_and_the_open_entry_open(
        author: Page, server: Server, tmp_path: Path, size: dict, scheme: str) -> None:
    page = author
    lorebook_id = lorebook_import(page, server, tmp_path, f"Tidal {size['width']}")
    # An entry far down is open, its rare fields too, while the author tidies the middle.
    lore_row(page, 90).locator("details.lore-entry > summary").click()
    lore_row(page, 90).get_by_test_id("lore-more").locator("summary").click()
    page.select_option("[data-role=sort]", "title")
    lore_row(page, 38).evaluate("row => { row.scrollIntoView(); window.scrollBy(0, -60); }")
    before = lore_row_top(page, 38)
    for uid in (40, 41, 42):
        lore_row(page, uid).locator(".lore-pick").check()
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():
        page.locator(".lore-save button[data-bulk=delete]").click()
    page.wait_for_load_state("load")
    uids = [e["uid"] for e in server.store.lorebook_read(lorebook_id)["entries"]]
    assert len(uids) == 97 and not {40, 41, 42} & set(uids)
    # The row that was at the top of the screen is still there; the deleted ones are gone.
    assert abs(lore_row_top(page, 38) - before) <= 2, (before, lore_row_top(page, 38))
    assert lore_row_top(page, 43) - lore_row_top(page, 39) < 80
    assert lore_row(page, 90).locator("details.lore-entry").evaluate("d => d.open")
    assert lore_row(page, 90).get_by_test_id("lore-more").evaluate("d => d.open")
    assert page.input_value("[data-role=sort]") == "title"
    no_sideways_scroll(page)
    screenshot_take(page, f"w11_lore_bulk_delete_{size['width']}_{scheme}", full_page=False)
    assert page.js_errors == []


@WALKS
def test_test_this_text_and_a_refused_save_name_entries_and_open_them_in_place(
        author: Page, server: Server, tmp_path: Path, size: dict, scheme: str) -> None:
    page = author
    page.add_init_script(path=str(AXE))
    lorebook_import(page, server, tmp_path, f"Reef {size['width']}", broken_key=True)
    page.fill("[data-role=search]", "place3")
    page.fill("form[hx-post$='/test'] textarea[name=text]", "At dawn they reach place70.")
    page.click("form[hx-post$='/test'] button[type=submit]")
    result = page.locator("#lore-test-result")
    result.get_by_test_id("lore-key-problems").wait_for()
    text = result.inner_text()
    assert "Entry title 070" in text and "Entry title 099" in text, text
    assert ID_TEXT.findall(text) == [], text
    # The entry named opens in the list, though the search hides it.
    result.get_by_role("link", name="Entry title 070").click()
    entry = lore_row(page, 70).locator("details.lore-entry")
    assert entry.evaluate("d => d.open") and lore_row(page, 70).is_visible()
    # -1: scrolled to its top, give or take the rounding of a fractional row height to a pixel
    assert -1 <= lore_row_top(page, 70) < size["height"] / 2
    assert page.input_value("[data-role=search]") == "place3"
    # The result, the search and the entry (the long book: tests/e2e/test_lorebook_editor.py)
    assert page.evaluate(AXE_RUN, ["#lore-test-result", ".lore-tools", "#lore-e70"]) == []
    screenshot_take(page, f"w11_lore_test_link_{size['width']}_{scheme}", full_page=False)

    # A save refused for the broken key says which entry, by its title, over the page.
    lore_row(page, 70).locator("textarea[name=e70_content]").fill("Lore 70, rewritten.")
    page.get_by_test_id("lore-save").click()
    page.wait_for_load_state("load")
    refused = page.get_by_test_id("lore-refused")
    assert "Entry title 099" in refused.inner_text()
    assert ID_TEXT.findall(refused.inner_text()) == [] and "{" not in refused.inner_text()
    refused.get_by_role("link", name="Entry title 099").click()
    assert lore_row(page, 99).get_by_test_id("field-error").is_visible()
    assert _ids_shown(page) == []
    assert page.js_errors == []


@WALKS
def test_entries_written_one_after_another_keep_the_keys_box_ready(
        author: Page, server: Server, size: dict, scheme: str) -> None:
    page = author
    page.goto(f"{server.url}/library/lorebooks/new")
    page.fill("input[name=name]", f"Harbour {size['width']} {scheme}")
    page.fill("textarea[name=new_keys]", "harbour")
    page.fill("textarea[name=new_content]", "The harbour is old.")
    page.get_by_test_id("lore-save").click()
    page.wait_for_url(re.compile(r"/lorebooks/[^/]+/$"))
    for n in range(2, 5):
        page.get_by_test_id("lore-new").click()
        page.keyboard.type(f"pier{n}")
        page.fill("textarea[name=new_content]", f"Pier number {n}.")
        with page.expect_navigation():
            page.get_by_test_id("lore-save").click()
        page.wait_for_load_state("load")
        # The entry just written is in sight, and the next one's keys can be typed at once.
        made = page.get_by_test_id("lore-row").last
        assert made.locator(".lore-title").inner_text() == f"pier{n}"
        top = made.evaluate("row => row.getBoundingClientRect().top")
        assert 0 <= top < size["height"], top
        assert page.evaluate("document.activeElement.name") == "new_keys"
    screenshot_take(page, f"w11_lore_written_{size['width']}_{scheme}", full_page=False)
    assert _ids_shown(page) == []
    assert page.js_errors == []


def _card_top(page: Page) -> float:
    return page.locator("#members-card").evaluate("card => card.getBoundingClientRect().top")


@WALKS
def test_a_group_of_three_changed_in_its_drawer_keeps_the_card_in_sight_and_the_focus(
        author: Page, server: Server, tmp_path: Path, size: dict, scheme: str) -> None:
    page = author
    tag = f"{size['width']}{scheme[0]}"
    names = [f"Ann{tag}", f"Bob{tag}", f"Cyd{tag}", f"Dee{tag}"]
    for name in names:
        api_call(page, server, "POST", "/characters", {
            "name": name, "base_persona": f"{name} keeps the lighthouse.",
            "greeting": "I am {{char}}.", "visibility": "private"})
    page.goto(f"{server.url}/")
    form = page.get_by_test_id("start-group")
    for name in names[:3]:
        if form.get_by_label("Find a character").count():  # the shared server's library is long
            form.get_by_label("Find a character").fill(name)
        form.get_by_label(name, exact=True).check()
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
    greetings = page.locator("[data-testid=message][data-role=assistant]").all_inner_texts()
    assert [sum(f"I am {name}." in text for text in greetings) for name in names[:3]] == [1] * 3

    drawer_open(page)
    card = page.locator("#members-card")
    card.locator("summary").click()
    add = card.locator("button", has_text="Add to the story")
    add.scroll_into_view_if_needed()
    before = _card_top(page)
    card.locator("select[name=character_id]").select_option(label=names[3])
    add.focus()
    page.keyboard.press("Enter")
    wait_until(page, "() => document.querySelectorAll('#members-card li').length === 4")
    wait_until(page, "() => document.activeElement.closest('#members-card')"
               " && document.activeElement.textContent.includes('Add to the story')")
    # The card stays where it was in the drawer (it moved a screen down at 1366x900).
    assert abs(_card_top(page) - before) <= 2, (before, _card_top(page))

    moved = page.locator("#members-card li").nth(2)
    member = moved.get_attribute("data-member")
    moved.get_by_test_id("member-up").focus()
    page.keyboard.press("Enter")
    wait_until(page,
        "names => [...document.querySelectorAll('#members-card li strong')]"
        ".map((s) => s.textContent.trim()).join() === names.join()",
        arg=[names[0], names[2], names[1], names[3]])
    # The focus is on the same member's ↑ again, for the next press.
    wait_until(page, "member => document.activeElement.value === 'up' && document"
               ".activeElement.closest(`[data-member='${member}']`)", arg=member)

    page.locator("#members-card li").nth(3).locator("button[value=remove]").click()
    wait_until(page, "() => document.querySelectorAll('#members-card li').length === 3")
    title = f"{names[0]} & {names[2]} & {names[1]}"
    wait_until(page, "t => document.getElementById('chat-title').textContent.includes(t)",
                           arg=title)
    assert _ids_shown(page) == []
    no_sideways_scroll(page)
    screenshot_take(page, f"w11_group_drawer_{size['width']}_{scheme}", full_page=False)

    page.locator("form#chat-import input[type=file]").set_input_files(
        str(party_file_write(tmp_path, [names[0], names[2], names[1]])))
    with page.expect_navigation():
        page.locator("form#chat-import button[type=submit]").click()
    page.wait_for_load_state("load")
    assert _ids_shown(page) == []
    screenshot_take(page, f"w11_group_imported_{size['width']}_{scheme}", full_page=False)
    assert page.js_errors == []


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_saving_a_character_far_down_its_editor_keeps_the_authors_place(
        page: Page, server: Server, size: dict) -> None:
    """The page reloads on Save: it came back at its top, the field just edited ~1,000 px
    below. Now the field is where it was on the screen (the fold it is in stays open)."""
    page.set_viewport_size(size)
    character_id = character_make(page, server, f"Kit{size['width']}")
    page.goto(f"{server.url}/library/characters/{character_id}/")
    page.locator("details[data-section] > summary", has_text="Advanced").click()
    field = page.locator("textarea[name=post_history_instructions]")
    field.scroll_into_view_if_needed()
    field.fill("Stay in character, always.")
    before = field.bounding_box()["y"]
    with page.expect_navigation():
        field.evaluate("f => f.form.requestSubmit()")
    page.wait_for_load_state("load")
    saved = page.get_by_text("Character saved.")
    assert saved.count() == 1
    field = page.locator("textarea[name=post_history_instructions]")
    note = saved.bounding_box()  # the note is in sight, over the page, though its place is up top
    assert 0 <= note["y"] and note["y"] + note["height"] <= size["height"], note
    assert field.input_value() == "Stay in character, always."
    after = field.bounding_box()["y"]
    screenshot_take(page, f"character_place_{size['width']}", full_page=False)
    assert page.evaluate("scrollY") > 0 and abs(after - before) < 30, (before, after)
