"""What each field of a character card contributes to the prompt, as SillyTavern places it.

- `system_prompt` replaces the main prompt (the template's `defaults.main_prompt`) unless the
  prompt manager's main block forbids overrides (SillyTavern's switch; post-history alike);
  `{{original}}` inside it stands for that main prompt.
- `post_history_instructions` goes after the history (`{{original}}`: the template's
  `defaults.post_history`).
- `description`, `personality`, `scenario` get their own sections.
- `mes_example` is split on `<START>` into example dialogues (chat/prompt/examples.py).
- `extensions.depth_prompt` (`prompt`, `depth`, `role`) is a block woven at its depth.
- `creator_notes` are for the player only: read here so the trace can say they were not sent.
- `alternate_greetings` are swipes of the first message (chat/services/instances.py
  instance_create).

Card text is data: the pipeline substitutes macros (personalab/lib/macros.py), nothing is
rendered as a template.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from chat.prompt.examples import examples_parse
from library.card_formats.cards import persona_split
from library.card_formats.extensions import depth_prompt_read
from personalab.lib.prompt_manager import slot_forbids_overrides

DEPTH_PROMPT_PRIORITY = 900  # dropped after lore, before the author's note (1000)


@dataclass
class CardFields:
    """The prompt-relevant card fields, macros applied (empty when the character has no card)."""

    system_prompt: str = ""
    post_history_instructions: str = ""
    description: str = ""
    personality: str = ""
    scenario: str = ""
    examples: list[str] = field(default_factory=list)
    # mes_example as written, trimmed: the prompt fills its macros before it splits it
    examples_text: str = ""
    depth_prompt: dict[str, Any] | None = None
    creator_notes: str = ""
    alternate_greetings: int = 0
    from_card: bool = False


def _text(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    return value if isinstance(value, str) else ""


def _depth_prompt(data: dict[str, Any]) -> dict[str, Any] | None:
    note = depth_prompt_read(data.get("extensions"))
    if note is None:
        return None
    return {"name": "depth_prompt", "content": note["prompt"], "position": "depth",
            "depth": note["depth"], "role": note["role"], "priority": DEPTH_PROMPT_PRIORITY}


def card_fields_read(definition: dict[str, Any], *, base_persona: str) -> CardFields:
    """The card fields of `definition`, as written (the pipeline applies macros).
    `base_persona` is the instance's copy of the description / personality / scenario text
    (an instance may have edited it), split back into its three sections."""
    card = definition.get("card") if isinstance(definition.get("card"), dict) else {}
    data = card.get("data") if isinstance(card.get("data"), dict) else {}

    persona = persona_split(base_persona) if data else {"description": base_persona}
    greetings = data.get("alternate_greetings")
    return CardFields(
        system_prompt=_text(data, "system_prompt"),
        post_history_instructions=_text(data, "post_history_instructions"),
        description=persona.get("description", ""),
        personality=persona.get("personality", ""),
        scenario=persona.get("scenario", ""),
        examples=examples_parse(_text(data, "mes_example")),
        examples_text=_text(data, "mes_example").strip(),
        depth_prompt=_depth_prompt(data),
        creator_notes=_text(data, "creator_notes"),
        alternate_greetings=len(greetings) if isinstance(greetings, list) else 0,
        from_card=bool(data),
    )


def scenario_overridden(fields: CardFields, override: Any) -> CardFields:
    """The story's scenario override (SillyTavern's `chat_metadata.scenario`) in place of the
    card's scenario, for every member alike; an empty one leaves the card's."""
    if isinstance(override, str) and override.strip():
        return replace(fields, scenario=override.strip())
    return fields


def card_prompts_used(fields: CardFields, blocks: list[dict[str, Any]]) -> tuple[bool, bool]:
    """Whether the card's system prompt and its post-history instructions replace the prompt
    manager's: when they have text and its block does not forbid overrides, as SillyTavern."""
    return (bool(fields.system_prompt.strip()) and not slot_forbids_overrides(blocks, "main"),
            bool(fields.post_history_instructions.strip())
            and not slot_forbids_overrides(blocks, "post_history"))


def card_fields_placement(fields: CardFields, sections: list[dict[str, Any]],
                          blocks: list[dict[str, Any]] | None = None) -> dict[str, str]:
    """For the trace: where each card field went in this prompt (`sections` as traced)."""
    by_name = {s["name"]: s for s in sections}
    own_main, own_post = card_prompts_used(fields, blocks or [])
    kept_out = "not sent (the preset's prompt forbids overrides)"

    def where(section: str, field_name: str) -> str:
        return f"section {section}" if section in by_name else f"not sent ({field_name} empty" \
            " or not in the template)"

    placement = {
        "description": where("base_persona", "description"),
        "personality": where("personality", "personality"),
        "scenario": where("scenario", "scenario"),
        "system_prompt": "replaces the main prompt (section main_prompt)"
        if own_main and "main_prompt" in by_name
        else kept_out if fields.system_prompt.strip() and not own_main
        else where("main_prompt", "system_prompt"),
        "post_history_instructions": "after the history (section post_history)"
        if "post_history" in by_name and own_post
        else kept_out if fields.post_history_instructions.strip() and not own_post
        else where("post_history", "post_history_instructions"),
        "mes_example": by_name["examples"]["note"] if "examples" in by_name
        else f"not sent ({len(fields.examples)} blocks, none fit or none given)",
        "depth_prompt": by_name["block:depth_prompt"]["note"]
        if "block:depth_prompt" in by_name else "not sent",
        "creator_notes": "shown to the player, never sent",
        "alternate_greetings": f"{fields.alternate_greetings} swipes of the first message",
    }
    return placement if fields.from_card else {}
