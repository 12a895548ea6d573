"""What a prompt is built from and what it reports (PromptInputs, SectionReport, PromptResult),
and stage 1: the plan (which sections of the template have material this turn, the limits)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chat.prompt.card_fields import CardFields
from chat.prompt.templates import DEFAULT_LOCALE, TemplateSet
from chat.prompt.window import ContextWindow
from library.find_replace.scripts import RegexRun
from personalab.lib.filestore.defaults import DEFAULT_CONFIG
from personalab.lib.filestore.session_read import LinesBefore

DEFAULT_TRIMMING: dict[str, int] = {"max_messages": 10, "max_chars": 4000}
DEFAULT_SECTION_BUDGETS: dict[str, int] = {
    "pinned": 800,
    "recaps": 1200,
    "biography": 1200,
    "recalled": 1600,
}


@dataclass
class PromptInputs:
    character_name: str
    user_name: str
    base_persona: str
    evolved_persona: str
    world_setting: str
    background_name: str
    director: dict[str, Any] | None
    recalled: list[dict[str, Any]]
    pinned: str = ""
    recaps: list[str] = field(default_factory=list)
    biography: list[str] = field(default_factory=list)
    floating_blocks: list[dict[str, Any]] = field(default_factory=list)
    lines: list[dict[str, Any]] = field(default_factory=list)
    # What the session holds before `lines` when only its newest lines were read.
    lines_before: LinesBefore | None = None
    # Tokens of message texts already counted (by the line index), so they are not counted again.
    token_counts: dict[str, int] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=lambda: copy.deepcopy(DEFAULT_CONFIG))
    trimming: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_TRIMMING))
    section_budgets: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_SECTION_BUDGETS))
    locale: str = DEFAULT_LOCALE
    state: dict[str, Any] = field(default_factory=dict)
    template_key: str = "chat"
    # Extra macro values (persona, description, personality, scenario, idle_duration, ...).
    macros: dict[str, str] = field(default_factory=dict)
    # The chat's variables and the account's global ones as this prompt starts
    # (chat/play/variables.py): what {{getvar}} and {{getglobalvar}} read.
    chat_variables: dict[str, str] = field(default_factory=dict)
    global_variables: dict[str, str] = field(default_factory=dict)
    persona_description: str = ""
    card: CardFields = field(default_factory=CardFields)
    window: ContextWindow | None = None  # None: max_total_tokens alone limits the prompt
    # the turns of this session each recap covers, None for one of another session's
    recap_spans: tuple[tuple[int, int] | None, ...] = ()
    # The prompt manager's blocks (personalab/lib/prompt_manager.py): main / post-history slots
    # and the author's own prompts in their places.
    prompt_blocks: list[dict[str, Any]] = field(default_factory=list)
    # The preset's marker order (chat/prompt/markers.py); empty: the template's own order.
    marker_order: tuple[str, ...] = ()
    # Text completion with a context template (chat/prompt/story.py): its story string lays
    # out the opening instead of our headed sections. A StoryChoice, or None.
    story: Any = None
    regex: RegexRun | None = None  # the account's and the card's regex scripts
    # A group's members by name, in order ({{group}}, {{charIfNotGroup}}); empty alone.
    members: tuple[str, ...] = ()
    # Chat Completion: SillyTavern's utility prompts (a ChatUtility, chat/prompt/utility.py:
    # "[Start a new Chat]", "[Example Chat]", the Continue nudge). None for text completion.
    utility: Any = None
    # A group's joined cards (chat/groups/cards.py CardJoin): `card` and the depth prompts
    # already hold them; kept to build the prompt again when a member must give way.
    card_join: Any = None


@dataclass
class SectionReport:
    name: str
    region: str  # "head" | "middle" | "tail" (a system message after the history)
    tokens: int
    chars: int
    cut: bool = False
    omitted: int = 0
    note: str = ""
    text: str = ""


@dataclass
class PromptResult:
    messages: list[dict[str, str]]
    sections: list[SectionReport]
    total_tokens: int
    middle_tokens: int
    warnings: list[dict[str, Any]]
    refused: str | None
    dropped_blocks: list[dict[str, Any]]
    tokenizer: str = ""
    # What the prompt's variable macros left (a MacroVariables): a turn saves it, a preview not.
    macro_variables: Any = None
    # The prompt is not refused but wants lines older than those it was given: build it again
    # from the whole session.
    lines_missing: bool = False
    window: dict[str, Any] = field(default_factory=dict)  # what the prompt inspector shows
    # The opening is a context template's story string: a text backend puts it in as it is.
    story_raw: bool = False
    # Whose cards a group's join mode put in, and who gave way (chat/groups/cards.py).
    card_join: dict[str, Any] = field(default_factory=dict)
    # A refusal's numbers (chat/prompt/window.py refusal_facts): the player reads it in the
    # page's language; `refused` is the prompt's language, for the trace.
    refusal: dict[str, Any] | None = None


@dataclass
class PromptPlan:
    template_key: str
    head: list[str]
    middle: list[str]
    load_all: bool
    max_total_tokens: int
    middle_warning_tokens: int
    conversation_max_tokens: int
    tail: list[str] = field(default_factory=list)


@dataclass
class Block:
    """A floating block (lore entry, author's note) and where it goes in the prompt."""

    index: int
    name: str
    position: str
    depth: int
    role: str
    priority: int
    report: SectionReport


def director_of(inputs: PromptInputs) -> dict[str, Any]:
    return inputs.director or {}


SECTION_MATERIAL: dict[str, Callable[[PromptInputs], bool]] = {
    "base_persona": lambda i: bool(i.base_persona.strip()),
    "evolved_persona": lambda i: bool(i.evolved_persona.strip()),
    "world_setting": lambda i: bool(i.world_setting.strip() or i.background_name.strip()),
    "user_persona": lambda i: bool(i.persona_description.strip()),
    "outline": lambda i: bool(director_of(i).get("outline")),
    "instruction": lambda i: bool(str(director_of(i).get("instruction") or "").strip()),
    "pinned": lambda i: bool(i.pinned.strip()),
    "biography": lambda i: any(str(p).strip() for p in i.biography),
    "director_reminder": lambda i: bool(director_of(i).get("reminder")),
    "recalled": lambda i: bool(i.recalled),
    "recaps": lambda i: any(str(r).strip() for r in i.recaps),
}


def config_value(config: dict[str, Any], group: str, key: str) -> Any:
    value = config.get(group, {}).get(key) if isinstance(config.get(group), dict) else None
    return DEFAULT_CONFIG[group][key] if value is None else value


def prompt_plan(inputs: PromptInputs, templates: TemplateSet) -> PromptPlan:
    head, middle = templates.order(inputs.template_key)

    def present(name: str) -> bool:
        return SECTION_MATERIAL.get(name, lambda _i: True)(inputs)

    config = inputs.config or {}
    return PromptPlan(
        template_key=inputs.template_key,
        head=[name for name in head if present(name)],
        middle=[name for name in middle if present(name)],
        tail=[name for name in templates.tail(inputs.template_key) if present(name)],
        load_all=bool(config_value(config, "preferences", "conversation_load_all")),
        max_total_tokens=int(config_value(config, "limits", "max_total_tokens")),
        middle_warning_tokens=int(config_value(config, "limits", "middle_section_warning_tokens")),
        conversation_max_tokens=int(config_value(config, "limits", "conversation_max_tokens")),
    )
