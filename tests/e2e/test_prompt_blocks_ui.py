"""The chat drawer's prompt blocks: a SillyTavern preset file imported from the page lists its
blocks and what was left out; switching one off is kept; answers that come back out of order
leave the last action's word on the page."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, Route, expect

from tests.chat.st_presets import st_preset
from tests.e2e.conftest import DESKTOP, Server, instance_new, screenshot_take

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def test_a_preset_imported_from_the_drawer_lists_its_blocks(page: Page, server: Server,
                                                           tmp_path) -> None:
    page.set_viewport_size(DESKTOP)
    instance_id = instance_new(page, server)
    preset = tmp_path / "grim.json"
    preset.write_text(json.dumps(st_preset()))
    card = page.locator("[data-testid=prompt-blocks]")
    card.locator("[data-role=preset-file]").set_input_files(str(preset))
    card.locator("li", has_text="Auxiliary Prompt").wait_for()
    assert "charPersonality" in card.locator("[data-role=skipped]").inner_text()
    # Waited for: the drawer's own first read of the blocks can list the imported ones before
    # the import's read answers and says so.
    expect(card.locator("[data-testid=preset-imported]")).to_have_text(
        "Imported grim.json: its prompts are the blocks above.")
    assert server.instance_state(instance_id)["generation"]["temperature"] == 0.7

    with page.expect_response(lambda r: r.request.method == "PUT"
                              and r.url.endswith("/prompt_manager")) as answer:
        card.locator("li", has_text="Whisper").locator("input").uncheck()
    assert answer.value.ok
    blocks = server.instance_state(instance_id)["prompt_manager"]["blocks"]
    assert {b["name"]: b["enabled"] for b in blocks}["Whisper"] is False
    card.scroll_into_view_if_needed()
    screenshot_take(page, "60_prompt_blocks_1366", full_page=False)
    assert page.js_errors == []


def test_a_switch_refused_while_an_import_reads_its_blocks_keeps_its_refusal(
        page: Page, server: Server, tmp_path) -> None:
    page.goto(f"{server.url}/settings/")
    card = page.locator("[data-testid=account-prompt-blocks] [data-testid=prompt-blocks]")
    preset = tmp_path / "grim.json"
    preset.write_text(json.dumps(st_preset()))
    card.locator("[data-role=preset-file]").set_input_files(str(preset))
    imported = card.locator("[data-testid=preset-imported]")
    expect(imported).to_be_visible()
    box = card.locator("li", has_text="Whisper").locator("input")
    held: list[Route] = []

    def hold_reads_refuse_writes(route: Route) -> None:
        if route.request.method == "GET":
            held.append(route)
        else:
            route.fulfill(status=502, body="<html>Bad gateway</html>", content_type="text/html")

    page.route(re.compile(r".*/prompt_manager$"), hold_reads_refuse_writes)
    card.locator("[data-role=preset-file]").set_input_files(str(preset))  # imported again
    for _ in range(250):
        if held:
            break
        page.wait_for_timeout(20)
    assert held, "the import never read the blocks"
    was = box.is_checked()
    box.click()
    error = card.locator("[data-role=error]")
    expect(error).to_have_text("The server refused this (error 502).")
    assert box.is_checked() == was
    held[0].continue_()
    # The import's read answers last, after the switch's refusal: its blocks are shown and
    # its confirmation said in the same task, without clearing the newer refusal.
    expect(imported).to_be_visible()
    assert error.is_visible() and error.inner_text() == "The server refused this (error 502)."
    page.unroute(re.compile(r".*/prompt_manager$"))
    assert page.js_errors == []


def test_a_presets_scripts_are_allowed_from_the_drawer_and_a_chat_resets_to_the_default(
        page: Page, server: Server, tmp_path) -> None:
    page.set_viewport_size(DESKTOP)
    # the account's default, imported on the settings page
    page.goto(f"{server.url}/settings/")
    default = tmp_path / "default.json"
    default.write_text(json.dumps(st_preset()))
    account = page.locator("[data-testid=account-prompt-blocks] [data-testid=prompt-blocks]")
    account.locator("[data-role=preset-file]").set_input_files(str(default))
    account.locator("li", has_text="Auxiliary Prompt").wait_for()

    instance_id = instance_new(page, server)
    card = page.locator("[data-testid=prompt-blocks]")
    card.locator("li", has_text="Auxiliary Prompt").wait_for()  # a new chat starts from it
    scripted = tmp_path / "scripted.json"
    scripted.write_text(json.dumps({"prompts": [], "extensions": {"regex_scripts": [{
        "scriptName": "grin", "findRegex": "/smiles/g", "replaceString": "grins",
        "placement": [2]}]}}))
    card.locator("[data-role=preset-file]").set_input_files(str(scripted))
    allow = card.locator("[data-testid=preset-regex] input")
    allow.wait_for()
    assert "1 regex scripts" in card.locator("[data-testid=preset-regex]").inner_text()
    with page.expect_response(lambda r: r.request.method == "PUT"
                              and r.url.endswith("/prompt_manager")) as answer:
        allow.check()
    assert answer.value.ok
    assert server.instance_state(instance_id)["prompt_manager"]["regex_scripts_allowed"] is True

    with page.expect_response(lambda r: r.url.endswith("/prompt_manager/reset")) as answer:
        card.locator("[data-testid=prompt-blocks-reset]").click()
    assert answer.value.ok
    manager = server.instance_state(instance_id)["prompt_manager"]
    assert manager["regex_scripts"] == [] and manager["blocks"][0]["name"] == "Main Prompt"
    assert page.js_errors == []


def test_a_utility_line_is_edited_and_restored_from_the_drawer(page: Page,
                                                                server: Server) -> None:
    page.set_viewport_size(DESKTOP)
    instance_id = instance_new(page, server)
    utility = page.locator("[data-testid=prompt-blocks] [data-testid=utility-prompts]")
    utility.locator("summary").click()
    line = utility.locator("[data-testid=utility-personality_format]")
    # The lines are filled once the drawer's request for the chat's prompt manager answers.
    line.evaluate("el => new Promise(done => { const seen = () => el.value ? done() :"
                  " requestAnimationFrame(seen); seen(); })")
    # The demo character's prompt is Chinese: the lines its turns send are shown.
    assert line.input_value() == "[{{char}}的性格：{{personality}}]"
    # SillyTavern's default main prompt is among them, editable like the others.
    assert utility.locator("[data-testid=utility-chat_main_prompt]").input_value() == (
        "写出{{char}}在{{char}}与{{user}}之间这场虚构聊天中的下一条回复。")
    row = utility.locator("[data-key=personality_format]")
    assert row.locator("[data-role=is-default]").is_visible()
    line.fill("Mood: {{personality}}")
    assert not row.locator("[data-role=is-default]").is_visible()

    def saved() -> dict:
        with page.expect_response(lambda r: r.request.method == "PUT"
                                  and r.url.endswith("/prompt_manager")) as answer:
            utility.locator("[data-testid=utility-save]").click()
        assert answer.value.ok
        return server.instance_state(instance_id)["prompt_manager"]["utility"]

    # (other lines a default preset of this shared server set stay as they are)
    assert saved()["personality_format"] == "Mood: {{personality}}"
    row.locator("[data-role=restore]").click()
    assert line.input_value() == "[{{char}}的性格：{{personality}}]"
    assert "personality_format" not in saved()  # back to SillyTavern's default
    assert page.js_errors == []
