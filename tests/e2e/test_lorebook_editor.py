"""An author edits a 100-entry lorebook without losing their place: entries are collapsed rows
(title, keys, status), one open at a time, with search, a filter and bulk actions, at phone and
laptop width."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.axe_audit import AXE, audit_in_each_scheme
from tests.e2e.conftest import PHONE, SIZES, Server, no_sideways_scroll, screenshot_take
from tests.e2e.lore_pages import lorebook_import

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


@SIZES
def test_a_hundred_entry_book_is_a_list_of_rows_to_search_and_act_on(
        page: Page, server: Server, tmp_path: Path, size: dict) -> None:
    page.set_viewport_size(size)
    lorebook_id = lorebook_import(page, server, tmp_path, f"Drowned {size['width']}")
    rows = page.locator("[data-testid=lore-row]")
    assert rows.count() == 100
    # Collapsed: a hundred entries take about a row each, not twenty fields each.
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height < 100 * 120, f"page is {height} px tall"
    no_sideways_scroll(page)

    # One open at a time.
    rows.nth(3).locator("details.lore-entry > summary").click()
    rows.nth(7).locator("details.lore-entry > summary").click()
    # The other closes on the toggle event, which the browser fires after the click returns.
    expect(page.locator("details.lore-entry[open]")).to_have_count(1)
    assert rows.nth(7).locator("details.lore-entry").evaluate("d => d.open")

    # Search by a key, then disable what is shown in one go.
    page.fill("[data-role=search]", "place42")
    assert page.locator("[data-testid=lore-row]:visible").count() == 1
    page.check("[data-role=pick-all]")
    with page.expect_navigation():
        page.click("button[data-bulk=disable]")
    entries = server.store.lorebook_read(lorebook_id)["entries"]
    assert [e["uid"] for e in entries if not e.get("enabled", True)] == [42]
    assert len(entries) == 100

    page.select_option("[data-role=filter]", "disabled")
    assert page.locator("[data-testid=lore-row]:visible").count() == 1
    screenshot_take(page, f"61_lorebook_100_{size['width']}", full_page=False)
    assert page.js_errors == []


@SIZES
def test_a_hundred_entry_book_is_edited_in_place_and_saved_whole(
        page: Page, server: Server, tmp_path: Path, size: dict) -> None:
    page.set_viewport_size(size)
    lorebook_id = lorebook_import(page, server, tmp_path, f"Sunken {size['width']}",
                                  broken_key=True)
    before = server.store.lorebook_read(lorebook_id)["entries"]
    # The entries start on the first screen: the book's settings are folded away.
    first_row = page.get_by_test_id("lore-row").first.bounding_box()
    assert first_row["y"] < size["height"], f"the first entry starts at {first_row['y']} px"
    height = page.evaluate("document.documentElement.scrollHeight")
    print(f"100-entry book at {size['width']}x{size['height']}: {height} px tall")

    # "Test this text" says which entries fire and which key never will.
    page.fill("form[hx-post$='/test'] textarea[name=text]", "They reach place5 at dawn.")
    page.click("form[hx-post$='/test'] button[type=submit]")
    result = page.locator("#lore-test-result")
    result.get_by_test_id("lore-key-problems").wait_for()
    assert "Entry title 005" in result.inner_text() and "(unclosed" in result.inner_text()

    # Edit one entry deep in the book: the save is refused beside the broken key, the edit kept.
    page.fill("[data-role=search]", "place10")
    row10 = page.locator("[data-testid=lore-row][data-uid='10']")
    row10.locator("details.lore-entry > summary").click()
    row10.locator("textarea[name=e10_content]").fill("Lore number 10, rewritten.")
    page.get_by_test_id("lore-save").click()
    page.wait_for_load_state()
    row99 = page.locator("[data-testid=lore-row][data-uid='99']")
    assert row99.get_by_test_id("field-error").is_visible()
    assert "(unclosed" in row99.get_by_test_id("field-error").inner_text()
    assert page.locator("textarea[name=e10_content]").input_value() == "Lore number 10, rewritten."
    assert server.store.lorebook_read(lorebook_id)["entries"] == before
    screenshot_take(page, f"62_lorebook_refused_{size['width']}", full_page=False)

    row99.locator("textarea[name=e99_keys]").fill("/(closed)/")
    with page.expect_navigation():
        page.get_by_test_id("lore-save").click()
    assert "Lorebook saved." in page.inner_text(".flash")
    # The place is kept: the entry being edited is open again after the reload.
    assert page.locator("details.lore-entry[open]").count() == 1
    assert page.locator("[data-testid=lore-row][data-uid='99'] details.lore-entry").evaluate("d => d.open")
    screenshot_take(page, f"63_lorebook_saved_{size['width']}", full_page=False)

    # Nothing lost: a hundred entries, every field as it was but the two edited.
    page.reload()
    assert page.get_by_test_id("lore-row").count() == 100
    after = server.store.lorebook_read(lorebook_id)["entries"]
    assert len(after) == 100
    assert after[10]["content"] == "Lore number 10, rewritten."
    assert after[99]["keys"] == ["/(closed)/"]
    unchanged = [(b, a) for b, a in zip(before, after, strict=True) if b["uid"] not in (10, 99)]
    assert all(b == a for b, a in unchanged), next((b, a) for b, a in unchanged if b != a)
    assert {k: v for k, v in after[10].items() if k != "content"} == {
        k: v for k, v in before[10].items() if k != "content"}

    # A new entry is reached from above the list, without scrolling through a hundred rows.
    page.get_by_test_id("lore-new").click()
    assert page.evaluate("document.activeElement.name") == "new_keys"
    page.keyboard.type("lighthouse")
    page.fill("textarea[name=new_content]", "The lighthouse stands on the reef.")
    with page.expect_navigation():
        page.get_by_test_id("lore-save").click()
    after = server.store.lorebook_read(lorebook_id)["entries"]
    assert len(after) == 101 and after[-1]["keys"] == ["lighthouse"]
    assert page.js_errors == []


def test_a_long_books_editor_has_no_serious_accessibility_violation(
        page: Page, server: Server, tmp_path: Path) -> None:
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(PHONE)
    lorebook_import(page, server, tmp_path, "Audited", broken_key=True)
    row = page.locator("[data-testid=lore-row]").nth(2)
    row.locator("details.lore-entry > summary").click()
    row.get_by_test_id("lore-more").locator("summary").click()  # the folded fields too
    assert audit_in_each_scheme(page) == {}  # one walk: the colours follow the scheme live


def test_an_open_entry_on_a_phone_folds_the_rare_fields_and_keeps_clear_of_the_save_bar(
        page: Page, server: Server, tmp_path: Path) -> None:
    """An open entry showed ~20 fields at once on a phone; the fixed Save bar covered the last
    ones. Keys, content, position, order, comment and the switches show; the rest wait under
    "More"; a field reached by Tab or a tap scrolls clear of the bar. The note that an entry's
    character filter keeps SillyTavern tag ids with no name opens the entry; a hint's margin,
    meant for under a field, pulled it onto the summary line."""
    page.set_viewport_size(PHONE)
    lorebook_import(page, server, tmp_path, "Folded 390", changed={98: {"characterFilter": {
        "isExclude": False, "names": [], "tags": ["1700000000123"]}}})
    row = page.locator("[data-testid=lore-row][data-uid='99']")
    row.locator("details.lore-entry > summary").click()
    assert row.locator("textarea[name=e99_keys]").is_visible()
    assert row.locator("textarea[name=e99_content]").is_visible()
    for rare in ("probability", "group", "depth", "role", "sticky", "cooldown", "delay",
                 "secondary_keys", "scan_depth"):
        assert not row.locator(f"[name=e99_{rare}]").is_visible(), rare
    row.evaluate("(e) => e.scrollIntoView({block: 'start'})")
    screenshot_take(page, "64_lorebook_entry_open_390", full_page=False)
    more = row.get_by_test_id("lore-more")
    more.locator("summary").click()
    assert row.locator("[name=e99_probability]").is_visible()
    bar = page.locator(".lore-save").bounding_box()
    for name in ("e99_delay", "e99_delete"):
        # The field scrolled to sit under the bar, as a thumb's scroll leaves it, then reached.
        page.locator(f"[name={name}]").evaluate(
            "(e) => window.scrollBy(0, e.getBoundingClientRect().bottom - innerHeight + 12)")
        page.locator(f"[name={name}]").focus()
        box = page.locator(f"[name={name}]").bounding_box()
        assert box["y"] + box["height"] <= bar["y"], f"{name} is under the Save bar"
    # At the very bottom of the page the last field still sits above the bar.
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    box = page.locator("[name=e99_delete]").bounding_box()
    assert box["y"] + box["height"] <= bar["y"]
    no_sideways_scroll(page)
    screenshot_take(page, "64_lorebook_entry_more_390", full_page=False)
    tagged = page.locator("[data-testid=lore-row][data-uid='98']")
    tagged.locator("details.lore-entry > summary").click()
    summary = tagged.locator("details.lore-entry > summary").bounding_box()
    note = tagged.get_by_test_id("lore-tag-ids").bounding_box()
    assert note["y"] - (summary["y"] + summary["height"]) >= 4
    assert page.js_errors == []
