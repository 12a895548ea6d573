"""The prompt pipeline: plan -> build sections -> render -> assemble -> count -> check limits.

Pure functions, no Django, no file writes (seeds/prompt-pipeline.md: late binding, zero side
effects). The only reads are the template files, through `TemplateStore`.

System message layout (seeds/personalab-flow.md step 4): HEAD (base persona, evolved persona,
world setting, outline, progress instruction, pinned prompts, biography) then the system part of
the MIDDLE (director reminder, recalled events, recaps) and the conversation label; then the
conversation itself as real chat messages, summary lines as system notes, with floating blocks of
position "depth" woven in (depth 0 = after the last message, 1 = before the last message, ...).
Blocks at "before_char" go before the base persona, at "after_char" after the last of the
character/world sections.

Token figures: each section is counted on its own text; conversation messages and depth blocks
include the per-message overhead of the chat format (MESSAGE_OVERHEAD_TOKENS); `total_tokens` is
counted on the final messages (contents + overhead per message + REPLY_PRIMING_TOKENS).
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chat.prompt.card_fields import CardFields
from chat.prompt.examples import examples_keep
from chat.prompt.section_size import section_too_long
from chat.prompt.tally import (MESSAGE_OVERHEAD_TOKENS, _line_usable, _message_cost,  # noqa: F401
                               _Tally, _tallies, older_lines_tally)
from chat.prompt.window import (ContextWindow, budgets_windowed, conversation_room,
                                coverage_note, fixed_refusal, prompt_limit, window_report)
from personalab.lib.filestore import DEFAULT_CONFIG, LinesBefore
from personalab.lib.jsontext import json_loads
from personalab.lib.macros import macros_replace, message_macros_replace
from personalab.lib.template_sandbox import (MAX_RENDER_CHARS, TemplateError, TemplateTooLong,
                                              render_template)
from personalab.lib.tokens import count_tokens, count_tokens_uncached, tokenizer_name

MASTER_TEMPLATES_DIR = Path(__file__).resolve().parent / "prompt_templates"
DEFAULT_LOCALE = "zh"
LOCALE_PATTERN = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?$")

REPLY_PRIMING_TOKENS = 3
NEAR_LIMIT_RATIO = 0.9
CUT_MARK = "…"
SECTION_JOIN_TOKENS = 1  # the blank line between two sections of the system message

DEFAULT_TRIMMING: dict[str, int] = {"max_messages": 10, "max_chars": 4000}
DEFAULT_SECTION_BUDGETS: dict[str, int] = {
    "pinned": 800,
    "recaps": 1200,
    "biography": 1200,
    "recalled": 1600,
}
# Sections cut item by item when over budget: (variable, which end survives). Recaps and the
# biography are chronological, so the newest survive; recalled events arrive best match first.
LIST_SECTIONS: dict[str, tuple[str, str]] = {
    "biography": ("biography", "last"),
    "recaps": ("recaps", "last"),
    "recalled": ("recalled", "first"),
}
CHARACTER_SECTIONS = ("base_persona", "personality", "scenario", "evolved_persona",
                      "world_setting")
BLOCK_POSITIONS = ("before_char", "after_char", "em_top", "em_bottom", "depth")
EXAMPLE_SECTIONS = ("examples", "mes_example", "example_messages")
CHAT_ROLES = ("system", "user", "assistant")


# --- inputs and results --------------------------------------------------------------------


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
    persona_description: str = ""
    card: CardFields = field(default_factory=CardFields)
    window: ContextWindow | None = None  # None: max_total_tokens alone limits the prompt
    recap_span: tuple[int, int] | None = None  # the turns of this session the recaps cover


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
    # The prompt is not refused but wants lines older than those it was given: build it again
    # from the whole session.
    lines_missing: bool = False
    window: dict[str, Any] = field(default_factory=dict)  # what the prompt inspector shows


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
class _Block:
    index: int
    name: str
    position: str
    depth: int
    role: str
    priority: int
    report: SectionReport


# --- templates -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TemplateSet:
    """Master templates merged with the data copy and the user's overrides (user wins)."""

    locale: str
    data: dict[str, Any]
    master: dict[str, Any]
    problems: tuple[str, ...] = ()

    def label(self, name: str) -> str:
        return str(self.data.get("labels", {}).get(name, ""))

    def section_source(self, name: str) -> str:
        return str(self.data.get("sections", {}).get(name, ""))

    def master_source(self, name: str) -> str:
        return str(self.master.get("sections", {}).get(name, ""))

    def status_label(self, status: str) -> str:
        return str(self.data.get("status_labels", {}).get(status, status))

    def order(self, template_key: str) -> tuple[list[str], list[str]]:
        templates = self.data.get("templates", {})
        chosen = templates.get(template_key) or templates.get("chat") or {}
        return list(chosen.get("head", [])), list(chosen.get("middle", []))

    def tail(self, template_key: str) -> list[str]:
        templates = self.data.get("templates", {})
        chosen = templates.get(template_key) or templates.get("chat") or {}
        return list(chosen.get("tail", []))

    def default(self, name: str) -> str:
        return str(self.data.get("defaults", {}).get(name, ""))

    def text(self, key: str) -> str:
        return str(self.data.get("messages", {}).get(key, ""))

    def warning_text(self, category: str) -> dict[str, str]:
        found = self.data.get("messages", {}).get("warnings", {}).get(category, {})
        return found if isinstance(found, dict) else {}


def template_locale_validate(locale: str) -> str:
    if not isinstance(locale, str) or not LOCALE_PATTERN.fullmatch(locale):
        raise TemplateError(f"invalid locale {locale!r}: use a code like 'zh', 'en' or 'zh-Hans'")
    return locale


def templates_merge(
    base: dict[str, Any], override: dict[str, Any], problems: list[str], where: str
) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        current = base.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            merged[key] = templates_merge(current, value, problems, f"{where}.{key}")
        elif isinstance(current, dict):
            problems.append(f"{where}.{key} must be an object; the override is ignored")
        else:
            merged[key] = value
    return merged


def _json_object_read(path: Path) -> dict[str, Any]:
    data = json_loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise TypeError("the file must hold a JSON object")
    return data


def templates_load(locale: str, master_path: Path, override_paths: list[Path]) -> TemplateSet:
    master = _json_object_read(master_path)
    merged, problems = master, []
    for path in override_paths:
        if not path.is_file():
            continue
        try:
            override = _json_object_read(path)
        except (OSError, ValueError, TypeError) as error:
            problems.append(f"{path.name} ignored: {error}")
            continue
        merged = templates_merge(merged, override, problems, path.name)
    return TemplateSet(locale=locale, data=merged, master=master, problems=tuple(problems))


def _file_signature(path: Path) -> tuple[str, int | None, int | None]:
    try:
        stat = path.stat()
    except OSError:
        return (str(path), None, None)
    return (str(path), stat.st_mtime_ns, stat.st_size)


class TemplateStore:
    """Loads chat/prompt_templates/{locale}.json, then data/prompt_templates/{locale}.json, then
    {locale}.user.json; a later file wins key by key. Reloads when any of them changes."""

    def __init__(self, data_templates_dir: Path, master_dir: Path = MASTER_TEMPLATES_DIR):
        self.data_templates_dir = Path(data_templates_dir)
        self.master_dir = Path(master_dir)
        self._cache: dict[str, tuple[tuple[Any, ...], TemplateSet]] = {}
        self._lock = threading.Lock()

    def paths(self, locale: str) -> tuple[Path, list[Path]]:
        locale = template_locale_validate(locale)
        master = self.master_dir / f"{locale}.json"
        if not master.is_file():
            master = self.master_dir / f"{DEFAULT_LOCALE}.json"
        overrides = [
            self.data_templates_dir / f"{locale}.json",
            self.data_templates_dir / f"{locale}.user.json",
        ]
        return master, overrides

    def get(self, locale: str) -> TemplateSet:
        master, overrides = self.paths(locale)
        signature = tuple(_file_signature(path) for path in [master, *overrides])
        with self._lock:
            cached = self._cache.get(locale)
            if cached is not None and cached[0] == signature:
                return cached[1]
            loaded = templates_load(locale, master, overrides)
            self._cache[locale] = (signature, loaded)
            return loaded

    def reload(self) -> None:
        with self._lock:
            self._cache.clear()


# --- stage 1: plan -------------------------------------------------------------------------


def _director(inputs: PromptInputs) -> dict[str, Any]:
    return inputs.director or {}


SECTION_MATERIAL: dict[str, Callable[[PromptInputs], bool]] = {
    "base_persona": lambda i: bool(i.base_persona.strip()),
    "evolved_persona": lambda i: bool(i.evolved_persona.strip()),
    "world_setting": lambda i: bool(i.world_setting.strip() or i.background_name.strip()),
    "user_persona": lambda i: bool(i.persona_description.strip()),
    "outline": lambda i: bool(_director(i).get("outline")),
    "instruction": lambda i: bool(str(_director(i).get("instruction") or "").strip()),
    "pinned": lambda i: bool(i.pinned.strip()),
    "biography": lambda i: any(str(p).strip() for p in i.biography),
    "director_reminder": lambda i: bool(_director(i).get("reminder")),
    "recalled": lambda i: bool(i.recalled),
    "recaps": lambda i: any(str(r).strip() for r in i.recaps),
}


def _config_value(config: dict[str, Any], group: str, key: str) -> Any:
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
        load_all=bool(_config_value(config, "preferences", "conversation_load_all")),
        max_total_tokens=int(_config_value(config, "limits", "max_total_tokens")),
        middle_warning_tokens=int(_config_value(config, "limits", "middle_section_warning_tokens")),
        conversation_max_tokens=int(_config_value(config, "limits", "conversation_max_tokens")),
    )


# --- stage 2: variables (late binding) -----------------------------------------------------


def _warning(
    templates: TemplateSet, category: str, current: Any, threshold: Any, **extra: Any
) -> dict[str, Any]:
    words = templates.warning_text(category)
    return {
        "type": "warning",
        "category": category,
        "message": words.get("message", category),
        "current_value": current,
        "threshold": threshold,
        "suggestion": words.get("suggestion", ""),
        **extra,
    }


def _template_problem(templates: TemplateSet, warnings: list[dict[str, Any]], detail: str) -> None:
    warnings.append(_warning(templates, "template_error", None, None, detail=detail))


def macro_values(inputs: PromptInputs) -> dict[str, str]:
    """What {{user}}, {{char}}, {{lastMessage}}... stand for in author text this turn."""
    last = next((line.get("content") for line in reversed(inputs.lines)
                 if line.get("role") in ("user", "assistant")
                 and isinstance(line.get("content"), str)), "")
    return {"lastMessage": last or "", **inputs.macros,
            "user": inputs.user_name or "User", "char": inputs.character_name}


def _author_text(text: str, variables: dict[str, Any]) -> str:
    # Author text is data (SPEC §10): macros are substituted, nothing in it is ever a template.
    return macros_replace(text, variables["macros"])


def _event_text(event: Any) -> str:
    if isinstance(event, dict):
        return str(event.get("text") or event.get("document") or event.get("content") or "")
    return str(event)


def _outline_items(inputs: PromptInputs, templates: TemplateSet) -> list[dict[str, Any]]:
    items = []
    for point in _director(inputs).get("outline") or []:
        status = str(point.get("status", "pending"))
        items.append({**point, "status": status, "status_label": templates.status_label(status)})
    return items


def _reminder(inputs: PromptInputs) -> dict[str, Any] | None:
    reminder = _director(inputs).get("reminder")
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
                          "neighbour": None})
            continue
        neighbour = entry.get("neighbour")
        items.append({"text": _event_text(entry), "source": str(entry.get("source", "")),
                      "speaker": _recalled_speaker(entry, inputs),
                      "date": str(entry.get("date") or ""),
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
    variables = {**inputs.state, **core, "macros": macro_values(inputs)}
    for name in ("base_persona", "world_setting", "pinned"):
        variables[name] = _author_text(getattr(inputs, name), variables)
    director = _director(inputs)
    variables.update(
        evolved_persona=inputs.evolved_persona,
        persona=_author_text(inputs.persona_description, variables),
        director_enabled=inputs.director is not None,
        outline=_outline_items(inputs, templates),
        instruction=str(director.get("instruction") or ""),
        finished=bool(director.get("finished")),
        reminder=_reminder(inputs),
        recalled=_recalled_items(inputs),
        recaps=[str(r) for r in inputs.recaps if str(r).strip()],
        biography=[str(p) for p in inputs.biography if str(p).strip()],
    )
    variables.update(_card_variables(inputs, templates, variables["macros"]))
    return variables


def _card_variables(inputs: PromptInputs, templates: TemplateSet,
                    macros: dict[str, str]) -> dict[str, Any]:
    """Card fields as template variables, macros applied; a card's system prompt and
    post-history instructions replace the template's, and {{original}} in them keeps it."""
    card = inputs.card

    def text(value: str, original: str | None = None) -> str:
        values = macros if original is None else {**macros, "original": original}
        return macros_replace(value, values).strip()

    main, post = text(templates.default("main_prompt")), text(templates.default("post_history"))
    return {
        "main_prompt": text(card.system_prompt, main) if card.system_prompt.strip() else main,
        "post_history": text(card.post_history_instructions, post)
        if card.post_history_instructions.strip() else post,
        "personality": text(card.personality),
        "scenario": text(card.scenario),
        "examples": [text(block) for block in card.examples],
    }


# --- stage 3: sections (render + per-section budgets) --------------------------------------


def _section_source_render(
    name: str, templates: TemplateSet, variables: dict[str, Any], warnings: list[dict[str, Any]]
) -> str:
    source = templates.section_source(name)
    fallback = templates.master_source(name)
    too_long = None
    for text, where in ((source, name), (fallback if fallback != source else "",
                                         f"{name} (master)")):
        if not text:
            continue
        try:
            return render_template(text, variables)
        except TemplateTooLong:  # the text it was given, not the template: said once, by name
            too_long = too_long or text
        except TemplateError as error:
            _template_problem(templates, warnings, f"section {where}: {error}")
    if too_long:
        detail, field, size = section_too_long(name, too_long, variables)
        warnings.append(_warning(templates, "section_too_long", size, MAX_RENDER_CHARS,
                                 detail=detail, section=name, field=field))
    return ""


def section_text(
    name: str, templates: TemplateSet, variables: dict[str, Any], warnings: list[dict[str, Any]]
) -> str:
    body = _section_source_render(name, templates, variables, warnings).strip()
    if not body:
        return ""
    label = templates.label(name)
    return f"{label}\n{body}" if label else body


def _report(name: str, region: str, text: str, **extra: Any) -> SectionReport:
    return SectionReport(
        name=name, region=region, tokens=count_tokens(text), chars=len(text), text=text, **extra
    )


def text_cut_to_tokens(text: str, budget: int) -> str:
    """The longest start of `text` (plus a cut mark) within `budget` tokens."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if count_tokens_uncached(text[:middle] + CUT_MARK) <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low] + CUT_MARK if low else ""


def _items_kept(items: list[Any], count: int, end: str) -> list[Any]:
    if count <= 0:
        return []
    return items[-count:] if end == "last" else items[:count]


def _section_cut_items(
    name: str,
    region: str,
    budget: int,
    templates: TemplateSet,
    variables: dict[str, Any],
    warnings: list[dict[str, Any]],
) -> SectionReport:
    variable, end = LIST_SECTIONS[name]
    items = variables[variable]

    def render_with(count: int) -> str:
        return section_text(
            name, templates, {**variables, variable: _items_kept(items, count, end)}, warnings
        )

    low, high = 0, len(items) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if count_tokens_uncached(render_with(middle)) <= budget:
            low = middle
        else:
            high = middle - 1
    text = render_with(low) if low else text_cut_to_tokens(render_with(1), budget)
    kept = max(low, 1) if text else 0
    which = "newest" if end == "last" else "first"
    note = f"over its budget of {budget} tokens: kept the {which} {kept} of {len(items)} items"
    return _report(name, region, text, cut=True, omitted=len(items) - kept, note=note)


def section_build(
    name: str,
    region: str,
    templates: TemplateSet,
    variables: dict[str, Any],
    budgets: dict[str, int],
    warnings: list[dict[str, Any]],
) -> SectionReport | None:
    text = section_text(name, templates, variables, warnings)
    if not text:
        return None
    report = _report(name, region, text)
    budget = budgets.get(name)
    if budget is None or report.tokens <= budget:
        return report
    if name in LIST_SECTIONS and len(variables[LIST_SECTIONS[name][0]]) > 1:
        return _section_cut_items(name, region, budget, templates, variables, warnings)
    cut = text_cut_to_tokens(text, budget)
    return _report(
        name, region, cut, cut=True, note=f"over its budget of {budget} tokens: text cut at the end"
    )


def _source_note(report: SectionReport, variables: dict[str, Any]) -> None:
    sources = [item["source"] for item in variables["recalled"] if item["source"]]
    if sources:
        report.note = "; ".join(filter(None, [report.note, "sources: " + ", ".join(sources)]))


def sections_build(
    plan: PromptPlan,
    templates: TemplateSet,
    variables: dict[str, Any],
    budgets: dict[str, int],
    warnings: list[dict[str, Any]],
) -> list[SectionReport]:
    reports = []
    for region, names in (("head", plan.head), ("middle", plan.middle), ("tail", plan.tail)):
        for name in names:
            if name == "examples":
                continue  # placed by examples_place once the rest of the prompt is known
            report = section_build(name, region, templates, variables, budgets, warnings)
            if report is None:
                continue
            if name == "recalled":
                _source_note(report, variables)
            reports.append(report)
    return reports


# --- stage 3b: floating blocks -------------------------------------------------------------


def blocks_build(
    inputs: PromptInputs,
    templates: TemplateSet,
    variables: dict[str, Any],
    warnings: list[dict[str, Any]],
) -> list[_Block]:
    blocks = []
    for index, raw in enumerate(inputs.floating_blocks):
        name = str(raw.get("name") or f"block_{index + 1}")
        content = _author_text(str(raw.get("content") or ""), variables)
        if not content.strip():
            continue
        position = raw.get("position") if raw.get("position") in BLOCK_POSITIONS else "depth"
        role = raw.get("role") if raw.get("role") in CHAT_ROLES else "system"
        region = "middle" if position == "depth" else "head"
        depth = max(0, int(raw.get("depth") or 0))
        tokens = count_tokens(content) + (MESSAGE_OVERHEAD_TOKENS if position == "depth" else 0)
        note = f"depth {depth}, role {role}" if position == "depth" else position
        report = SectionReport(
            f"block:{name}", region, tokens, len(content), note=note, text=content
        )
        priority = int(raw.get("priority") or 0)
        blocks.append(_Block(index, name, position, depth, role, priority, report))
    return blocks


# --- stage 4: conversation -----------------------------------------------------------------


@dataclass
class Conversation:
    messages: list[dict[str, str]]
    costs: list[int]
    report: SectionReport
    session_tokens: int
    # What the lines left unread would add to the prompt: the window reached the oldest line
    # read without closing (a whole-session prompt over its limit, or too few lines read).
    unread_tokens: int = 0
    unread: bool = False
    first_kept_turn: Any = None


def _line_message(
    line: dict[str, Any], summary_source: str, variables: dict[str, Any]
) -> dict[str, str]:
    if line.get("type") == "summary":
        try:
            content = render_template(
                summary_source, {**variables, "content": line["content"]}
            ).strip()
        except TemplateError:
            content = line["content"]
        return {"role": "system", "content": content}
    seed = f"{line.get('turn')}:{line.get('timestamp')}"
    content = message_macros_replace(line["content"], variables["macros"], seed=seed)
    # A sendable narrator note goes as SillyTavern sends it: a system message, no name.
    return {"role": line.get("role") or "system", "content": content}


@dataclass
class _Window:
    """The newest messages the prompt keeps, gathered newest first. It closes at the first
    message that would break a limit: the trimming (conversation_load_all off) or the token
    budget of the conversation section. The newest message is always kept."""

    max_messages: int | None
    max_chars: int | None
    token_room: int | None
    messages: list[dict[str, str]] = field(default_factory=list)
    costs: list[int] = field(default_factory=list)
    chars: int = 0
    tokens: int = 0
    closed_by: str = ""

    def offer(self, message: dict[str, str], cost: int) -> bool:
        """Keep `message` if it fits; False once the window is closed."""
        size = len(message["content"])
        if self.messages:
            if self.max_messages is not None and (
                len(self.messages) + 1 > self.max_messages or self.chars + size > self.max_chars
            ):
                self.closed_by = "trimming"
                return False
            if self.token_room is not None and self.tokens + cost > self.token_room:
                self.closed_by = "budget"
                return False
        self.messages.append(message)
        self.costs.append(cost)
        self.chars += size
        self.tokens += cost
        return True


def conversation_window(
    lines: list[dict[str, Any]], window: _Window, summary_source: str, variables: dict[str, Any],
    counted: dict[str, int] | None = None,
) -> int:
    """Fill `window` from the newest line back; returns how many lines lie before it (the
    line that closed it included), which the prompt leaves out. `counted`: tokens of texts
    counted already."""
    counted = counted or {}
    for position in range(len(lines) - 1, -1, -1):
        line = lines[position]
        if not _line_usable(line):
            continue
        message = _line_message(line, summary_source, variables)
        tokens = counted.get(message["content"])
        cost = (MESSAGE_OVERHEAD_TOKENS + tokens if tokens is not None
                else _message_cost(message["content"]))
        if not window.offer(message, cost):
            return position + 1
    return 0


def conversation_build(
    inputs: PromptInputs,
    plan: PromptPlan,
    templates: TemplateSet,
    variables: dict[str, Any],
    budgets: dict[str, int],
) -> Conversation:
    """The session as chat messages. Only the messages the prompt keeps are walked (from the
    newest back); the lines before them are tallied once and the tally extended turn by turn,
    so a turn does not cost more as the part of the history left out grows."""
    summary_source = str(
        templates.data.get("conversation", {}).get("summary_note", "{{ content }}")
    )
    label = templates.label("conversation")
    label_tokens = count_tokens(label)
    trimming = {**DEFAULT_TRIMMING, **(inputs.trimming or {})}
    budget = budgets.get("conversation")
    window = _Window(
        max_messages=None if plan.load_all else int(trimming["max_messages"]),
        max_chars=None if plan.load_all else int(trimming["max_chars"]),
        token_room=None if budget is None else budget - label_tokens,
    )
    older = conversation_window(inputs.lines, window, summary_source, variables,
                                inputs.token_counts)
    tally = older_lines_tally(inputs.lines[:older]) if older else _Tally([], "")
    before = inputs.lines_before or LinesBefore(0, 0, 0, [])
    summary_tokens = sum(
        _message_cost(_line_message(line, summary_source, variables)["content"])
        for line in [*before.summaries, *tally.summaries]
    )
    unread = bool(before.usable) and not window.closed_by
    message_tokens = (tally.message_tokens + before.message_tokens
                      + before.messages * MESSAGE_OVERHEAD_TOKENS
                      + (_macro_difference(before, summary_source, variables) if unread else 0))
    kept, costs = window.messages[::-1], window.costs[::-1]
    notes = _window_notes(window, plan, trimming, budget)
    if unread:
        notes.append(f"{before.usable} older lines not read: the prompt is over its limit")
    report = _conversation_report(kept, costs, tally.usable + before.usable, label, label_tokens,
                                  notes)
    if unread:
        report.tokens += message_tokens + summary_tokens
    return Conversation(kept, costs, report, window.tokens + message_tokens + summary_tokens,
                        unread_tokens=message_tokens + summary_tokens if unread else 0,
                        unread=unread, first_kept_turn=next((line.get("turn") for line in
                        inputs.lines[older:] if _line_usable(line)), None))


def _macro_difference(before: LinesBefore, summary_source: str, variables: dict[str, Any]) -> int:
    """What the macros in the unread messages add to their tallied cost once filled in."""
    return sum(count_tokens(_line_message(line, summary_source, variables)["content"])
               - count_tokens(line["content"]) for line in before.macro_messages)


def conversation_lines_wanted(config: dict[str, Any], trimming: dict[str, Any]) -> int | None:
    """How many of the newest sendable lines the conversation can use (the one that closes the
    window included): None when the whole session may be sent."""
    if _config_value(config, "preferences", "conversation_load_all"):
        return None
    return max(int({**DEFAULT_TRIMMING, **trimming}["max_messages"]), 1) + 1


def conversation_tokens_room(config: dict[str, Any], section_budgets: Any) -> int:
    """The most tokens the conversation of a prompt can hold: its section budget, and never more
    than the prompt's limit (a prompt whose messages weigh more than that is refused)."""
    room = int(_config_value(config, "limits", "max_total_tokens"))
    budget = section_budgets.get("conversation") if isinstance(section_budgets, dict) else None
    if isinstance(budget, int) and not isinstance(budget, bool):
        room = min(room, budget)
    return max(room, 0)


def _window_notes(
    window: _Window, plan: PromptPlan, trimming: dict[str, int], budget: int | None
) -> list[str]:
    notes = []
    if window.messages and not plan.load_all:
        notes.append(
            f"conversation_load_all off: last {trimming['max_messages']} messages"
            f" within {trimming['max_chars']} characters"
        )
    if window.closed_by == "budget":
        notes.append(f"over its budget of {budget} tokens: oldest messages left out")
    return notes


def _conversation_report(
    kept: list[dict[str, str]],
    costs: list[int],
    omitted: int,
    label: str,
    label_tokens: int,
    notes: list[str],
) -> SectionReport:
    return SectionReport(
        "conversation",
        "middle",
        (label_tokens + sum(costs)) if kept else 0,
        sum(len(m["content"]) for m in kept),
        cut=omitted > 0,
        omitted=omitted,
        note="; ".join([f"{len(kept)} messages, {omitted} omitted", *notes]),
        text=label,
    )


# --- stage 5: assemble ---------------------------------------------------------------------


def _head_with_blocks(head: list[SectionReport], blocks: list[_Block]) -> list[SectionReport]:
    before = [b.report for b in blocks if b.position == "before_char"]
    after = [b.report for b in blocks if b.position == "after_char"]
    names = [r.name for r in head]
    character = [i for i, name in enumerate(names) if name in CHARACTER_SECTIONS]
    first = character[0] if character else 0
    last = character[-1] + 1 if character else 0
    placed = [*head[:first], *before, *head[first:last], *after, *head[last:]]
    return _examples_with_blocks(placed, blocks)


def _examples_with_blocks(head: list[SectionReport], blocks: list[_Block]) -> list[SectionReport]:
    """Lore at the top / bottom of the example messages; without examples, after the
    character (where SillyTavern's examples would be)."""
    top = [b.report for b in blocks if b.position == "em_top"]
    bottom = [b.report for b in blocks if b.position == "em_bottom"]
    if not top and not bottom:
        return head
    names = [r.name for r in head]
    at = next((i for i, name in enumerate(names) if name in EXAMPLE_SECTIONS), None)
    if at is None:
        after = [i for i, r in enumerate(head) if r.name in CHARACTER_SECTIONS
                 or r.name.startswith("block:")]
        at = after[-1] + 1 if after else len(head)
        return [*head[:at], *top, *bottom, *head[at:]]
    return [*head[:at], *top, head[at], *bottom, *head[at + 1:]]


def system_text_build(
    sections: list[SectionReport], blocks: list[_Block], conversation_label: str
) -> str:
    head = [r for r in sections if r.region == "head"]
    middle = [r for r in sections if r.region == "middle"]
    parts = [r.text for r in _head_with_blocks(head, blocks)] + [r.text for r in middle]
    if conversation_label:
        parts.append(conversation_label)
    return "\n\n".join(part for part in parts if part)


def history_weave(messages: list[dict[str, str]], blocks: list[_Block]) -> list[dict[str, str]]:
    """Depth blocks into the history: depth 0 after the last message, depth n before the last n."""
    at: dict[int, list[dict[str, str]]] = {}
    for block in blocks:
        if block.position == "depth":
            index = max(0, len(messages) - block.depth)
            at.setdefault(index, []).append({"role": block.role, "content": block.report.text})
    if not at:
        return list(messages)
    woven: list[dict[str, str]] = []
    for index, message in enumerate(messages):
        woven.extend(at.get(index, []))
        woven.append(message)
    woven.extend(at.get(len(messages), []))
    return woven


def _total_tokens(system_text: str, conversation: Conversation, blocks: list[_Block]) -> int:
    system = count_tokens(system_text) + MESSAGE_OVERHEAD_TOKENS if system_text else 0
    depth = sum(b.report.tokens for b in blocks if b.position == "depth")
    return (system + sum(conversation.costs) + conversation.unread_tokens + depth
            + REPLY_PRIMING_TOKENS)


def blocks_fit(
    sections: list[SectionReport],
    blocks: list[_Block],
    conversation: Conversation,
    label: str,
    limit: int,
) -> tuple[list[_Block], list[dict[str, Any]], int]:
    """Drop floating blocks until under `limit`: lowest priority first, the later one on a tie."""
    active, dropped = list(blocks), []
    total = _total_tokens(system_text_build(sections, active, label), conversation, active)
    while total > limit and active:
        victim = min(active, key=lambda b: (b.priority, -b.index))
        active.remove(victim)
        dropped.append(
            {
                "name": victim.name,
                "position": victim.position,
                "depth": victim.depth,
                "priority": victim.priority,
                "tokens": victim.report.tokens,
                "reason": f"prompt over max_total_tokens ({total} > {limit});"
                " lowest priority dropped first",
            }
        )
        total = _total_tokens(system_text_build(sections, active, label), conversation, active)
    return active, dropped, total


def _tail_reports(sections: list[SectionReport]) -> list[SectionReport]:
    return [r for r in sections if r.region == "tail"]


def _tail_tokens(sections: list[SectionReport]) -> int:
    tail = _tail_reports(sections)
    return count_tokens("\n\n".join(r.text for r in tail)) + MESSAGE_OVERHEAD_TOKENS if tail else 0


def _head_insert(sections: list[SectionReport], report: SectionReport,
                 order: list[str]) -> list[SectionReport]:
    """`sections` with `report` at its place in the template's head order."""
    rank = {name: index for index, name in enumerate(order)}
    mine = rank.get(report.name, len(order))
    at = next((i for i, r in enumerate(sections)
               if r.region != "head" or rank.get(r.name, -1) > mine), len(sections))
    return [*sections[:at], report, *sections[at:]]


def examples_place(
    sections: list[SectionReport],
    plan: PromptPlan,
    templates: TemplateSet,
    variables: dict[str, Any],
    budget: int | None,
    room: int,
    fits: Callable[[list[SectionReport]], bool],
    warnings: list[dict[str, Any]],
) -> list[SectionReport]:
    """Example dialogues, in order, while the prompt stays under its limit (and the section
    under its own budget, if one is set): they go before any message of the conversation.
    Blocks are chosen on the section's own tokens against `room` (the prompt's limit less
    its size without examples), so a 100 KB description is not counted once per block; the
    whole prompt is then counted once (`fits`) and the last block dropped if it still ran over."""
    blocks = variables["examples"]
    if "examples" not in plan.head or not blocks:
        return sections

    def placed(kept: list[str]) -> list[SectionReport]:
        text = section_text("examples", templates, {**variables, "examples": kept}, warnings)
        report = _report("examples", "head", text, cut=len(kept) < len(blocks),
                         omitted=len(blocks) - len(kept),
                         note=f"mes_example: {len(kept)} of {len(blocks)} blocks kept")
        return _head_insert(sections, report, plan.head)

    def fit(kept: list[str]) -> bool:
        text = section_text("examples", templates, {**variables, "examples": kept}, warnings)
        tokens = count_tokens(text)
        return (budget is None or tokens <= budget) and tokens + SECTION_JOIN_TOKENS <= room

    kept = examples_keep(blocks, fit)
    while kept and not fits(placed(kept)):
        kept.pop()
    return placed(kept) if kept else sections


# --- stage 6: limits -----------------------------------------------------------------------


def refusal_text(templates: TemplateSet, actual: int, limit: int) -> str:
    words = (
        templates.text("refused")
        or "Prompt总长度超过限制（{actual} > {limit}），请执行汇总或调整配置"
    )
    return words.replace("{actual}", str(actual)).replace("{limit}", str(limit))


def limits_check(
    plan: PromptPlan,
    templates: TemplateSet,
    total: int,
    middle: int,
    conversation: Conversation,
    dropped: list[dict[str, Any]],
) -> tuple[str | None, list[dict[str, Any]]]:
    refused = (
        refusal_text(templates, total, plan.max_total_tokens)
        if total > plan.max_total_tokens
        else None
    )
    warnings = []
    if middle > plan.middle_warning_tokens:
        warnings.append(
            _warning(templates, "middle_section_overflow", middle, plan.middle_warning_tokens)
        )
    if refused is None and total > NEAR_LIMIT_RATIO * plan.max_total_tokens:
        warnings.append(_warning(templates, "total_near_limit", total, plan.max_total_tokens))
    if conversation.session_tokens > plan.conversation_max_tokens:
        warnings.append(
            _warning(
                templates,
                "conversation_overflow",
                conversation.session_tokens,
                plan.conversation_max_tokens,
            )
        )
    if dropped:
        names = ", ".join(d["name"] for d in dropped)
        warnings.append(
            _warning(templates, "prompt_blocks_dropped", len(dropped), None, detail=names)
        )
    return refused, warnings


def warnings_merge(warnings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One warning per category (the UI shows one per kind); details are joined."""
    merged: dict[str, dict[str, Any]] = {}
    for warning in warnings:
        seen = merged.get(warning["category"])
        if seen is None:
            merged[warning["category"]] = dict(warning)
        elif warning.get("detail") and warning["detail"] not in (seen.get("detail") or ""):
            seen["detail"] = "; ".join(filter(None, [seen.get("detail"), warning["detail"]]))
    return list(merged.values())


# --- the pipeline --------------------------------------------------------------------------


def prompt_build(inputs: PromptInputs, templates: TemplateSet) -> PromptResult:
    warnings: list[dict[str, Any]] = []
    for problem in templates.problems:
        _template_problem(templates, warnings, problem)
    plan = prompt_plan(inputs, templates)
    plan.max_total_tokens = prompt_limit(plan.max_total_tokens, inputs.window)
    variables = prompt_variables(inputs, templates, warnings)
    budgets = budgets_windowed(dict(inputs.section_budgets or {}), inputs.window)
    sections = sections_build(plan, templates, variables, budgets, warnings)
    blocks = blocks_build(inputs, templates, variables, warnings)
    if inputs.window is not None:  # the history fills what the fixed sections leave
        fixed = _total_tokens(system_text_build(sections, blocks, ""), Conversation(
            [], [], _report("conversation", "middle", ""), 0), blocks) + _tail_tokens(sections)
        budgets["conversation"] = conversation_room(budgets.get("conversation"),
                                                    plan.max_total_tokens, fixed)
    conversation = conversation_build(inputs, plan, templates, variables, budgets)
    conversation.report.text = "\n".join(filter(None, [conversation.report.text, coverage_note(
        inputs.recap_span, first_kept_turn=conversation.first_kept_turn,
        dropped=conversation.report.omitted)]))
    label = conversation.report.text if conversation.messages else ""
    tail_tokens = _tail_tokens(sections)
    active, dropped, total = blocks_fit(
        sections, blocks, conversation, label, plan.max_total_tokens - tail_tokens
    )
    total += tail_tokens

    def fits(candidate: list[SectionReport]) -> bool:
        text = system_text_build(candidate, active, label)
        return _total_tokens(text, conversation, active) + tail_tokens <= plan.max_total_tokens

    sections = examples_place(
        sections, plan, templates, variables, budgets.get("examples"),
        plan.max_total_tokens - total, fits, warnings,
    )
    system_text = system_text_build(sections, active, label)
    total = _total_tokens(system_text, conversation, active) + tail_tokens
    history = history_weave(conversation.messages, active)
    tail = "\n\n".join(r.text for r in _tail_reports(sections))
    messages = ([{"role": "system", "content": system_text}] if system_text else []) + history
    if tail:
        messages.append({"role": "system", "content": tail})

    head = _head_with_blocks([r for r in sections if r.region == "head"], active)
    depth_reports = [b.report for b in active if b.position == "depth"]
    middle = [r for r in sections if r.region == "middle"] + depth_reports
    if conversation.messages:
        middle.append(conversation.report)
    middle_tokens = sum(r.tokens for r in middle)
    refused, limit_warnings = limits_check(
        plan, templates, total, middle_tokens, conversation, dropped
    )
    if refused and inputs.window is not None:
        refused += " " + fixed_refusal([(r.name, r.tokens) for r in head + middle], total=total,
                                limit=plan.max_total_tokens, window=inputs.window)
    return PromptResult(
        messages=messages,
        sections=head + middle + _tail_reports(sections),
        total_tokens=total,
        middle_tokens=middle_tokens,
        warnings=warnings_merge(warnings + limit_warnings),
        refused=refused,
        dropped_blocks=dropped,
        tokenizer=tokenizer_name(),
        lines_missing=conversation.unread and refused is None,
        window=window_report(inputs.window, limit=plan.max_total_tokens,
                             dropped=conversation.report.omitted,
                             first_kept_turn=conversation.first_kept_turn),
    )
