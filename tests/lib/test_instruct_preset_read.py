"""SillyTavern instruct presets read as SillyTavern reads them, without a server: its own
Story, Adventure, Libra-32B and Alpaca-Single-Turn presets leave input_sequence and
output_sequence empty (plain story text, or one reply marker) and are presets all the same."""

from __future__ import annotations

import pytest

from personalab.lib.instruct import InstructError, instruct_prompt, instruct_template_read

# The shape of SillyTavern 1.12.6's Story preset: every sequence empty, names never written.
STORY = {"input_sequence": "", "output_sequence": "", "last_output_sequence": "",
         "system_sequence": "", "stop_sequence": "", "wrap": True, "macro": True,
         "names_behavior": "none", "first_output_sequence": "", "output_suffix": "",
         "input_suffix": "", "system_suffix": "", "name": "Story"}
MESSAGES = [{"role": "system", "content": "A tale."}, {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "Hi!"}]


def test_a_preset_with_empty_sequences_lays_the_chat_out_as_plain_lines():
    prompt = instruct_prompt(MESSAGES, template=instruct_template_read(STORY),
                             char_name="Amy", user_name="Ada")
    assert prompt.text == "A tale.\nHello.\nHi!\n"


def test_a_preset_with_only_a_reply_marker_ends_on_it():
    libra = {**STORY, "last_output_sequence": "\n### Response:", "names_behavior": "always",
             "name": "Libra-32B"}
    prompt = instruct_prompt(MESSAGES, template=instruct_template_read(libra),
                             char_name="Amy", user_name="Ada")
    assert prompt.text.endswith("Ada: Hi!\n### Response:\nAmy:")
    assert "\n### Response:" in prompt.stop


def test_a_file_without_sillytaverns_sequence_fields_is_still_refused():
    with pytest.raises(InstructError):
        instruct_template_read({"story_string": "{{description}}", "name": "a context"})
