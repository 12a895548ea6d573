"""SillyTavern's instruct, context and system-prompt macros (`replaceInstructMacros`) for a
text-completion turn: the instruct template's markers and the context template's lines, with
`{{user}}` / `{{char}}` inside them filled in; the card's system prompt wins `{{systemPrompt}}`."""

from __future__ import annotations

from chat.prompt.story import StoryChoice
from chat.prompt.template_macros import template_macro_values
from personalab.lib.instruct import instruct_template_read
from personalab.lib.instruct_presets import BUILT_IN
from personalab.lib.macros import macros_replace
from personalab.lib.story_string import context_template_named

VALUES = {"user": "Ann", "char": "Mira"}


def _filled(text: str, choice: StoryChoice | None, **values: str) -> str:
    merged = {**VALUES, **values}
    return macros_replace(text, template_macro_values(choice, merged) | merged)


def test_text_completion_gives_the_templates_markers_and_lines():
    chatml = instruct_template_read({**BUILT_IN["chatml"],
                                     "input_sequence": "<|im_start|>{{user}}"})
    choice = StoryChoice(template=context_template_named("chatml"), instruct=chatml)
    assert _filled("{{instructInput}}|{{instructLastOutput}}|{{instructStop}}", choice) == (
        f"<|im_start|>Ann|{chatml.output_sequence}|{chatml.stop_sequence}")
    template = choice.template
    assert _filled("{{exampleSeparator}}/{{chatStart}}", choice) == (
        f"{template.example_separator}/{template.chat_start}")


def test_the_cards_system_prompt_wins_system_prompt_but_not_the_default_one():
    assert _filled("{{systemPrompt}}", None, charPrompt="Be Mira.") == "Be Mira."
    assert _filled("{{defaultSystemPrompt}}", None, charPrompt="Be Mira.") == (
        "Write Mira's next reply in a fictional chat between Mira and Ann.")
    assert _filled("[{{instructOutput}}]", None) == "[]"


def test_a_system_prompt_switched_off_empties_every_system_prompt_macro():
    export = {"instruct": BUILT_IN["chatml"],
              "sysprompt": {"name": "Off", "enabled": False, "content": "Be {{char}}."}}
    choice = StoryChoice(template=context_template_named("chatml"),
                         instruct=instruct_template_read(export))
    assert _filled("[{{systemPrompt}}|{{defaultSystemPrompt}}|{{instructSystem}}]", choice,
                   charPrompt="Be Mira.") == "[||]"


def test_the_system_prompt_is_the_prompt_languages_own():
    zh = "写出{{char}}在{{char}}与{{user}}之间这场虚构聊天中的下一条回复。"
    merged = {**VALUES}
    filled = macros_replace("{{systemPrompt}}",
                            template_macro_values(None, merged, system_default=zh) | merged)
    assert filled == "写出Mira在Mira与Ann之间这场虚构聊天中的下一条回复。"
