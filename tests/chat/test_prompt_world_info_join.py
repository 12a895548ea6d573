"""World info before / after the character reaches the model as SillyTavern sends it: the
fired entries of one place joined with a single newline (world-info.js: `worldInfoBefore =
WIBeforeEntries.join('\\n')`), one part of the system text, the other parts still a blank line
apart."""

from __future__ import annotations

import pytest

from chat.prompt.assemble import prompt_build
from chat.prompt.templates import TemplateStore
from tests.chat.prompt_inputs import make_inputs, system_text

LORE = [
    {"name": "lore:lb:1", "content": "The gate is shut.", "position": "before_char"},
    {"name": "lore:lb:2", "content": "The keeper sleeps.", "position": "before_char"},
    {"name": "lore:lb:3", "content": "Rain falls.", "position": "after_char"},
    {"name": "lore:lb:4", "content": "Rain stops.", "position": "after_char"},
]


@pytest.fixture
def templates(tmp_path) -> TemplateStore:
    return TemplateStore(tmp_path / "prompt_templates")


def test_entries_before_and_after_the_character_are_joined_with_one_newline(templates):
    text = system_text(prompt_build(make_inputs(floating_blocks=LORE), templates.get("en")))
    assert "The gate is shut.\nThe keeper sleeps.\n\n" in text
    assert "\n\nRain falls.\nRain stops.\n\n" in text


def test_world_info_moved_after_the_chat_is_one_message_of_its_entries(templates):
    markers = ("charDescription", "chatHistory", "worldInfoAfter")
    result = prompt_build(make_inputs(floating_blocks=LORE, marker_order=markers),
                          templates.get("en"))
    assert {"role": "system", "content": "Rain falls.\nRain stops."} in result.messages
