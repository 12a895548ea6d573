"""A chat file imported from a character's page opens as a new chat with that character, the
import report on top; a chat whose replies are by someone else is asked about first (naming
both), nothing made until the author goes on or picks another character. (A reloaded check page
and a file that is no chat say what to do: tests/chat/test_chat_import_new.py, no browser
needed.)"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest

from tests.e2e.axe_audit import AXE
from tests.e2e.axe_audit import RUN as AXE_RUN
from tests.e2e.conftest import (
    PHONE,
    SIZES,
    Server,
    browser_missing_reason,
    instance_new,
    no_sideways_scroll,
    screenshot_take,
)
from tests.e2e.page_api import api_call, import_name_decline

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def _chat_file(folder: Path, speaker: str) -> Path:
    def line(name: str, is_user: bool, text: str) -> dict:
        return {"name": name, "is_user": is_user, "is_system": False,
                "send_date": "2024-03-05T14:03:00.000Z", "mes": text, "extra": {}}

    path = folder / f"{speaker}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [
        {"user_name": "Ann", "character_name": speaker, "chat_metadata": {}},
        line(speaker, False, "Explosions are the only true art."),
        line("Ann", True, "Even at breakfast?"),
        line(speaker, False, "Especially at breakfast, before the fog lifts.")]))
    return path


def _waiting(server: Server, page: Page) -> list[str]:
    """The files the check page's upload waits in."""
    token = page.locator("#import-check-cancel input[name=token]").get_attribute("value")
    return [p.name for p in (server.store.root / "pending_imports").glob(f"*/{token}.*")]


@SIZES
def test_a_chat_with_another_character_is_asked_about_before_it_is_imported(
        page: Page, server: Server, tmp_path: Path, size: dict) -> None:
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(size)
    name = server.store.character_read("char_alserqi")["name"]
    page.goto(f"{server.url}/library/characters/char_alserqi/")
    page.get_by_text("Import a chat with this character").click()
    form = page.locator("form#character-chat-import")
    form.locator("input[type=file]").set_input_files(str(_chat_file(tmp_path, "Megumin")))
    no_sideways_scroll(page)
    before = set(server.store.instance_ids())
    form.locator("button[type=submit]").click()
    check = page.locator("[data-testid=import-check]")
    check.wait_for()
    warnings = page.locator("[data-testid=import-check-warning]").all_inner_texts()
    assert f"This chat's replies are by Megumin, but you picked {name}." in warnings
    assert set(server.store.instance_ids()) == before, "imported before the author said so"
    assert page.locator("[data-testid=import-check-row]").all_inner_texts()[0].startswith(
        "Megumin")
    assert page.locator("[data-testid=import-check-character] option:checked"
                        ).all_inner_texts() == [name]
    no_sideways_scroll(page)
    screenshot_take(page, f"chat_import_check_{size['width']}")
    assert page.evaluate(AXE_RUN) == []
    import_name_decline(page)
    page.locator("[data-testid=import-anyway]").click()
    page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
    instance_id = page.url.rstrip("/").rsplit("/", 1)[1]
    assert instance_id not in before
    assert server.instance_state(instance_id)["character_id"] == "char_alserqi"
    assert page.locator("#messages").get_by_text(
        "Especially at breakfast, before the fog lifts.").is_visible()
    warning = page.locator("[data-testid=import-warning]")
    assert warning.inner_text() == (f"This chat's replies are by Megumin, not {name}: they were "
                                    f"imported under their own names, and {name} replies from "
                                    "here on.")
    warning.scroll_into_view_if_needed()
    assert warning.is_visible()
    no_sideways_scroll(page)
    screenshot_take(page, f"chat_import_from_character_{size['width']}")
    assert page.js_errors == []


def test_cancel_on_the_check_page_imports_nothing_and_goes_back_to_the_library(
        page: Page, server: Server, tmp_path: Path) -> None:
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(PHONE)
    page.emulate_media(color_scheme="dark")
    page.goto(f"{server.url}/library/")
    page.locator("[data-testid=chat-import-box] summary").click()
    form = page.locator("form#library-chat-import")
    form.locator("input[type=file]").set_input_files(str(_chat_file(tmp_path, "Megumin")))
    before = set(server.store.instance_ids())
    form.locator("button[type=submit]").click()
    page.locator("[data-testid=import-check]").wait_for()
    waiting = _waiting(server, page)
    assert len(waiting) == 2
    assert page.evaluate(AXE_RUN) == []
    screenshot_take(page, "chat_import_check_390_dark", full_page=False)
    page.locator("[data-testid=import-cancel]").click()
    page.wait_for_url(re.compile(r"/library/$"))
    assert set(server.store.instance_ids()) == before
    assert not [name for name in waiting
                if list((server.store.root / "pending_imports").glob(f"*/{name}"))], \
        "the cancelled upload is still on disk"


def test_the_import_report_says_which_narrator_lines_are_sent_and_keeps_off_the_edge(
        page: Page, server: Server, tmp_path) -> None:
    page.set_viewport_size(PHONE)
    instance_new(page, server)
    records = [{"user_name": "Tom", "character_name": "Mira", "create_date": "2024-10-3 @20h 01m",
                "chat_metadata": {}},
               {"name": "Tom", "is_user": True, "is_system": False, "mes": "Is it late?",
                "send_date": "October 3, 2024 8:01pm", "extra": {}},
               {"name": "System", "is_user": False, "is_system": False, "mes": "Night falls.",
                "send_date": "October 3, 2024 8:02pm", "extra": {"type": "narrator"}},
               {"name": "System", "is_user": False, "is_system": True, "mes": "ooc: a comment",
                "send_date": "October 3, 2024 8:03pm", "extra": {"type": "comment"}}]
    path = tmp_path / "Mira - night.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    page.locator("[data-testid=drawer-toggle]").click()
    page.locator("#chat-import input[type=file]").set_input_files(str(path))
    page.locator("#chat-import button[type=submit]").click()
    report = page.wait_for_selector("#import-report")
    assert "2 narrator lines (1 sent to the model, as SillyTavern sends it)" in report.inner_text()
    text = page.locator("#import-report p").first.bounding_box()
    assert text["x"] >= 8, "the report's text touches the screen's edge"
    screenshot_take(page, "evening_03_import_report_390", full_page=False)
    assert page.js_errors == []


def _group_file(folder: Path, speakers: list[str]) -> Path:
    def line(name: str, is_user: bool, text: str) -> dict:
        return {"name": name, "is_user": is_user, "is_system": False,
                "send_date": "2024-03-05T14:03:00.000Z", "mes": text, "extra": {}}

    path = folder / "party.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [
        {"user_name": "Ann", "character_name": speakers[0], "chat_metadata": {}},
        line("Ann", True, "Who is at the door?"),
        *(line(name, False, f"{name} steps in from the rain.") for name in speakers)]))
    return path


@SIZES
def test_a_group_chat_from_the_library_proposes_its_speakers_each_changeable(
        page: Page, server: Server, tmp_path: Path, size: dict) -> None:
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(size)
    page.emulate_media(color_scheme="dark" if size == PHONE else "light")
    tag = f"Import{size['width']}"
    bob, ann = (api_call(page, server, "POST", "/characters", {
        "name": f"{name}{tag}", "base_persona": "A guest.", "greeting": ""})["character_id"]
        for name in ("Bob", "Ann"))
    page.goto(f"{server.url}/library/")
    page.locator("[data-testid=chat-import-box] summary").click()
    form = page.locator("form#library-chat-import")
    form.locator("input[type=file]").set_input_files(
        str(_group_file(tmp_path, [f"Bob{tag}", "Megumin", f"Ann{tag}"])))
    form.locator("button[type=submit]").click()
    page.locator("[data-testid=import-check]").wait_for()
    rows = page.locator("[data-testid=import-check-row]")
    assert [row.locator(".import-check-speaker").inner_text() for row in rows.all()] == [
        f"Bob{tag}", "Megumin", f"Ann{tag}"]
    picks = page.locator("[data-testid=import-check-character]")
    assert [pick.input_value() for pick in picks.all()] == [bob, "", ann]
    assert page.locator("[data-testid=import-check-warning]").count() == 0
    no_sideways_scroll(page)
    box = picks.nth(1).bounding_box()
    assert box["height"] >= 40, "a picker too small for a thumb"
    assert page.evaluate(AXE_RUN) == []
    screenshot_take(page, f"chat_import_who_is_who_{size['width']}")
    picks.nth(1).select_option(label=server.store.character_read("char_alserqi")["name"])
    import_name_decline(page)
    page.locator("[data-testid=import-anyway]").click()
    page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
    instance_id = page.url.rstrip("/").rsplit("/", 1)[1]
    assert [p["character_id"] for p in server.instance_state(instance_id)["participants"]] == [
        bob, "char_alserqi", ann]
    assert page.js_errors == []


def test_a_chat_import_says_it_is_under_way_until_the_next_page_comes(
        page: Page, server: Server, tmp_path: Path) -> None:
    """The largest chat takes half a minute to import, and a sent form shows nothing by itself:
    the form says what it is doing, counts the seconds and takes no second press, until the
    page that reports the result replaces it. The page's last listener keeps the form from
    leaving here, so the wait can be watched."""
    page.set_viewport_size(PHONE)
    page.goto(f"{server.url}/library/characters/char_alserqi/")
    page.get_by_text("Import a chat with this character").click()
    page.evaluate("""() => { window.sent = 0; addEventListener("submit", (e) => {
        if (!e.defaultPrevented) window.sent += 1; e.preventDefault(); }); }""")
    form = page.locator("form#character-chat-import")
    form.locator("input[type=file]").set_input_files(str(_chat_file(tmp_path, "Megumin")))
    form.locator("button[type=submit]").click()
    note = form.locator("[data-testid=form-busy][role=status]")
    assert note.inner_text().startswith("Megumin.jsonl (1 KB): Importing…")  # said at once
    page.wait_for_function("() => document.querySelector("
                           "'form#character-chat-import button[type=submit]').disabled")
    page.wait_for_function("() => / \\(\\d+ s\\)$/.test("
                           "document.querySelector('[data-testid=form-busy]').textContent)")
    form.evaluate("f => f.requestSubmit()")  # Enter in a field: not sent again
    assert page.evaluate("window.sent") == 1
    no_sideways_scroll(page)
    assert page.js_errors == []
