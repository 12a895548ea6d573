"""Type to find where an author ticks several things from a long list (issue 33): with 64
lorebooks, a character's, a background's and a chat's lorebooks are ticks with a labelled "Find
a lorebook" box; typing keeps the matching ones and every one already ticked, Tab and Space tick,
and a save keeps them all. The chat drawer's background and persona lists (64 each) get a box
too. Phone (390x844, touch) and laptop, axe-clean, 中文."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from tests.e2e.axe_audit import AXE
from tests.e2e.axe_audit import RUN as AXE_RUN
from tests.e2e.conftest import DESKTOP, PHONE, ROOT, Server, browser_missing_reason, screenshot_take
from tests.e2e.device_pages import author_page_open
from tests.e2e.page_api import api_call, drawer_open

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

# Its own server: 64 lorebooks, backgrounds and personas would lengthen every other module's
# lists.
pytestmark = [pytest.mark.e2e]

SEED = """
import json, sys, django
django.setup()
from django.contrib.auth import get_user_model
from library.lore.services import lorebook_save
from personalab.storage import get_store
admin = get_user_model().objects.get(username="admin")
ids = {}
for name in json.loads(sys.argv[1]):
    ids[name] = lorebook_save(get_store(), user=admin, data={"name": name, "entries": [
        {"keys": [name.lower()], "content": f"About {name}."}]})
from library.background_services import background_save
from library.personas.services import persona_create
for name in json.loads(sys.argv[2]):
    ids[name] = background_save(get_store(), user=admin, data={
        "name": name, "world_setting": f"{name}.", "visibility": "private"})
    ids["as " + name] = persona_create(get_store(), owner=admin, data={
        "name": "Traveller of " + name, "description": "A traveller."})
print(json.dumps(ids))
"""
BOOKS = [f"{place} {kind}" for place in ("Harbour", "Desert", "Forest", "Mountain", "River",
                                         "Castle", "Market", "Temple")
         for kind in ("lore", "history", "people", "magic", "beasts", "trade", "songs", "roads")]
PLACES = [f"{town} {kind}" for town in ("Amber", "Birch", "Cinder", "Dune", "Ember", "Frost",
                                        "Gale", "Hollow")
          for kind in ("Harbor", "Keep", "Marsh", "Road", "Gate", "Well", "Mill", "Ford")]


@pytest.fixture(scope="module")
def books(server: Server) -> dict[str, str]:
    made = subprocess.run([sys.executable, "-c", SEED, json.dumps(BOOKS), json.dumps(PLACES)],
                          cwd=ROOT,
                          env={**server.env, "DJANGO_SETTINGS_MODULE": "personalab.settings"},
                          capture_output=True, text=True, check=True)
    return json.loads(made.stdout.strip().splitlines()[-1])


@pytest.fixture(params=[PHONE, DESKTOP], ids=["phone", "desktop"])
def author(server: Server, request: pytest.FixtureRequest) -> Iterator[Page]:
    yield from author_page_open(server, size=request.param, scheme="dark")


def _ticked(page: Page, root: str) -> list[str]:
    return page.locator(f"{root} input[name=lorebook_ids]:checked").evaluate_all(
        "boxes => boxes.map((b) => b.value)")


def _find(page: Page, root: str, text: str) -> list[str]:
    """The names left in sight after typing `text` in the list's box."""
    page.locator(f"{root} [data-testid=pick-filter]").fill(text)
    return [t.strip() for t in page.locator(
        f"{root} [data-testid=lorebook-ticks] label:visible [data-testid=lorebook-name]"
    ).all_inner_texts()]


def test_a_characters_lorebooks_are_found_by_typing_and_ticked_with_the_keyboard(
        author: Page, server: Server, books: dict[str, str]) -> None:
    page = author
    page.add_init_script(path=str(AXE))
    api_call(page, server, "PUT", "/characters/char_alserqi", {"lorebook_ids": []})
    page.goto(f"{server.url}/library/characters/char_alserqi/")
    root = "#character-form"
    page.locator(f"{root} details:has([data-testid=lorebook-ticks]) > summary").evaluate_all(
        "summaries => summaries.forEach((s) => { if (!s.parentElement.open) s.click(); })")
    box = page.locator(f"{root} [data-testid=pick-filter]")
    assert box.get_attribute("aria-label") == "Find a lorebook"
    assert page.locator(f"{root} [data-testid=lorebook-ticks] label").count() >= len(BOOKS)
    page.locator(f"{root} input[value='{books['Temple songs']}']").check()
    # Typing keeps what holds every word, and what is ticked already.
    assert _find(page, root, "harbour ma") == ["Harbour magic", "Temple songs"]
    # The keyboard: Tab from the box to the first tick shown, Space ticks it.
    box.focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    assert sorted(_ticked(page, root)) == sorted([books["Temple songs"], books["Harbour magic"]])
    assert _find(page, root, "zzz") == ["Harbour magic", "Temple songs"]
    assert page.locator(f"{root} .pick-none").is_visible()
    assert page.evaluate(AXE_RUN) == []
    screenshot_take(page, f"w12_lorebook_ticks_{page.viewport_size['width']}", full_page=False)
    page.click(f"{root} button[type=submit]")
    page.wait_for_load_state()
    saved = server.store.character_read("char_alserqi")["lorebook_ids"]
    assert sorted(saved) == sorted([books["Temple songs"], books["Harbour magic"]])
    assert page.js_errors == []


def test_a_new_backgrounds_and_a_chats_lorebooks_are_found_by_typing(
        author: Page, server: Server, books: dict[str, str]) -> None:
    page = author
    page.goto(f"{server.url}/library/backgrounds/new")
    page.fill("input[name=name]", f"Coast {page.viewport_size['width']}")
    assert _find(page, "main", "river trade") == ["River trade"]
    page.locator("main label:has-text('River trade') input").check()
    page.click("main form button[type=submit]:not(.secondary)")
    page.wait_for_load_state()
    assert "River trade" in page.locator("main [data-testid=lorebook-ticks] label:has(:checked)"
                                         ).inner_text()

    page.goto(f"{server.url}/instances/inst_001/")
    drawer_open(page)
    root = "#lorebooks-card"
    page.locator(root).scroll_into_view_if_needed()
    assert _find(page, root, "castle be") == ["Castle beasts"]
    page.locator(f"{root} label:has-text('Castle beasts') input").check()
    page.click(f"{root} button[type=submit]")
    page.wait_for_load_state()
    assert books["Castle beasts"] in server.instance_state("inst_001")["lorebook_ids"]
    assert page.js_errors == []


def test_the_find_box_reads_in_chinese(server: Server, books: dict[str, str]) -> None:
    for page in author_page_open(server, size=PHONE):
        page.context.add_cookies([{"name": "django_language", "value": "zh-hans",
                                   "url": server.url}])
        page.goto(f"{server.url}/library/backgrounds/new")
        box = page.locator("main [data-testid=pick-filter]")
        assert box.get_attribute("aria-label") == "查找世界书"
        assert _find(page, "main", "qqq") == []
        assert "没有世界书包含这些字" in page.locator("main .pick-none").inner_text()


def test_the_chat_drawers_background_and_persona_are_found_by_typing(
        author: Page, server: Server, books: dict[str, str]) -> None:
    page = author
    page.add_init_script(path=str(AXE))
    page.goto(f"{server.url}/instances/inst_001/")
    drawer_open(page)
    for select, typed, name in (("#drawer-background", "frost well", "Frost Well"),
                                ("#drawer-persona", "ember gate", "Traveller of Ember Gate")):
        box = page.locator(f"[data-testid=pick-filter][aria-controls={select[1:]}]")
        box.scroll_into_view_if_needed()
        box.fill(typed)
        assert page.locator(f"{select} option:checked").inner_text().startswith(name)
        with page.expect_navigation():
            page.locator(select).locator("xpath=..").locator("button[type=submit]").click()
        page.wait_for_load_state()
        drawer_open(page)
    state = server.instance_state("inst_001")
    assert state["background_id"] == books["Frost Well"]
    assert state["persona_id"] == books["as Ember Gate"]
    assert page.evaluate(AXE_RUN) == []
    assert page.js_errors == []
