"""The lorebook editor as an author holds it (issue 33): on a touch phone (390x844) every tick
of the editor and of the home page's group form is a 44 px target with a box a thumb sees; a
filter's count says how many entries match it, and the entry kept open through a refused save
is shown marked as outside the filter, not counted and not picked by "select shown"."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import DESKTOP, PHONE, Server, screenshot_take
from tests.e2e.device_pages import author_page_open
from tests.e2e.lore_pages import lore_row, lorebook_import
from tests.e2e.page_api import scout_make

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

BOX = "el => { const r = el.getBoundingClientRect(); return [r.width, r.height]; }"
TARGET = 44
TICK = 22


def _sizes(locator) -> list[list[float]]:
    """Each element's [width, height] as drawn, read in one call: one call per element (and
    each `nth` finding its element among the 100-entry book's 8,600 again) cost ~3 s of CPU."""
    return locator.evaluate_all(f"elements => elements.map({BOX})")


def _all_at_least(sizes: list[list[float]], width: float, height: float) -> bool:
    return bool(sizes) and all(w >= width - 0.5 and h >= height - 0.5 for w, h in sizes)


def test_on_a_touch_phone_every_tick_is_a_thumb_target(server: Server, tmp_path: Path) -> None:
    for page in author_page_open(server, size=PHONE):
        lorebook_import(page, server, tmp_path, "Reef touch")
        row = lore_row(page, 3)
        # The row's tick: a 44 px target around a 22 px box; a tap on the target's edge ticks.
        assert _all_at_least(_sizes(page.locator(".lore-row .lore-pick-box")), TARGET, TARGET)
        assert _all_at_least(_sizes(page.locator(".lore-row .lore-pick")), TICK, TICK)
        target = row.locator(".lore-pick-box")
        width, height = target.evaluate(BOX)
        target.tap(position={"x": width - 3, "y": height - 3})
        assert row.locator(".lore-pick").is_checked()
        assert page.locator("[data-role=bulk-bar]").is_visible()
        pick_all = page.locator("label:has([data-role=pick-all])")
        assert _all_at_least([pick_all.evaluate(BOX)], TARGET, TARGET)
        # An open entry's ticks and folds.
        row.locator("details.lore-entry > summary").tap()
        entry_ticks = row.locator("details.lore-entry > label:has(input[type=checkbox])")
        assert entry_ticks.count() >= 3  # enabled, constant, regex (and delete)
        assert _all_at_least(_sizes(entry_ticks), TARGET, TARGET)
        assert _all_at_least(_sizes(row.locator("details.lore-entry > label input[type=checkbox]")),
                             TICK, TICK)
        assert _all_at_least(_sizes(row.locator("summary")), TARGET, TARGET)
        screenshot_take(page, "w12c_lore_ticks_390", full_page=False)
        # The home page's group ticks.
        scout_make(page, server, "Tide390")
        page.goto(f"{server.url}/")
        ticks = page.locator("[data-testid=start-group] label.check")
        assert ticks.count() >= 2
        assert _all_at_least(_sizes(ticks), TARGET, TARGET)
        assert _all_at_least(_sizes(ticks.locator("input[type=checkbox]")), TICK, TICK)
        screenshot_take(page, "w12c_group_ticks_390", full_page=False)
        assert page.js_errors == []


def test_the_count_is_what_matches_the_filter_and_the_kept_entry_is_marked(
        server: Server, tmp_path: Path) -> None:
    for page in author_page_open(server, size=DESKTOP):
        lorebook_import(page, server, tmp_path, "Reef filter")
        for uid in (3, 4):
            lore_row(page, uid).locator(".lore-pick").check()
        with page.expect_navigation():
            page.locator("[data-role=bulk-bar] button[data-bulk=disable]").click()
        page.wait_for_load_state("load")
        # Entry 90 (enabled) open, a save refused: it is kept in view whatever the filter.
        row = lore_row(page, 90)
        row.locator("details.lore-entry > summary").click()
        row.locator("textarea[name=e90_keys]").fill("/(unclosed/")
        with page.expect_navigation():
            page.get_by_test_id("lore-save").click()
        page.wait_for_load_state("load")
        assert page.get_by_test_id("lore-refused").is_visible()
        # The refusal beside the key says what is wrong and where, in the author's words.
        assert page.locator("#e90_keys-error").inner_text() == (
            "“/(unclosed/”: a “(” is never closed, after “/(”")
        count = page.locator("[data-testid=lore-tools] [data-role=count]")
        assert count.inner_text() == "100 / 100"
        page.locator("[data-role=filter]").select_option("disabled")
        assert count.inner_text() == "2 / 100"
        shown = page.locator("[data-testid=lore-row]:not([hidden])")
        assert sorted(shown.evaluate_all("rows => rows.map(r => r.dataset.uid)")) == ["3", "4", "90"]
        note = lore_row(page, 90).locator("[data-role=unmatched]")
        assert note.is_visible() and "kept in view" in note.inner_text()
        assert not lore_row(page, 3).locator("[data-role=unmatched]").is_visible()
        # "Select shown" picks what matches, not the entry kept for editing.
        page.locator("[data-role=pick-all]").check()
        picked = page.locator(".lore-row:not([hidden]) .lore-pick:checked")
        assert sorted(picked.evaluate_all("ps => ps.map(p => p.closest('.lore-row').dataset.uid)")) == [
            "3", "4"]
        # A search that leaves it out: still counted out.
        page.locator("[data-role=search]").fill("Entry title 004")
        assert count.inner_text() == "1 / 100"
        screenshot_take(page, "w12c_lore_filter_kept", full_page=False)
        assert page.js_errors == []


def test_the_visibility_hint_follows_the_choice(server: Server) -> None:
    for page in author_page_open(server, size=PHONE):
        page.goto(f"{server.url}/library/characters/new")
        hint = page.get_by_test_id("visibility-hint")
        assert hint.inner_text().startswith("Only you will see it")
        page.locator("select[name=visibility]").select_option("shared")
        assert hint.inner_text() == "Every account on this site can use it."
        page.locator("select[name=visibility]").select_option("private")
        assert hint.inner_text().startswith("Only you will see it")
        assert page.js_errors == []
