"""Stage 2 of the prompt: the template variables, bound late (this turn's macros, the
director's outline and reminder, recalled lines with speaker and date, card fields)."""

from __future__ import annotations

import random
from typing import Any

from chat.prompt.card_fields import card_prompts_used
from chat.prompt.examples import examples_fill
from chat.prompt.inputs import PromptInputs, director_of
from chat.prompt.template_macros import ST_SYSTEM_PROMPT
from chat.prompt.templates import TemplateSet
from personalab.lib.line_macros import chat_position_macros, last_messages_shown
from personalab.lib.macro_variables import MacroVariables
from personalab.lib.macros import macros_replace
from personalab.lib.prompt_manager import slot_text


def macro_values(inputs: PromptInputs) -> dict[str, str]:
    """What {{user}}, {{char}}, {{lastMessage}}... stand for in author text this turn."""
    members = ", ".join(inputs.members)
    values = {
        # SillyTavern's getMaxContextSize: the context less the reply's tokens.
        **({"maxPrompt": str(inputs.window.prompt_room)} if inputs.window else {}),
        **inputs.macros,
        "user": inputs.user_name or "User", "char": inputs.character_name,
        "group": members or inputs.character_name,
        "charIfNotGroup": members or inputs.character_name}
    # The last lines as the conversation below sends them (a greeting's {{roll}} the same).
    return {**last_messages_shown(inputs.lines, values),
            **chat_position_macros(inputs.lines, earlier=inputs.lines_before.chat_messages
                                   if inputs.lines_before else 0), **values}


def author_text(text: str, variables: dict[str, Any], *, roll_seed: str = "") -> str:
    """`text` with its macros filled in; `roll_seed`: what its {{random}} and {{roll}} are
    drawn from (`lore_roll_seed`: the rolls the lore scan made), else fresh ones."""
    # Author text is data (SPEC §10): macros are substituted, nothing in it is ever a template.
    return macros_replace(text, variables["macros"], variables=variables.get("macro_variables"),
                          rng=lore_rng(roll_seed, text) if roll_seed else None)


def lore_rng(roll_seed: str, text: str) -> random.Random:
    """The rolls of a lore entry's text in one turn: the scan, which reads its filled-in text for
    recursion, and the prompt, which sends it, draw the same (SillyTavern fills it once)."""
    return random.Random(f"{roll_seed}\x00{text}")


def _event_text(event: Any) -> str:
    if isinstance(event, dict):
        return str(event.get("text") or event.get("document") or event.get("content") or "")
    return str(event)


def _outline_items(inputs: PromptInputs, templates: TemplateSet) -> list[dict[str, Any]]:
    items = []
    for point in director_of(inputs).get("outline") or []:
        status = str(point.get("status", "pending"))
        items.append({**point, "status": status, "status_label": templates.status_label(status)})
    return items


def _reminder(inputs: PromptInputs) -> dict[str, Any] | None:
    reminder = director_of(inputs).get("reminder")
    if not reminder:
        return None
    return {
        "text": str(reminder.get("text", "")),
        "current_events": [_event_text(e) for e in reminder.get("current_events") or []],
        "reference_events": [_event_text(e) for e in reminder.get("reference_events") or []],
    }


def _recalled_items(inputs: PromptInputs) -> list[dict[str, Any]]:
    """Each recalled line with its speaker and date, and the line before it (marked as the
    neighbour) when recall fetched it, so the model can tell who said what, and when."""
    items = []
    for entry in inputs.recalled:
        if not isinstance(entry, dict):
            items.append({"text": str(entry), "source": "", "speaker": "", "date": "",
                          "rank": None, "neighbour": None})
            continue
        neighbour = entry.get("neighbour")
        items.append({"text": _event_text(entry), "source": str(entry.get("source", "")),
                      "speaker": _recalled_speaker(entry, inputs),
                      "date": str(entry.get("date") or ""), "rank": entry.get("rank"),
                      "neighbour": {"text": _event_text(neighbour),
                                    "speaker": _recalled_speaker(neighbour, inputs)}
                      if isinstance(neighbour, dict) else None})
    return items


def _recalled_speaker(entry: dict[str, Any], inputs: PromptInputs) -> str:
    role = entry.get("role")
    fallback = {"user": inputs.user_name, "assistant": inputs.character_name}.get(str(role), "")
    return str(entry.get("speaker") or fallback or "")


def prompt_variables(
    inputs: PromptInputs, templates: TemplateSet, warnings: list[dict[str, Any]]
) -> dict[str, Any]:
    core = {
        "char": inputs.character_name,
        "user": inputs.user_name or "User",
        "background_name": inputs.background_name,
        "locale": inputs.locale,
        "state": dict(inputs.state),
    }
    variables = {**inputs.state, **core, "macros": macro_values(inputs),
                 # {{setvar}} in one text is what {{getvar}} reads in the texts built after it.
                 "macro_variables": MacroVariables(
                     base=inputs.chat_variables, shared_base=inputs.global_variables)}
    for name in ("base_persona", "world_setting", "pinned"):
        variables[name] = author_text(getattr(inputs, name), variables)
    director = director_of(inputs)
    variables.update(
        evolved_persona=inputs.evolved_persona,
        persona=author_text(inputs.persona_description, variables),
        director_enabled=inputs.director is not None,
        outline=_outline_items(inputs, templates),
        instruction=str(director.get("instruction") or ""),
        finished=bool(director.get("finished")),
        reminder=_reminder(inputs),
        recalled=_recalled_items(inputs),
        recaps=[str(r) for r in inputs.recaps if str(r).strip()],
        biography=[str(p) for p in inputs.biography if str(p).strip()],
    )
    variables.update(_card_variables(inputs, templates, variables["macros"],
                                     variables["macro_variables"]))
    return variables


def _slot(inputs: PromptInputs, place: str, template_text: str) -> str:
    """The prompt manager's main / post-history text where it has one, else the template's."""
    own = slot_text(inputs.prompt_blocks, place)
    return template_text if own is None else own


def _card_variables(inputs: PromptInputs, templates: TemplateSet, macros: dict[str, str],
                    macro_variables: MacroVariables) -> dict[str, Any]:
    """Card fields as template variables, macros applied; a card's system prompt and
    post-history instructions replace the template's, and {{original}} in them keeps it."""
    card = inputs.card

    def text(value: str, original: str | None = None) -> str:
        values = macros if original is None else {**macros, "original": original}
        return macros_replace(value, values, variables=macro_variables).strip()

    main = text(_slot(inputs, "main", _main_default(inputs, templates)))
    post = text(_slot(inputs, "post_history", templates.default("post_history")))
    own_main, own_post = card_prompts_used(card, inputs.prompt_blocks)
    return {
        "main_prompt": text(card.system_prompt, main) if own_main else main,
        "post_history": text(card.post_history_instructions, post) if own_post else post,
        "personality": card_field_worded(inputs.utility, templates, macros,
                                         field_name="personality", text=text(card.personality)),
        "scenario": card_field_worded(inputs.utility, templates, macros, field_name="scenario",
                                      text=text(card.scenario)),
        "examples": examples_fill(text=card.examples_text, blocks=card.examples, fill=text),
        "example_chat": _example_chat(inputs, templates, macros),
    }


def _main_default(inputs: PromptInputs, templates: TemplateSet) -> str:
    """The main prompt when no block sets one: an instruct preset's system prompt in text
    completion; else the template's; when it has none, in Chat
    Completion SillyTavern's default main prompt ("Write {{char}}'s next reply ..."), or the
    prompt manager's edit of it, and in text completion laid out by a context template
    SillyTavern's default System Prompt, unless the preset switched it off
    (docs/decisions/default-main-prompt.md)."""
    instruct = getattr(inputs.story, "instruct", None)
    if instruct is not None and instruct.system_prompt.strip():
        return instruct.system_prompt  # text completion with a preset that brings its own
    own = templates.default("main_prompt")
    if own.strip():
        return own
    if inputs.utility is None:
        if inputs.story is None or (instruct is not None and instruct.system_prompt_off):
            return own
        return templates.default("text_system_prompt") or ST_SYSTEM_PROMPT
    return inputs.utility.text("chat_main_prompt", templates)


def _example_chat(inputs: PromptInputs, templates: TemplateSet, macros: dict[str, str]) -> str:
    """The line before each example dialogue: SillyTavern's (or the prompt manager's) for Chat
    Completion (chat/prompt/utility.py), the template's own for text completion."""
    if inputs.utility is None:
        return templates.default("example_chat")
    return macros_replace(inputs.utility.text("new_example_chat_prompt", templates),
                          macros).strip()


def card_field_worded(utility: Any, templates: TemplateSet,
                      macros: dict[str, str], *, field_name: str, text: str) -> str:
    """The card's personality or scenario (`field_name`) in the prompt manager's wording
    (`personality_format`, `scenario_format`: "[{{char}}'s personality: {{personality}}]"),
    as SillyTavern's Chat Completion sends it; an emptied wording sends none. Text completion
    (no `utility`) keeps the text as its story string places it."""
    if utility is None or not text:
        return text
    wording = utility.text(f"{field_name}_format", templates)
    return macros_replace(wording, {**macros, field_name: text}).strip()
