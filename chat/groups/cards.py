"""A group's "generation handling mode", as SillyTavern's group settings have it
(group-chats.js getGroupCharacterCards and getGroupDepthPrompts, 1.12):

- `swap` (SillyTavern 0, the default): the speaker's prompt has only the speaker's card.
- `append` (1, "Join character cards (exclude muted)"): the description, personality, scenario
  and example messages of every member go in, joined in list order with a newline, each
  member's part with its `{{char}}` as that member's name; muted members are left out, unless
  the muted one is the speaker.
- `append_muted` (2, "... (include muted)"): muted members' cards too.
Each part is wrapped in the join prefix and suffix (`<FIELDNAME>` in them is the field:
"Description", "Personality", "Scenario", "Example Messages"; `{{char}}` the member's name),
a newline between them when the instruct template wraps (SillyTavern's default). In both join
modes every member's Character's Note (depth prompt) is woven in too, a muted member's only when
it speaks (SillyTavern skips them in either join mode). The story's scenario override
(`scenario_override`, SillyTavern's chat_metadata.scenario) is the joined scenario whole, as
SillyTavern takes it over the members' scenarios: no member's, no prefix or suffix.

Files: instance_state.json `generation_mode`, `generation_mode_join_prefix`,
`generation_mode_join_suffix` (SillyTavern's group field names; a missing one is swap / "").
PersonaLab's own: when the joined prompt cannot fit even with the history at its newest message
and the recalled lines shrunk (they give way first: tests/chat/test_group_cards_give_way.py),
the other members' parts give way, the last in the list first, and the turn says so
(`group_cards_left_out`); the speaker's own card always stays.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from chat.prompt.assemble import prompt_build
from chat.prompt.card_fields import card_fields_read
from chat.prompt.examples import examples_parse
from chat.prompt.inputs import PromptInputs, PromptResult
from chat.prompt.templates import TemplateSet, warning_make
from library.selectors import character_for_chat_optional
from personalab.lib.filestore.store import FileStore
from personalab.lib.macros import PICK_SEED, TIME_ZONE, macros_replace
from personalab.lib.participants import member_state_read
from personalab.lib.store_errors import StoreError

GENERATION_MODES = ("swap", "append", "append_muted")
SILLYTAVERN_MODES = {0: "swap", 1: "append", 2: "append_muted"}
MAX_JOIN_TEXT = 2000  # a join prefix or suffix
JOINED_FIELDS = (("description", "Description"), ("personality", "Personality"),
                 ("scenario", "Scenario"), ("mes_example", "Example Messages"))
_FIELD_NAME = re.compile("<FIELDNAME>", re.IGNORECASE)
DEPTH_PROMPT = "depth_prompt"


@dataclass(frozen=True)
class MemberCard:
    character_id: str
    name: str
    muted: bool
    fields: dict[str, str]  # JOINED_FIELDS' keys, as the member's card has them
    depth_prompt: dict[str, Any] | None  # its Character's Note block, {{char}} not yet filled


@dataclass(frozen=True)
class CardJoin:
    mode: str
    prefix: str
    suffix: str
    speaker_id: str
    cards: tuple[MemberCard, ...]
    separator: str = "\n"
    left_out: tuple[str, ...] = ()  # members given way for the prompt's limit
    scenario_override: str = ""
    # Filled in each member's part besides its {{char}}: the player's {{user}} and the chat's
    # {{pick}} seed, as SillyTavern's customBaseChatReplace fills a member's field whole.
    values: tuple[tuple[str, str], ...] = ()


def generation_mode_read(value: Any) -> str | None:
    """One of GENERATION_MODES from ours or SillyTavern's number; None for anything else."""
    if isinstance(value, str) and value in GENERATION_MODES:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return SILLYTAVERN_MODES.get(value)
    return None


def card_join_settings(state: dict[str, Any]) -> dict[str, str]:
    """The instance's mode, prefix and suffix (a stored value it cannot read is the default)."""
    return {"generation_mode": generation_mode_read(state.get("generation_mode")) or "swap",
            **{key: value if isinstance(value := state.get(key), str) else ""
               for key in ("generation_mode_join_prefix", "generation_mode_join_suffix")}}


def card_join_changes(values: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """(changes, problems by field) for the settings `values` names."""
    changes, problems = {}, {}
    if "generation_mode" in values:
        mode = generation_mode_read(values["generation_mode"])
        if mode is None:
            problems["generation_mode"] = f"must be one of {', '.join(GENERATION_MODES)}"
        else:
            changes["generation_mode"] = mode
    for key in ("generation_mode_join_prefix", "generation_mode_join_suffix"):
        if key in values:
            text = values[key]
            if not isinstance(text, str) or len(text) > MAX_JOIN_TEXT:
                problems[key] = f"must be text of at most {MAX_JOIN_TEXT} characters"
            else:
                changes[key] = text
    return changes, problems


def member_cards_read(store: FileStore, *, state: dict[str, Any], instance_id: str,
                      speaker_id: str, speaker_base_persona: str) -> tuple[MemberCard, ...]:
    """Each member's card as its prompt would have it (its own copy of the description,
    personality and scenario); a member whose character cannot be read is left out, as
    SillyTavern skips a missing one."""
    cards = []
    for entry in state.get("participants") or []:
        character_id = entry.get("character_id") if isinstance(entry, dict) else None
        definition = character_for_chat_optional(store, state=state, character_id=character_id)
        if not character_id or not definition:
            continue
        try:
            own = speaker_base_persona if character_id == speaker_id else member_state_read(
                store, instance_id, state, character_id).get("base_persona", "")
        except (StoreError, ValueError):
            own = definition.get("base_persona", "")
        fields = card_fields_read(definition, base_persona=str(own or ""))
        data = (definition.get("card") or {}).get("data") or {}
        example = data.get("mes_example")
        cards.append(MemberCard(
            character_id=character_id, name=definition.get("name") or character_id,
            muted=bool(entry.get("muted")), depth_prompt=fields.depth_prompt,
            fields={"description": fields.description, "personality": fields.personality,
                    "scenario": fields.scenario,
                    "mes_example": example if isinstance(example, str) else ""}))
    return tuple(cards)


def card_join_for_turn(store: FileStore, *, state: dict[str, Any], instance_id: str,
                       speaker_id: str | None, speaker_base_persona: str,
                       story: Any = None, user_name: str = "",
                       pick_seed: str = "", time_zone: str = "") -> CardJoin | None:
    """The join of a group turn's prompt; None when the speaker's card goes alone (swap, or
    not a group member's turn). `story`: the text-completion layout, whose instruct template
    decides the newline around a prefix / suffix (SillyTavern's `wrap`, on by default).
    `user_name`, `pick_seed`: the player's name and the chat's {{pick}} seed (PICK_SEED), so
    a member's {{pick}} chooses per chat, by its own field, as there; `time_zone`: the
    player's, which a member's {{time}} reads."""
    settings = card_join_settings(state)
    if settings["generation_mode"] == "swap" or speaker_id is None:
        return None
    return CardJoin(mode=settings["generation_mode"],
                    prefix=settings["generation_mode_join_prefix"],
                    suffix=settings["generation_mode_join_suffix"], speaker_id=speaker_id,
                    cards=member_cards_read(store, state=state, instance_id=instance_id,
                                            speaker_id=speaker_id,
                                            speaker_base_persona=speaker_base_persona),
                    separator="\n" if story is None or story.wrap else "",
                    scenario_override=override.strip()
                    if isinstance(override := state.get("scenario_override"), str) else "",
                    values=(*((("user", user_name),) if user_name else ()),
                            *(((PICK_SEED, pick_seed),) if pick_seed else ()),
                            *(((TIME_ZONE, time_zone),) if time_zone else ())))


def members_joined(join: CardJoin) -> list[MemberCard]:
    return [card for card in join.cards if card.character_id not in join.left_out
            and (not card.muted or card.character_id == join.speaker_id
                 or join.mode == "append_muted")]


def _filled(text: str, *, field_name: str, name: str, values: dict[str, str]) -> str:
    if not text:
        return ""
    return macros_replace(_FIELD_NAME.sub(field_name, text).strip(), {**values, "char": name})


def _part(text: str, *, field_name: str, name: str, join: CardJoin) -> str:
    text = text.strip()
    if not text:
        return ""
    values = dict(join.values)
    prefix = _filled(join.prefix, field_name=field_name, name=name, values=values)
    suffix = _filled(join.suffix, field_name=field_name, name=name, values=values)
    value = _filled(text, field_name=field_name, name=name, values=values)
    return (f"{prefix + join.separator if prefix else ''}{value}"
            f"{join.separator + suffix if suffix else ''}")


def cards_joined(join: CardJoin) -> dict[str, str]:
    """Each of JOINED_FIELDS: the members' parts, one newline apart (empty ones left out);
    the scenario the story's override when it has one."""
    members = members_joined(join)
    joined = {key: "\n".join(part for card in members if (part := _part(
        card.fields.get(key, ""), field_name=field_name, name=card.name, join=join)))
        for key, field_name in JOINED_FIELDS}
    return {**joined, "scenario": join.scenario_override or joined["scenario"]}


def depth_prompts_joined(join: CardJoin) -> list[dict[str, Any]]:
    """Every member's Character's Note, its `{{char}}` that member's; a muted member's only
    when it speaks (SillyTavern's getGroupDepthPrompts, either join mode)."""
    blocks = []
    zone = {key: value for key, value in join.values if key == TIME_ZONE}
    for card in join.cards:
        if card.depth_prompt is None or card.character_id in join.left_out or (
                card.muted and card.character_id != join.speaker_id):
            continue
        own = card.character_id == join.speaker_id
        blocks.append({**card.depth_prompt,
                       "name": DEPTH_PROMPT if own else f"{DEPTH_PROMPT}:{card.name}",
                       "content": macros_replace(str(card.depth_prompt["content"]).strip(),
                                                 {**zone, "char": card.name})})
    return blocks


def inputs_joined(inputs: PromptInputs, join: CardJoin | None) -> PromptInputs:
    """`inputs` with the joined cards in place of the speaker's (applied again, after a member
    gave way, it starts from the members' cards, not from the last join)."""
    if join is None:
        return inputs
    joined = cards_joined(join)
    blocks = [block for block in inputs.floating_blocks
              if block.get("name") != DEPTH_PROMPT
              and not str(block.get("name") or "").startswith(f"{DEPTH_PROMPT}:")]
    card = dataclasses.replace(inputs.card, description=joined["description"],
                               personality=joined["personality"], scenario=joined["scenario"],
                               examples=examples_parse(joined["mes_example"]),
                               examples_text=joined["mes_example"].strip())
    macros = {**inputs.macros, "description": joined["description"],
              "personality": joined["personality"], "scenario": joined["scenario"],
              "mesExamples": joined["mes_example"]}
    return dataclasses.replace(inputs, card=card, base_persona=joined["description"],
                               floating_blocks=[*blocks, *depth_prompts_joined(join)],
                               macros=macros, card_join=join)


def _next_to_give_way(join: CardJoin) -> str | None:
    others = [card.character_id for card in members_joined(join)
              if card.character_id != join.speaker_id]
    return others[-1] if others else None


def prompt_fitted(inputs: PromptInputs, templates: TemplateSet, *,
                  built: PromptResult | None = None) -> tuple[PromptInputs, PromptResult]:
    """The prompt (`built`: already built from `inputs`); with joined cards that cannot fit,
    built again without the other members' parts, the last in the list first, until it fits
    or only the speaker's card is left."""
    prompt = built if built is not None else prompt_build(inputs, templates)
    join = inputs.card_join
    if join is None:
        return inputs, prompt
    while prompt.refused and (leaving := _next_to_give_way(join)) is not None:
        join = dataclasses.replace(join, left_out=(*join.left_out, leaving))
        inputs = inputs_joined(inputs, join)
        prompt = prompt_build(inputs, templates)
    names = {card.character_id: card.name for card in join.cards}
    prompt.card_join = {"generation_mode": join.mode,
                        "members": [card.name for card in members_joined(join)],
                        "left_out": [names[i] for i in join.left_out]}
    if join.left_out:
        prompt.warnings.append(warning_make(
            templates, "group_cards_left_out", len(join.left_out), None,
            detail=", ".join(names[i] for i in join.left_out)))
    return inputs, prompt
