"""Issue 33's "done when", walked by an author: a 100-entry SillyTavern book edited without
losing the place, and a group of three made in the editors and imported into, at phone and
laptop width, light and dark, English and 中文."""

from __future__ import annotations

import re
import struct
import zlib
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
from tests.e2e.lore_pages import lorebook_import
from tests.e2e.page_api import import_name_decline
from tests.e2e.seeded_chats import party_file_write
from tests.png_files import png_bytes

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

# Each label's text above its field, in lines of the label's own font.
LABEL_LINES = """(fold) => [...fold.querySelectorAll('label')].map((label) => {
  const field = label.querySelector('input:not([type=checkbox]), select, textarea');
  if (!field) return [label.textContent.trim(), 1];
  const style = getComputedStyle(label);
  const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.5;
  const text = field.getBoundingClientRect().top - label.getBoundingClientRect().top;
  return [label.textContent.trim(), Math.round(text / line)];
})"""


def _language(page: Page, server: Server, language: str) -> None:
    page.context.add_cookies([{"name": "django_language", "value": language,
                               "url": server.url}])


@pytest.mark.parametrize("scheme,language", [("light", "en"), ("dark", "zh-hans")])
def test_the_more_fold_of_an_entry_keeps_each_label_on_one_line_at_laptop_width(
        page: Page, server: Server, tmp_path: Path, scheme: str, language: str) -> None:
    """The outlet name's label (with its {{outlet::name}} explanation) took three lines at
    1366x900 and pushed the five fields beside it down; the explanation is a hint below."""
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(DESKTOP)
    page.emulate_media(color_scheme=scheme)
    _language(page, server, language)
    try:
        lorebook_import(page, server, tmp_path, f"Folded {scheme} {language}")
        row = page.locator("[data-testid=lore-row][data-uid='50']")
        row.locator("details.lore-entry > summary").click()
        more = row.get_by_test_id("lore-more")
        more.locator("summary").click()
        lines = more.evaluate(LABEL_LINES)
        assert [text for text, count in lines if count > 1] == [], lines
        hint = row.locator("#e50-outlet-hint")
        assert "{{outlet::name}}" in hint.inner_text()
        assert row.locator("[name=e50_outlet_name]").get_attribute(
            "aria-describedby") == "e50-outlet-hint"
        more.evaluate("(e) => e.scrollIntoView({block: 'start'})")
        screenshot_take(page, f"w10_lore_more_1366_{scheme}_{language}", full_page=False)
        assert page.evaluate(AXE_RUN, ["#lore-e50"]) == []  # the long book: test_lorebook_editor.py
    finally:
        page.context.clear_cookies(name="django_language")
    assert page.js_errors == []


def test_a_bulk_action_refused_for_a_broken_key_keeps_the_search_and_shows_the_key(
        page: Page, server: Server, tmp_path: Path) -> None:
    """An imported book keeps a key that does not compile (SillyTavern reads it as text); a bulk
    disable saves the whole book, so it is refused. The author's search came back empty and the
    page jumped to the bottom entry; now the search stays, the refused entry shown with it."""
    page.set_viewport_size(PHONE)
    lorebook_id = lorebook_import(page, server, tmp_path, "Refused bulk", broken_key=True)
    before = server.store.lorebook_read(lorebook_id)["entries"]
    page.fill("[data-role=search]", "place1")
    shown = page.locator("[data-testid=lore-row]:visible")
    assert shown.count() == 11
    page.check("[data-role=pick-all]")
    with page.expect_navigation():
        page.click("button[data-bulk=disable]")
    assert page.input_value("[data-role=search]") == "place1"
    assert sorted(int(uid) for uid in shown.evaluate_all(
        "rows => rows.map((row) => row.dataset.uid)")) == [1, *range(10, 20), 99]
    error = page.locator("[data-testid=lore-row][data-uid='99']").get_by_test_id("field-error")
    assert error.is_visible() and "(unclosed" in error.inner_text()
    box = error.bounding_box()
    assert 0 <= box["y"] < PHONE["height"], "the refusal is off-screen"
    # The bulk change waits in the form, shown as it will be saved.
    assert not page.locator("[name=e12_enabled]").is_checked()
    assert server.store.lorebook_read(lorebook_id)["entries"] == before
    no_sideways_scroll(page)
    screenshot_take(page, "w10_lore_bulk_refused_390", full_page=False)

    page.fill("[name=e99_keys]", "/(closed)/")
    with page.expect_navigation():
        page.get_by_test_id("lore-save").click()
    assert page.input_value("[data-role=search]") == "place1"
    after = server.store.lorebook_read(lorebook_id)["entries"]
    assert sorted(e["uid"] for e in after if not e.get("enabled", True)) == [1, *range(10, 20)]
    assert page.js_errors == []


@pytest.mark.parametrize("size,scheme,language", [
    (PHONE, "dark", "zh-hans"), (DESKTOP, "light", "en")], ids=["phone-dark-zh", "desktop-light-en"])
def test_a_group_of_three_made_in_the_editors_greets_and_imports_by_name(
        page: Page, server: Server, tmp_path: Path, size: dict, scheme: str,
        language: str) -> None:
    """Three characters made in the character editor (a wide picture cropped, a greeting with
    {{char}}), started as a group from the home page, then a chat of theirs imported from the
    library: each greets as itself, pictures everywhere, no id on any page."""
    page.set_viewport_size(size)
    page.emulate_media(color_scheme=scheme)
    _language(page, server, language)
    tag = f"W{size['width']}"
    names = [f"{name}{tag}" for name in ("Ann", "Bob", "Cy")]
    picture = tmp_path / "wide.png"
    picture.write_bytes(png_bytes(300, 200))
    try:
        for name in names:
            page.goto(f"{server.url}/library/characters/new")
            page.fill("input[name=name]", name)
            page.fill("textarea[name=base_persona]", f"{name} keeps the inn.")
            page.set_input_files("input[name=avatar]", str(picture))
            page.locator("[data-role=avatar-preview]:visible").wait_for()
            page.fill("textarea[name=greeting]", "*{{char}} waves.* I am {{char}}.")
            with page.expect_navigation():
                page.click("#character-form button[type=submit]")
            assert page.locator("img[data-role=avatar-now]").count() == 1
        page.goto(f"{server.url}/")
        form = page.get_by_test_id("start-group")
        for name in names:
            form.get_by_label(name, exact=True).check()
        form.locator("button[type=submit]").click()
        page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
        greetings = page.locator("[data-testid=message][data-role=assistant]").all_inner_texts()
        for name in names:
            assert sum(f"I am {name}." in text for text in greetings) == 1, greetings
        assert page.locator("[data-testid=message] img.avatar").count() == 3
        screenshot_take(page, f"w10_group_chat_{tag}", full_page=False)

        page.goto(f"{server.url}/library/")
        page.locator("[data-testid=chat-import-box] summary").click()
        page.locator("form#library-chat-import input[type=file]").set_input_files(
            str(party_file_write(tmp_path, names)))
        page.locator("form#library-chat-import button[type=submit]").click()
        page.locator("[data-testid=import-check]").wait_for()
        picked = page.locator("[data-testid=import-check-character] option:checked")
        assert picked.all_inner_texts() == names
        # The pickers list the whole library: on the shared test server it holds other tests'
        # characters of one name, told apart by their ids (library.selectors.character_choices).
        shown = page.locator("main").evaluate(
            "main => { const copy = main.cloneNode(true);"
            " copy.querySelectorAll('select').forEach(s => s.remove()); return copy.innerText; }")
        assert "char_" not in shown
        screenshot_take(page, f"w10_group_import_check_{tag}")
        import_name_decline(page)
        page.locator("[data-testid=import-anyway]").click()
        page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
        instance_id = page.url.rstrip("/").rsplit("/", 1)[1]
        members = [server.store.character_read(p["character_id"])["name"]
                   for p in server.instance_state(instance_id)["participants"]]
        assert members == names
        assert "char_" not in page.locator("main").inner_text()
        no_sideways_scroll(page)
        screenshot_take(page, f"w10_group_imported_{tag}", full_page=False)
    finally:
        page.context.clear_cookies(name="django_language")
    assert page.js_errors == []


def _striped_png(width: int, height: int) -> bytes:
    """A tall PNG in three bands, top to bottom: red, green, blue."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    bands = [b"\xff\x00\x00", b"\x00\xff\x00", b"\x00\x00\xff"]
    rows = b"".join(b"\x00" + bands[min(2, 3 * y // height)] * width for y in range(height))
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _first_pixel(png: bytes) -> tuple[int, int, int]:
    """The top-left pixel of an 8-bit RGB(A) PNG: whatever the first row's filter, its first
    pixel is stored as it is (there is nothing left of or above it)."""
    data, at = b"", 8
    while at < len(png):
        size, kind = struct.unpack(">I4s", png[at:at + 8])
        if kind == b"IDAT":
            data += png[at + 8:at + 8 + size]
        at += 12 + size
    raw = zlib.decompress(data)
    return raw[1], raw[2], raw[3]


@pytest.mark.parametrize("size,scheme", [(PHONE, "dark"), (DESKTOP, "light")],
                         ids=["phone-dark", "desktop-light"])
def test_a_tall_pictures_crop_is_moved_to_keep_its_top(
        page: Page, server: Server, tmp_path: Path, size: dict, scheme: str) -> None:
    """The crop to the card's 2:3 was always the centre: a full-length portrait lost its face.
    A slider (and dragging the preview) moves it; the top band is what is uploaded."""
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(size)
    page.emulate_media(color_scheme=scheme)
    picture = tmp_path / "tall.png"
    picture.write_bytes(_striped_png(200, 900))
    page.goto(f"{server.url}/library/characters/new")
    page.fill("input[name=name]", f"Tall {size['width']}")
    page.set_input_files("input[name=avatar]", str(picture))
    page.locator("[data-role=avatar-preview]:visible").wait_for()
    move = page.locator("[data-role=crop-move]")
    assert move.is_visible() and move.input_value() == "50"
    colour = "(c) => [...c.getContext('2d').getImageData(2, 2, 1, 1).data.slice(0, 3)]"
    preview = page.locator("[data-role=avatar-preview]")
    assert preview.evaluate(colour) == [0, 255, 0], "the centre crop starts in the green band"
    move.focus()
    page.keyboard.press("Home")
    wait_until(page, "() => document.querySelector('input[name=avatar]').files[0]"
               ".size < 20000 && document.querySelector('[data-role=crop-move]')"
               ".value === '0'")
    assert preview.evaluate(colour) == [255, 0, 0]
    no_sideways_scroll(page)
    assert page.evaluate(AXE_RUN) == []
    screenshot_take(page, f"w10_crop_moved_{size['width']}", full_page=False)
    with page.expect_navigation():
        page.click("#character-form button[type=submit]")
    character_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    stored = (server.data / "characters" / character_id / "avatar.png").read_bytes()
    assert _first_pixel(stored) == (255, 0, 0), "the upload is not the crop shown"

    # Dragging the preview down shows more of what is above: back to the top from the bottom.
    page.set_input_files("input[name=avatar]", str(picture))
    page.locator("[data-role=avatar-preview]:visible").wait_for()
    move = page.locator("[data-role=crop-move]")
    move.focus()
    page.keyboard.press("End")
    wait_until(page, "() => document.querySelector('[data-role=crop-move]').value === '100'")
    assert page.locator("[data-role=avatar-preview]").evaluate(colour) == [0, 0, 255]
    box = page.locator("[data-role=avatar-preview]").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 5)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * 3, steps=5)
    page.mouse.up()
    assert move.input_value() == "0"
    assert page.locator("[data-role=avatar-preview]").evaluate(colour) == [255, 0, 0]
    assert page.js_errors == []


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_rows_ticked_in_the_middle_of_the_book_are_acted_on_from_the_bottom_bar(
        page: Page, server: Server, tmp_path: Path, size: dict) -> None:
    """The bulk buttons were only above the list: rows ticked halfway down a 100-entry book
    meant scrolling back to the top, and the reload left the author there. The fixed bar at the
    bottom offers them while rows are ticked; after the save the rows are in sight again."""
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(size)
    lorebook_id = lorebook_import(page, server, tmp_path, f"Halfway {size['width']}")
    bar = page.locator("[data-role=bulk-bar]")
    assert not bar.is_visible()
    for uid in (60, 61):
        pick = page.locator(f"[data-testid=lore-row][data-uid='{uid}'] .lore-pick")
        pick.scroll_into_view_if_needed()
        pick.check()
    assert bar.is_visible() and bar.locator("[data-role=picked-count]").inner_text() == "2"
    last = page.locator("[data-testid=lore-row][data-uid='61']").bounding_box()
    assert last["y"] + last["height"] <= bar.bounding_box()["y"], "the bar hides a ticked row"
    no_sideways_scroll(page)
    screenshot_take(page, f"w10_lore_bulk_bar_{size['width']}", full_page=False)
    # The ticked rows and the bar (the long book is audited in tests/e2e/test_lorebook_editor.py)
    assert page.evaluate(AXE_RUN, ["#lore-e60", "#lore-e61", ".lore-save"]) == []
    with page.expect_navigation():
        bar.locator("button[data-bulk=disable]").click()
    row = page.locator("[data-testid=lore-row][data-uid='60']")
    wait_until(page, "() => scrollY > 1000")
    box = row.bounding_box()
    assert 0 <= box["y"] and box["y"] + box["height"] <= size["height"], box
    assert row.locator(".lore-status").inner_text() == "disabled"
    assert not bar.is_visible()
    entries = server.store.lorebook_read(lorebook_id)["entries"]
    assert [e["uid"] for e in entries if not e.get("enabled", True)] == [60, 61]
    assert page.js_errors == []
