"""A refused lorebook save keeps the author's place (issue 33): in a 100-entry book, entry 90
open and being written, a save the server refuses comes back with that entry open where it was,
what was typed still there, each error beside the field it names and the focus on that field."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.axe_audit import AXE
from tests.e2e.axe_audit import RUN as AXE_RUN
from tests.e2e.conftest import DESKTOP, PHONE, Server, screenshot_take
from tests.e2e.device_pages import author_page_open
from tests.e2e.lore_pages import lore_row, lore_row_top, lorebook_import

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def _entry(server: Server, lorebook_id: str, uid: int) -> dict:
    return next(e for e in server.store.lorebook_read(lorebook_id)["entries"] if e["uid"] == uid)


@pytest.mark.parametrize("size,scheme", [(PHONE, "dark"), (DESKTOP, "light")],
                         ids=["phone-dark", "desktop-light"])
def test_a_refused_save_keeps_the_open_entry_the_typed_text_and_focuses_the_wrong_field(
        server: Server, tmp_path: Path, size: dict, scheme: str) -> None:
    for page in author_page_open(server, size=size, scheme=scheme):
        page.add_init_script(path=str(AXE))
        lorebook_id = lorebook_import(page, server, tmp_path, f"Harbour {size['width']}")
        row = lore_row(page, 90)
        row.locator("details.lore-entry > summary").click()
        row.get_by_test_id("lore-more").locator("summary").click()
        row.evaluate("row => { row.scrollIntoView(); window.scrollBy(0, -40); }")
        row.locator("input[name=e90_probability]").fill("often")
        row.locator("textarea[name=e90_content]").fill("The harbour, rewritten at night.")
        row.locator("textarea[name=e90_keys]").fill("harbour\n/(unclosed/")
        before = lore_row_top(page, 90)
        with page.expect_navigation():
            page.get_by_test_id("lore-save").click()
        page.wait_for_load_state("load")
        assert page.get_by_test_id("lore-refused").is_visible()
        # Nothing was written; the entry is open where it was, with what the author typed.
        assert "often" not in str(_entry(server, lorebook_id, 90))
        row = lore_row(page, 90)
        assert row.locator("details.lore-entry").evaluate("d => d.open")
        assert row.get_by_test_id("lore-more").evaluate("d => d.open")
        assert abs(lore_row_top(page, 90) - before) <= 2, (before, lore_row_top(page, 90))
        assert row.locator("textarea[name=e90_keys]").input_value() == "harbour\n/(unclosed/\n"
        assert row.locator("textarea[name=e90_content]").input_value() == (
            "The harbour, rewritten at night.")
        assert row.locator("input[name=e90_probability]").input_value() == "often"
        # The focus is on the key the server named, its error right under it and read with it.
        assert page.evaluate("document.activeElement.name") == "e90_keys"
        for name in ("e90_keys", "e90_probability"):
            field = row.locator(f"[name={name}]")
            assert field.get_attribute("aria-invalid") == "true"
            error = page.locator(f"#{name}-error")
            assert error.is_visible() and name in field.get_attribute("aria-describedby")
            assert error.evaluate("(p, name) => p.previousElementSibling.contains("
                                  "document.getElementsByName(name)[0])", name)
        assert "unclosed" in page.locator("#e90_keys-error").inner_text()
        # The refusal, the entry and the save bar (the whole long book is audited in
        # tests/e2e/test_lorebook_editor.py)
        regions = ["[data-testid=lore-refused]", "#lore-e90", ".lore-save"]
        assert page.evaluate(AXE_RUN, regions) == []
        screenshot_take(page, f"w12_lore_refused_{size['width']}_{scheme}", full_page=False)
        # Corrected, it saves, and the entry is still open.
        row.locator("textarea[name=e90_keys]").fill("harbour")
        row.locator("input[name=e90_probability]").fill("40")
        with page.expect_navigation():
            page.get_by_test_id("lore-save").click()
        page.wait_for_load_state("load")
        saved = _entry(server, lorebook_id, 90)
        assert saved["keys"] == ["harbour"] and saved["probability"] == 40
        assert lore_row(page, 90).locator("details.lore-entry").evaluate("d => d.open")
        assert page.js_errors == []


def test_a_book_saved_elsewhere_meanwhile_is_not_overwritten_and_the_place_is_kept(
        server: Server, tmp_path: Path) -> None:
    for page in author_page_open(server, size=DESKTOP):
        lorebook_id = lorebook_import(page, server, tmp_path, "Harbour elsewhere")
        row = lore_row(page, 90)
        row.locator("details.lore-entry > summary").click()
        row.evaluate("row => { row.scrollIntoView(); window.scrollBy(0, -40); }")
        row.locator("textarea[name=e90_content]").fill("Written in this tab.")
        before = lore_row_top(page, 90)
        # Meanwhile another tab saves the book.
        book = server.store.lorebook_read(lorebook_id)
        book["entries"][5]["content"] = "Written in another tab."
        server.store.lorebook_write(lorebook_id, book)
        with page.expect_navigation():
            page.get_by_test_id("lore-save").click()
        page.wait_for_load_state("load")
        assert "saved elsewhere" in page.get_by_test_id("lore-refused").inner_text()
        assert _entry(server, lorebook_id, 5)["content"] == "Written in another tab."
        assert _entry(server, lorebook_id, 90)["content"] != "Written in this tab."
        row = lore_row(page, 90)
        assert row.locator("details.lore-entry").evaluate("d => d.open")
        assert abs(lore_row_top(page, 90) - before) <= 2, (before, lore_row_top(page, 90))
        assert row.locator("textarea[name=e90_content]").input_value() == "Written in this tab."
        # Saving again keeps this tab's version, as the message says.
        with page.expect_navigation():
            page.get_by_test_id("lore-save").click()
        page.wait_for_load_state("load")
        assert _entry(server, lorebook_id, 90)["content"] == "Written in this tab."
        assert page.js_errors == []
