"""A library of 300 characters: every picker of a character (start a chat, start a scene, add a
member, "Who plays whom" of a chat import) finds one by typing a few letters, on a phone's
keyboard at 390x844 (the filter is the same JS at laptop width), the current or proposed
choice first."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from tests.e2e.axe_audit import AXE
from tests.e2e.axe_audit import RUN as AXE_RUN
from tests.e2e.conftest import (
    PHONE,
    ROOT,
    Server,
    browser_missing_reason,
    no_sideways_scroll,
    screenshot_take,
    wait_until,
)
from tests.e2e.device_pages import author_page_open
from tests.e2e.page_api import import_name_decline

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

# Its own server: 300 characters would lengthen every other module's pickers.
pytestmark = [pytest.mark.e2e]

FIRST = ["Aldric", "Brenna", "Cassian", "Dariel", "Elowen", "Fenwick", "Gideon", "Halima",
         "Isolde", "Jorund", "Kaiser", "Lysander", "Mirela", "Nadira", "Orrin", "Perrin",
         "Quilla", "Rowan", "Sabine", "Talwyn", "Ulric", "Vesna", "Wystan", "Xanthe",
         "Yselda", "Zoran", "Ansel", "Brisa", "Corvin", "Delphine"]
LAST = ["Ashdown", "Blackwood", "Crane", "Dunmore", "Everhart", "Fairweather", "Greaves",
        "Holloway", "Ironside", "Marsh"]
SEED = """
import json, sys, django
django.setup()
from django.contrib.auth import get_user_model
from library.character_services import character_save
from personalab.storage import get_store
admin = get_user_model().objects.get(username="admin")
ids = {}
for name in json.loads(sys.argv[1]):
    ids[name] = character_save(get_store(), user=admin, data={
        "name": name, "base_persona": f"{name}, one of many.", "greeting": "Hello.",
        "visibility": "private"})
from library.background_services import background_save
for place in json.loads(sys.argv[2]):
    ids[place] = background_save(get_store(), user=admin, data={
        "name": place, "world_setting": f"{place}.", "visibility": "private"})
# Another account's shared characters, more than a picker lists at once (30): the oldest, a
# namesake of one of admin's, is found only by typing.
quill = get_user_model().objects.create_user("quill", password="quill-password-123")
for name in ["Delphine Marsh", *(f"Umbra Quell {n:02d}" for n in range(36))]:
    ids[f"quill:{name}"] = character_save(get_store(), user=quill, data={
        "name": name, "base_persona": f"{name}, quill's.", "greeting": "Hi.",
        "visibility": "shared"})
print(json.dumps(ids))
"""
PLACES = [f"{first} {kind}" for first in ("Sunken", "Grey", "Amber") for kind in
          ("Harbor", "Keep", "Marsh", "Road")]


def _names() -> list[str]:
    names = [f"{first} {last}" for last in LAST for first in FIRST]
    names[names.index("Sabine Crane")] = "Seraphina"
    return names


@pytest.fixture(scope="module")
def library(server: Server) -> dict[str, str]:
    """{name: id} of the 300 characters and 12 backgrounds, written by the app's own services
    in one process."""
    made = subprocess.run([sys.executable, "-c", SEED, json.dumps(_names()), json.dumps(PLACES)],
                          cwd=ROOT,
                          env={**server.env, "DJANGO_SETTINGS_MODULE": "personalab.settings"},
                          capture_output=True, text=True, check=True)
    return json.loads(made.stdout.strip().splitlines()[-1])


@pytest.fixture
def phone(server: Server) -> Iterator[Page]:
    yield from author_page_open(server, size=PHONE)


def _chat_opened_members(page: Page, server: Server) -> list[str]:
    """The ids of the members of the chat the page has just opened."""
    page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
    instance_id = page.url.rstrip("/").rsplit("/", 1)[1]
    return [p["character_id"] for p in server.instance_state(instance_id)["participants"]]


def _options(page: Page, select: str) -> list[str]:
    return [text.strip() for text in page.locator(f"{select} option").all_inner_texts()]


def test_the_new_chat_picker_finds_seraphina_among_300_by_three_letters_on_a_phone(
        phone: Page, server: Server, library: dict[str, str]) -> None:
    page = phone
    page.add_init_script(path=str(AXE))
    page.emulate_media(color_scheme="dark")
    page.goto(f"{server.url}/#start-chat")
    select = "#start-character"
    assert len(_options(page, select)) > 300
    box = page.locator("[data-testid=pick-filter][aria-controls=start-character]")
    assert box.get_attribute("aria-label") == "Find a character"
    box.tap()
    page.keyboard.type("ser")
    shown = _options(page, select)
    # Ten Kaisers and the demo's Alserqi hold "ser" too: a name that starts with it comes first
    # and is picked.
    assert shown[0] == "Seraphina" and len(shown) == 12, shown
    assert all("ser" in name.lower() for name in shown)
    assert page.locator(select).input_value() == library["Seraphina"]
    page.keyboard.type("a")
    assert _options(page, select) == ["Seraphina"]
    assert page.locator(select).bounding_box()["height"] >= 40
    no_sideways_scroll(page)
    assert page.evaluate(AXE_RUN) == []
    screenshot_take(page, "pick_home_seraphina_phone_dark", full_page=False)
    page.keyboard.press("Enter")  # a search box's Enter does not start the chat
    assert page.url.endswith("/#start-chat")
    page.locator("[data-testid=pick-filter][aria-controls=start-background]").tap()
    page.keyboard.type("sunken h")
    assert page.locator("#start-background").input_value() == library["Sunken Harbor"]
    page.locator("#start-chat form[action='/instances/new'] button[type=submit]").tap()
    page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
    instance_id = page.url.rstrip("/").rsplit("/", 1)[1]
    state = server.instance_state(instance_id)
    assert state["character_id"] == library["Seraphina"]
    assert state["background_id"] == library["Sunken Harbor"]
    assert page.js_errors == []


# Only at phone width: the filter is JS that reads no width, and the list's cap,
# min(18rem, 45vh), is the same 288 px box at 844 and at 900 px tall.
@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
def test_a_scene_is_ticked_from_300_by_typing_and_the_ticked_stay_in_view(
        page: Page, server: Server, library: dict[str, str], size: dict) -> None:
    page.set_viewport_size(size)
    page.goto(f"{server.url}/")
    form = page.get_by_test_id("start-group")
    box = form.get_by_label("Find a character")
    box.fill("seraph")
    visible = form.locator("label.check:visible")
    assert [t.strip() for t in visible.all_inner_texts()] == ["Seraphina"]
    form.get_by_label("Seraphina", exact=True).check()
    box.fill("mirela hol")
    assert sorted(t.strip() for t in visible.all_inner_texts()) == [
        "Mirela Holloway", "Seraphina"]
    form.get_by_label("Mirela Holloway", exact=True).check()
    box.fill("zzz")
    assert form.get_by_text("No character holds these letters.").is_visible()
    assert sorted(t.strip() for t in visible.all_inner_texts()) == [
        "Mirela Holloway", "Seraphina"]  # a ticked one stays in view
    # 300 ticks no longer make the page 300 lines long: the list scrolls inside its box.
    box.fill("")
    height = form.locator(".pick-list").bounding_box()["height"]
    assert height <= size["height"] * 0.5, height
    no_sideways_scroll(page)
    screenshot_take(page, f"pick_scene_{size['width']}", full_page=False)
    form.locator("button[type=submit]").click()
    assert _chat_opened_members(page, server) == [library["Seraphina"],
                                                  library["Mirela Holloway"]]
    assert page.js_errors == []


def test_the_members_card_adds_a_character_found_by_typing_and_keeps_its_box_after_a_change(
        phone: Page, server: Server, library: dict[str, str]) -> None:
    page = phone
    page.goto(f"{server.url}/")
    page.get_by_test_id("start-group").get_by_label("Find a character").fill("seraph")
    page.get_by_test_id("start-group").get_by_label("Seraphina", exact=True).check()
    page.get_by_test_id("start-group").get_by_label("Find a character").fill("orrin ash")
    page.get_by_test_id("start-group").get_by_label("Orrin Ashdown", exact=True).check()
    page.get_by_test_id("start-group").locator("button[type=submit]").tap()
    page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
    instance_id = page.url.rstrip("/").rsplit("/", 1)[1]
    page.get_by_test_id("drawer-toggle").tap()
    card = page.locator("#members-card")
    card.locator("summary").tap()
    card.get_by_test_id("pick-filter").tap()
    page.keyboard.type("xanthe m")
    assert card.locator("#member-add").input_value() == library["Xanthe Marsh"]
    card.locator("button", has_text="Add to the story").tap()
    wait_until(page, "() => document.querySelectorAll('#members-card li').length === 3")
    # The card came back from the server: its search box is there again, empty.
    card = page.locator("#members-card")
    card.get_by_test_id("pick-filter").wait_for()
    assert card.get_by_test_id("pick-filter").count() == 1
    assert card.get_by_test_id("pick-filter").input_value() == ""
    members = [p["character_id"] for p in server.instance_state(instance_id)["participants"]]
    assert members[-1] == library["Xanthe Marsh"]
    screenshot_take(page, "pick_members_phone", full_page=False)
    assert page.js_errors == []


def test_who_plays_whom_offers_the_proposed_character_first_and_finds_another_by_typing(
        page: Page, server: Server, library: dict[str, str], tmp_path: Path) -> None:
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(PHONE)
    path = tmp_path / "party.jsonl"
    rows = [{"user_name": "Ann", "character_name": "Seraphina", "chat_metadata": {}}]
    for speaker, text in (("Seraphina", "The forest is quiet."), ("Ann", "Too quiet."),
                          ("Stranger", "I mean no harm.")):
        rows.append({"name": speaker, "is_user": speaker == "Ann", "is_system": False,
                     "send_date": "2024-03-05T14:03:00.000Z", "mes": text, "extra": {}})
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    page.goto(f"{server.url}/library/")
    page.locator("[data-testid=chat-import-box] summary").click()
    page.locator("form#library-chat-import input[type=file]").set_input_files(str(path))
    page.locator("form#library-chat-import button[type=submit]").click()
    page.locator("[data-testid=import-check]").wait_for()
    picks = page.get_by_test_id("import-check-character")
    first = _options(page, "#import-pick-1")
    assert first[:2] == ["— not in this chat —", "Seraphina"]
    assert picks.nth(0).input_value() == library["Seraphina"]
    row = page.get_by_test_id("import-check-row").nth(1)
    assert row.locator("label").inner_text() == "Stranger"
    row.get_by_test_id("pick-filter").fill("wystan gre")
    assert picks.nth(1).input_value() == library["Wystan Greaves"]
    no_sideways_scroll(page)
    assert page.evaluate(AXE_RUN) == []
    screenshot_take(page, "pick_import_check_phone")
    import_name_decline(page)
    page.get_by_test_id("import-anyway").click()
    assert _chat_opened_members(page, server) == [library["Seraphina"], library["Wystan Greaves"]]
    assert page.js_errors == []


def test_a_shared_namesake_not_listed_is_found_by_typing_and_played_on_a_phone(
        phone: Page, server: Server, library: dict[str, str]) -> None:
    page = phone
    page.goto(f"{server.url}/#start-chat")
    select = "#start-character"
    theirs = library["quill:Delphine Marsh"]
    assert page.locator(f"{select} option[value='{theirs}']").count() == 0
    # The list already tells admin's own Delphine from quill's, which it does not show.
    assert "Delphine Marsh · yours" in _options(page, select)
    assert page.locator("form[data-character-find]").is_hidden()  # the script searches
    page.locator("[data-testid=pick-filter][aria-controls=start-character]").tap()
    page.keyboard.type("delphine ma")
    page.locator(f"{select} option[value='{theirs}']").wait_for(state="attached")
    assert sorted(_options(page, select)) == ["Delphine Marsh · by quill",
                                              "Delphine Marsh · yours"]
    page.locator(select).select_option(theirs)
    page.locator("#start-chat form[action='/instances/new'] button[type=submit]").tap()
    page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
    instance_id = page.url.rstrip("/").rsplit("/", 1)[1]
    assert server.instance_state(instance_id)["character_id"] == theirs
    no_sideways_scroll(page)
    assert page.js_errors == []
