"""An author edits a 100-entry lorebook without losing their place: entries are collapsed rows
(title, keys, status), one open at a time, with search, a filter and bulk actions, at phone and
laptop width."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.e2e.conftest import SIZES, Server, no_sideways_scroll, screenshot_take
from tests.e2e.test_sillytavern_files import _st_entry

pytestmark = pytest.mark.e2e


def _book_import(page: Page, server: Server, tmp_path: Path, name: str) -> str:
    world = {"entries": {str(uid): _st_entry(uid, [f"key{uid}", f"place{uid}"],
                                             f"Lore number {uid} of the drowned city.",
                                             comment=f"Entry title {uid:03d}", order=200 - uid)
                         for uid in range(100)}}
    upload = tmp_path / f"{name}.json"
    upload.write_text(json.dumps(world))
    page.goto(f"{server.url}/library/")
    form = page.locator("form#lorebook-import")
    form.locator("input[type=file]").set_input_files(str(upload))
    form.locator("button[type=submit]").click()
    page.wait_for_url(f"{server.url}/library/lorebooks/*/")
    return page.url.rstrip("/").rsplit("/", 1)[-1]


@SIZES
def test_a_hundred_entry_book_is_a_list_of_rows_to_search_and_act_on(
        page: Page, server: Server, tmp_path: Path, size: dict) -> None:
    page.set_viewport_size(size)
    lorebook_id = _book_import(page, server, tmp_path, f"Drowned {size['width']}")
    rows = page.locator("[data-testid=lore-row]")
    assert rows.count() == 100
    # Collapsed: a hundred entries take about a row each, not twenty fields each.
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height < 100 * 120, f"page is {height} px tall"
    no_sideways_scroll(page)

    # One open at a time.
    rows.nth(3).locator("summary").click()
    rows.nth(7).locator("summary").click()
    assert page.locator("details.lore-entry[open]").count() == 1
    assert rows.nth(7).locator("details").evaluate("d => d.open")

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
