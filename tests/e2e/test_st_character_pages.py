"""What a SillyTavern user edits in the character panel and the chat there, on our pages: the
Character's Note and talkativeness, narrator lines, two imports of one card, a member who joins."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (SIZES, Server, browser_missing_reason, no_sideways_scroll,
                                screenshot_take)
from tests.e2e.test_chat_extras import _api

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = pytest.mark.e2e


def _card(name: str) -> dict:
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": name, "description": "A lighthouse keeper.", "personality": "", "scenario": "",
        "first_mes": "The lamp is lit, {{user}}.", "mes_example": "", "creator_notes": "",
        "system_prompt": "", "post_history_instructions": "", "alternate_greetings": [],
        "tags": [], "creator": "", "character_version": "",
        "extensions": {"depth_prompt": {"prompt": "Wren hides how worried she is.", "depth": 4,
                                        "role": "system"}, "talkativeness": "0.5"}}}


def _card_import(page: Page, server: Server, path: Path) -> str:
    page.goto(f"{server.url}/library/")
    form = page.locator("form#card-drop")
    form.locator("input[type=file]").set_input_files(str(path))
    form.locator("button[type=submit]").click()
    page.wait_for_url(f"{server.url}/library/characters/*/")
    return page.url.rstrip("/").rsplit("/", 1)[-1]


@SIZES
def test_the_characters_note_is_seen_and_edited_on_the_character_page(
        page: Page, server: Server, tmp_path: Path, size: dict) -> None:
    page.set_viewport_size(size)
    path = tmp_path / f"wren_{size['width']}.json"
    path.write_text(json.dumps(_card(f"Wren {size['width']}")))
    character_id = _card_import(page, server, path)
    note = page.locator("[data-testid=character-note]")
    note.scroll_into_view_if_needed()
    assert note.locator("textarea[name=depth_prompt]").input_value() == \
        "Wren hides how worried she is."
    assert note.locator("input[name=depth_prompt_depth]").input_value() == "4"
    assert note.locator("select[name=depth_prompt_role]").input_value() == "system"
    assert note.locator("input[name=talkativeness]").input_value() == "0.5"
    for box in ("textarea[name=depth_prompt]", "input[name=depth_prompt_depth]",
                "select[name=depth_prompt_role]", "input[name=talkativeness]"):
        assert note.locator(box).is_visible()
    no_sideways_scroll(page)
    screenshot_take(page, f"cards6_character_note_{size['width']}")

    note.locator("textarea[name=depth_prompt]").fill("Wren keeps the storm log to herself.")
    note.locator("input[name=depth_prompt_depth]").fill("1")
    note.locator("select[name=depth_prompt_role]").select_option("assistant")
    note.locator("input[name=talkativeness]").fill("0.8")
    page.locator("#character-form button[type=submit]").click()
    page.wait_for_load_state()
    assert "Character saved." in page.inner_text("body")
    assert note.locator("textarea[name=depth_prompt]").input_value() == \
        "Wren keeps the storm log to herself."
    extensions = _api(page, server, "GET", f"/characters/{character_id}")["card"]["data"][
        "extensions"]
    assert extensions["depth_prompt"] == {"prompt": "Wren keeps the storm log to herself.",
                                          "depth": 1, "role": "assistant"}
    assert extensions["talkativeness"] == 0.8
    exported = page.request.get(f"{server.url}/api/v1/characters/{character_id}/card.json")
    assert json.loads(exported.body())["data"]["extensions"]["depth_prompt"]["depth"] == 1
    assert page.js_errors == []
