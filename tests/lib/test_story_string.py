"""The story string of a context template is the user's text: only known names and
`{{#if}}` / `{{#unless}}` blocks are understood, and a hostile one is refused with a sentence
instead of running long or building a huge prompt."""

from __future__ import annotations

import pytest

from personalab.lib.story_string import (
    MAX_DEPTH,
    MAX_STORY_CHARS,
    StoryStringError,
    context_template_read,
    story_string_render,
)


def test_blocks_else_and_trim_render_as_sillytavern_does():
    story = ("\n\n{{#if system}}{{system}}\n{{/if}}{{#unless persona}}(none){{else}}{{persona}}"
             "{{/unless}}\n{{#if scenario}}{{#if personality}}{{char}}: {{personality}}\n{{/if}}"
             "{{/if}}{{trim}}\n</s>{{random}}")
    assert story_string_render(story, {"system": "S", "persona": "", "char": "Mira",
                                       "personality": "calm", "scenario": "x"}) == \
        "S\n(none)\nMira: calm</s>{{random}}"


def test_values_are_never_read_as_the_story_string():
    rendered = story_string_render("<{{description}}>", {
        "description": "{{#if system}}{{system}}{{/if}}{{trim}}", "system": "secret"})
    assert rendered == "<{{#if system}}{{system}}{{/if}}{{trim}}>"


@pytest.mark.parametrize(("story", "words"), [
    ("{{#if persona}}" * (MAX_DEPTH + 1), "nested more than"),
    ("x" * (MAX_STORY_CHARS + 1), "longer than"),
    ("{{#if mood}}x{{/if}}", "names no value"),
    ("{{#each description}}{{this}}{{/each}}", "only {{#if name}} and {{#unless name}}"),
    ("{{#if (eq description 'x')}}y{{/if}}", "only {{#if name}} and {{#unless name}}"),
])
def test_a_hostile_story_string_is_refused_on_import(story, words):
    with pytest.raises(StoryStringError) as refused:
        context_template_read({"story_string": story})
    assert words in refused.value.message


def test_a_story_string_repeating_a_long_value_is_refused_not_rendered():
    story = "{{description}}" * 1_300
    context_template_read({"story_string": story})  # it parses: the values decide
    with pytest.raises(StoryStringError) as refused:
        story_string_render(story, {"description": "x" * 100_000})
    assert "too many times" in refused.value.message
    assert len(story_string_render(story, {"description": "a field medic"})) == 13 * 1_300
