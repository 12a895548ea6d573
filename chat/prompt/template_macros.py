"""SillyTavern's instruct, context and system-prompt macros (`replaceInstructMacros`,
public/scripts/instruct-mode.js): `{{instructInput}}`, `{{instructSystemPrefix}}`, … the
markers of the instruct template in use, empty when it is off (chat completion);
`{{exampleSeparator}}` and `{{chatStart}}` the context template's (SillyTavern's Default
`***` when none is chosen); `{{systemPrompt}}` the card's system prompt, else the system
prompt; `{{defaultSystemPrompt}}` / `{{instructSystem}}` / `{{instructSystemPrompt}}` the system
prompt; all four empty when the preset switched the System Prompt off, as SillyTavern's
`sysprompt.enabled`. SillyTavern fills them before `{{user}}` and `{{char}}`, so those inside
are filled."""

from __future__ import annotations

from collections.abc import Mapping

from chat.prompt.story import StoryChoice
from personalab.lib.instruct import InstructTemplate
from personalab.lib.macros import TIME_ZONE, macros_replace

# SillyTavern 1.12.6's system prompt ("Neutral - Chat"), on by default in every mode.
ST_SYSTEM_PROMPT = "Write {{char}}'s next reply in a fictional chat between {{char}} and {{user}}."
# Its Default context template's example separator and chat start.
ST_SEPARATOR = "***"
# Macro names -> the instruct fields they stand for, the first that is set.
INSTRUCT_MACROS = {
    ("instructSystemPromptPrefix",): ("system_sequence_prefix",),
    ("instructSystemPromptSuffix",): ("system_sequence_suffix",),
    ("instructInput", "instructUserPrefix"): ("input_sequence",),
    ("instructUserSuffix",): ("input_suffix",),
    ("instructOutput", "instructAssistantPrefix"): ("output_sequence",),
    ("instructSeparator", "instructAssistantSuffix"): ("output_suffix",),
    ("instructSystemPrefix",): ("system_sequence",),
    ("instructSystemSuffix",): ("system_suffix",),
    ("instructFirstOutput", "instructFirstAssistantPrefix"): ("first_output_sequence",
                                                             "output_sequence"),
    ("instructLastOutput", "instructLastAssistantPrefix"): ("last_output_sequence",
                                                           "output_sequence"),
    ("instructStop",): ("stop_sequence",),
    ("instructUserFiller",): ("user_alignment_message",),
    ("instructSystemInstructionPrefix",): ("last_system_sequence",),
    ("instructFirstInput", "instructFirstUserPrefix"): ("first_input_sequence", "input_sequence"),
    ("instructLastInput", "instructLastUserPrefix"): ("last_input_sequence", "input_sequence"),
}


def _instruct_value(template: InstructTemplate | None, fields: tuple[str, ...]) -> str:
    if template is None:
        return ""
    return next((getattr(template, name) for name in fields if getattr(template, name)), "")


def template_macro_values(choice: StoryChoice | None, values: Mapping[str, str], *,
                          system_default: str = ST_SYSTEM_PROMPT) -> dict[str, str]:
    """The macros above for a turn laid out by `choice` (None: chat completion, or text
    completion without a context template); `values`: the turn's other macros, whose
    `user`, `char`, `charPrompt` and time zone they read; `system_default`: the system prompt
    of the prompt's language (`text_system_prompt` of its template), what a text prompt's
    `{{system}}` starts with when nothing replaces it."""
    names = {key: values[key] for key in ("user", "char", TIME_ZONE) if key in values}
    instruct = choice.instruct if choice is not None else None
    off = instruct is not None and instruct.system_prompt_off
    system = ("" if off else instruct.system_prompt
              if instruct is not None and instruct.system_prompt else system_default)
    found = {name: _instruct_value(instruct, fields)
             for names_of, fields in INSTRUCT_MACROS.items() for name in names_of}
    found.update({"exampleSeparator": choice.template.example_separator if choice else ST_SEPARATOR,
                  "chatStart": choice.template.chat_start if choice else ST_SEPARATOR,
                  "defaultSystemPrompt": system, "instructSystem": system,
                  "instructSystemPrompt": system})
    found["systemPrompt"] = "" if off else values.get("charPrompt") or system
    return {name: macros_replace(text, names) for name, text in found.items()}
