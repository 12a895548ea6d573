"""The chat drawer's prompt blocks: a SillyTavern preset file imported from the page lists its
blocks and what was left out; switching one off is kept; two switches clicked at once are both
kept, and the switches wait while an import replaces the blocks."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from tests.chat.st_presets import st_preset
from tests.e2e.conftest import DESKTOP, Server, instance_new, screenshot_take
from tests.e2e.held_requests import HeldRequests, answers_kept, page_wait
from tests.e2e.page_api import api_call

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


def _settings_blocks_imported(page: Page, server: Server, tmp_path):
    """The settings page's prompt blocks card with a SillyTavern preset imported from it."""
    page.goto(f"{server.url}/settings/")
    card = page.locator("[data-testid=account-prompt-blocks] [data-testid=prompt-blocks]")
    preset = tmp_path / "grim.json"
    preset.write_text(json.dumps(st_preset()))
    card.locator("[data-role=preset-file]").set_input_files(str(preset))
    expect(card.locator("[data-testid=preset-imported]")).to_be_visible()
    return card, preset


def test_the_switches_wait_while_an_import_replaces_the_blocks(page: Page, server: Server,
                                                               tmp_path) -> None:
    card, preset = _settings_blocks_imported(page, server, tmp_path)
    reads = HeldRequests(page, r".*/prompt_manager$", lambda request: request.method == "GET")
    card.locator("[data-role=preset-file]").set_input_files(str(preset))  # imported again
    reads.wait("the import never read the blocks")
    # A switch of the blocks being replaced would be sent after the import and undo it.
    blocks = card.locator("[data-role=blocks]")
    assert blocks.evaluate("list => list.inert") and blocks.get_attribute("aria-busy") == "true"
    reads.release()
    expect(card.locator("[data-testid=preset-imported]")).to_be_visible()
    assert not blocks.evaluate("list => list.inert")
    assert blocks.get_attribute("aria-busy") == "false"
    reads.stop()
    assert page.js_errors == []


def test_two_switches_clicked_at_once_are_both_kept(page: Page, server: Server,
                                                    tmp_path) -> None:
    card, _ = _settings_blocks_imported(page, server, tmp_path)
    writes = HeldRequests(page, r".*/prompt_manager$", lambda request: request.method == "PUT",
                          first_only=True)
    answered = answers_kept(page, lambda r: r.request.method == "PUT"
                            and r.url.endswith("/prompt_manager"))
    whisper = card.locator("li", has_text="Whisper").locator("input")
    tail = card.locator("li", has_text="Tail note").locator("input")
    was = {"Whisper": whisper.is_checked(), "Tail note": tail.is_checked()}
    whisper.click()
    writes.wait("the first switch was never sent")
    tail.click()
    page.wait_for_timeout(200)  # time for a second request, had it been sent beside the first
    writes.release()
    page_wait(page, lambda: len(answered) == 2, "the two switches were not both answered")
    assert [r.status for r in answered] == [200, 200]
    writes.stop()
    manager = api_call(page, server, "GET", "/prompt_manager")
    kept = {b["name"]: b["enabled"] for b in manager["blocks"]}
    assert kept["Whisper"] is not was["Whisper"] and kept["Tail note"] is not was["Tail note"]
    assert whisper.is_checked() is kept["Whisper"] and tail.is_checked() is kept["Tail note"]
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
