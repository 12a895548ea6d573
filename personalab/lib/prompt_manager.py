"""The prompt manager: ordered, toggleable prompt blocks (main, auxiliary, post-history and an
author's own), each with a role and a place, as SillyTavern's Chat Completion presets hold them.
Framework-free: reads and writes SillyTavern's preset JSON (`prompts` + `prompt_order`).

Where a block goes, read from its place in the preset's order:
- `main`: the main prompt (a card's system prompt still replaces it, `{{original}}` keeps it);
- `post_history` (SillyTavern's `jailbreak`): the instructions after the history (a card's
  post-history instructions replace it, as SillyTavern's "prefer character" does);
- `before_char` / `after_char`: a system part before / after the character's sections, as the
  prompt before / after the character markers (`charDescription` ... `scenario`) in the order;
- `after_history`: a system message after the last message (a prompt after `chatHistory`);
- `depth`: an in-chat message with its own role at a depth (SillyTavern's absolute position).

SillyTavern's markers (character description, world info, examples, chat history ...) are the
app's own sections: a preset that reorders them reorders those sections (`markers`, kept only when
they differ from SillyTavern's default order; the history moved before other markers puts the
conversation there); a marker switched off is listed among the things not imported, with the
reason."""

from __future__ import annotations

import uuid
from typing import Any

from personalab.lib.errors import Invalid

PLACES = ("main", "post_history", "before_char", "after_char", "after_history", "depth")
ROLES = ("system", "user", "assistant")
MAX_BLOCKS = 100
MAX_CONTENT_CHARS = 100_000
MAX_DEPTH = 10_000
CHARACTER_MARKERS = ("charDescription", "charPersonality", "scenario", "personaDescription")
MARKERS = ("chatHistory", "dialogueExamples", "worldInfoBefore", "worldInfoAfter",
           *CHARACTER_MARKERS)
# SillyTavern's own order of its markers (its default preset): a preset that keeps it loses nothing.
MARKER_ORDER = ("worldInfoBefore", "personaDescription", "charDescription", "charPersonality",
                "scenario", "worldInfoAfter", "dialogueExamples", "chatHistory")
# Preset prompts the app has its own setting or template for, and preset keys it does not use.
ST_UNUSED_KEYS = {
    "wi_format": "world info is placed as its own section",
    "assistant_prefill": "not supported yet",
    "assistant_impersonation": "not supported yet",
}
# Switches PersonaLab does not apply, listed when the preset moves them off SillyTavern's
# default (which is how PersonaLab sends the messages).
ST_UNUSED_SWITCHES = {
    "names_behavior": (0, "not supported yet: names are sent as SillyTavern's default does"),
    "wrap_in_quotes": (False, "not supported yet: your messages are sent as written"),
    "squash_system_messages": (False, "not supported yet: use the connection's prompt "
                                      "post-processing (merge) instead"),
    "continue_postfix": (" ", "not supported yet: a continued reply goes on after a space"),
}
# SillyTavern's utility prompts for Chat Completion (its defaults, 1.12.6): the main prompt sent
# when no main block, card system prompt or template main prompt replaces it, the line before the
# chat, before a group chat, before each example dialogue, the nudge after a reply that is
# being continued, the group nudge after a group's history, the Impersonate instruction and the
# wording of the card's personality and scenario. A preset's own replace them;
# `continue_prefill` sends the reply as the last assistant message (a prefill) instead of the
# nudge.
UTILITY_DEFAULTS: dict[str, Any] = {
    "chat_main_prompt": "Write {{char}}'s next reply in a fictional chat between "
                        "{{char}} and {{user}}.",
    "new_chat_prompt": "[Start a new Chat]",
    "new_group_chat_prompt": "[Start a new group chat. Group members: {{group}}]",
    "new_example_chat_prompt": "[Example Chat]",
    "continue_nudge_prompt": "[Continue the following message. Do not include ANY parts of the "
                             "original message. Use capitalization and punctuation as if your "
                             "reply is a part of the original message: {{lastChatMessage}}]",
    "group_nudge_prompt": "[Write the next reply only as {{char}}.]",
    "impersonation_prompt": "[Write your next reply from the point of view of {{user}}, using the "
                            "chat history so far as a guideline for the writing style of "
                            "{{user}}. Don't write as {{char}} or system. Don't describe actions "
                            "of {{char}}.]",
    "personality_format": "[{{char}}'s personality: {{personality}}]",
    "scenario_format": "[Circumstances and context of the dialogue: {{scenario}}]",
    "continue_prefill": False,
}
MAX_UTILITY_CHARS = 10_000
ST_ROLE_DEFAULT = "system"
ST_MAIN, ST_POST = "main", "jailbreak"
ST_CHARACTER_ID = 100001  # SillyTavern's "default for new characters" order


class PromptManagerError(Invalid, ValueError):
    """A preset or block list that cannot be used; `fields` says where."""

    def __init__(self, message: str, *, fields: dict[str, str]) -> None:
        super().__init__(message, fields=fields)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _order_of(preset: dict[str, Any]) -> list[dict[str, Any]]:
    """The preset's prompt order: the entry for new characters, else the last one given."""
    orders = [o for o in preset.get("prompt_order") or [] if isinstance(o, dict)
              and isinstance(o.get("order"), list)]
    chosen = next((o for o in orders if o.get("character_id") == ST_CHARACTER_ID),
                  orders[-1] if orders else None)
    if chosen is None:  # no order: every prompt in the order given, enabled
        return [{"identifier": p.get("identifier"), "enabled": p.get("enabled", True)}
                for p in preset.get("prompts") or [] if isinstance(p, dict)]
    return [entry for entry in chosen["order"] if isinstance(entry, dict)]


def _place(identifier: str, prompt: dict[str, Any], *, seen_character: bool,
           seen_history: bool) -> str:
    if identifier == ST_MAIN:
        return "main"
    if identifier == ST_POST:
        return "post_history"
    if prompt.get("injection_position") == 1:
        return "depth"
    if seen_history:
        return "after_history"
    return "after_char" if seen_character else "before_char"


def _marker_notes(order: list[dict[str, Any]]) -> list[dict[str, str]]:
    notes = []
    for entry in order:
        name = str(entry.get("identifier") or "")
        if name in MARKERS and entry.get("enabled") is False:
            notes.append({"name": name, "reason": "switched off in the preset; PersonaLab always "
                                                  "sends this section when it has text"})
    return notes


def markers_of(order: list[dict[str, Any]]) -> list[str]:
    """The preset's markers in its order (the prompt follows it: chat/prompt/markers.py)."""
    return list(dict.fromkeys(str(e.get("identifier")) for e in order
                              if e.get("identifier") in MARKER_ORDER))


def prompt_blocks_from_st_preset(preset: Any) -> dict[str, Any]:
    """The prompt blocks of a SillyTavern Chat Completion preset and what was left out (with
    the reason). Prompts without text are kept only when they carry the main or post-history
    slot (an empty one there means "send none", as in SillyTavern)."""
    if not isinstance(preset, dict):
        raise PromptManagerError("A preset must be a JSON object.",
                                 fields={"file": "must be a JSON object (a SillyTavern preset)"})
    prompts = {str(p.get("identifier")): p for p in preset.get("prompts") or []
               if isinstance(p, dict) and p.get("identifier")}
    order = _order_of(preset)
    blocks: list[dict[str, Any]] = []
    skipped = _marker_notes(order)
    seen_character = seen_history = False
    for entry in order:
        identifier = str(entry.get("identifier") or "")
        seen_character |= identifier in CHARACTER_MARKERS
        seen_history |= identifier == "chatHistory"
        prompt = prompts.get(identifier)
        if identifier in MARKERS or prompt is None:
            if prompt is None and identifier not in MARKERS:
                skipped.append({"name": identifier, "reason": "in the order but not among the "
                                                              "preset's prompts"})
            continue
        if prompt.get("marker"):
            skipped.append({"name": str(prompt.get("name") or identifier),
                            "reason": "a SillyTavern marker PersonaLab has no section for"})
            continue
        place = _place(identifier, prompt, seen_character=seen_character,
                       seen_history=seen_history)
        content = _text(prompt.get("content"))
        if not content.strip() and place not in ("main", "post_history"):
            continue
        blocks.append(block_clean({
            "identifier": identifier, "name": _text(prompt.get("name")) or identifier,
            "role": prompt.get("role") or ST_ROLE_DEFAULT, "content": content,
            "enabled": entry.get("enabled", True) is not False, "place": place,
            "depth": prompt.get("injection_depth", 4) if place == "depth" else 0,
            "forbid_overrides": prompt.get("forbid_overrides")}))
    skipped += [{"name": key, "reason": reason} for key, reason in ST_UNUSED_KEYS.items()
                if _text(preset.get(key)).strip()]
    skipped += [{"name": key, "reason": reason}
                for key, (default, reason) in ST_UNUSED_SWITCHES.items()
                if preset.get(key, default) not in (default, None)]
    markers = markers_of(order)
    return {"blocks": blocks_check(blocks), "skipped": skipped,
            "markers": [] if markers == [m for m in MARKER_ORDER if m in markers] else markers,
            "utility": _utility_of(preset, skipped)}


def _utility_of(preset: dict[str, Any], skipped: list[dict[str, str]]) -> dict[str, Any]:
    """The utility prompts the preset sets; one of the wrong type is listed as not imported."""
    found: dict[str, Any] = {}
    for key in UTILITY_DEFAULTS:
        if key not in preset:
            continue
        try:
            found.update(utility_check({key: preset[key]}))
        except PromptManagerError as error:
            skipped.append({"name": key, "reason": error.fields[f"utility.{key}"]})
    return found


def utility_check(raw: Any) -> dict[str, Any]:
    """The utility prompts a preset or an edit sets (only those: the rest keep SillyTavern's
    defaults); a sentence per wrong key in PromptManagerError.fields."""
    if not isinstance(raw, dict):
        raise PromptManagerError("Utility prompts must be an object.",
                                 fields={"utility": "not an object"})
    problems: dict[str, str] = {}
    for key, value in raw.items():
        if key not in UTILITY_DEFAULTS:
            problems[f"utility.{key}"] = f"must be one of {', '.join(UTILITY_DEFAULTS)}"
        elif isinstance(UTILITY_DEFAULTS[key], bool) and not isinstance(value, bool):
            problems[f"utility.{key}"] = "must be true or false"
        elif not isinstance(UTILITY_DEFAULTS[key], bool) and (
                not isinstance(value, str) or len(value) > MAX_UTILITY_CHARS):
            problems[f"utility.{key}"] = f"must be text of at most {MAX_UTILITY_CHARS} characters"
    if problems:
        raise PromptManagerError("A utility prompt is not valid.", fields=problems)
    return dict(raw)


def utility_effective(stored: Any) -> dict[str, Any]:
    """Every utility prompt: the stored ones, SillyTavern's defaults for the rest."""
    own = stored if isinstance(stored, dict) else {}
    return {key: own[key] if isinstance(own.get(key), type(default)) else default
            for key, default in UTILITY_DEFAULTS.items()}


def block_clean(raw: Any, *, at: str = "block") -> dict[str, Any]:
    """One block, checked: a sentence per wrong field in PromptManagerError.fields."""
    if not isinstance(raw, dict):
        raise PromptManagerError("A prompt block must be an object.", fields={at: "not an object"})
    problems: dict[str, str] = {}
    role = raw.get("role", ST_ROLE_DEFAULT)
    place = raw.get("place", "before_char")
    content = raw.get("content", "")
    depth = raw.get("depth", 0)
    if role not in ROLES:
        problems[f"{at}.role"] = f"must be one of {', '.join(ROLES)}"
    if place not in PLACES:
        problems[f"{at}.place"] = f"must be one of {', '.join(PLACES)}"
    if not isinstance(content, str) or len(content) > MAX_CONTENT_CHARS:
        problems[f"{at}.content"] = f"must be text of at most {MAX_CONTENT_CHARS} characters"
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= MAX_DEPTH:
        problems[f"{at}.depth"] = f"must be a whole number from 0 to {MAX_DEPTH}"
    if problems:
        raise PromptManagerError("A prompt block is not valid.", fields=problems)
    # SillyTavern's "Forbid overrides": a card's system prompt or post-history instructions
    # do not replace this main or post-history prompt.
    forbids = raw.get("forbid_overrides") is True and place in ("main", "post_history")
    return {"identifier": _text(raw.get("identifier")) or str(uuid.uuid4()),
            "name": (_text(raw.get("name")) or _text(raw.get("identifier")) or "Prompt")[:200],
            "role": role, "content": content, "enabled": raw.get("enabled", True) is not False,
            "place": place, "depth": depth if place == "depth" else 0,
            **({"forbid_overrides": True} if forbids else {})}


def blocks_check(raw: Any) -> list[dict[str, Any]]:
    """A whole block list: at most MAX_BLOCKS, one main and one post-history slot."""
    if not isinstance(raw, list):
        raise PromptManagerError("Prompt blocks must be a list.", fields={"blocks": "not a list"})
    if len(raw) > MAX_BLOCKS:
        raise PromptManagerError(f"At most {MAX_BLOCKS} prompt blocks.",
                                 fields={"blocks": f"at most {MAX_BLOCKS}"})
    blocks = [block_clean(item, at=f"blocks[{index}]") for index, item in enumerate(raw)]
    for place in ("main", "post_history"):
        if sum(1 for b in blocks if b["place"] == place) > 1:
            raise PromptManagerError(f"Only one block may be the {place.replace('_', '-')} "
                                     "prompt.", fields={"blocks": f"two blocks in place {place}"})
    return blocks


def slot_text(blocks: list[dict[str, Any]], place: str) -> str | None:
    """The text of the main or post-history block; None when the list has none (the
    template's own stays), "" when it is switched off (send none)."""
    found = next((b for b in blocks if b.get("place") == place), None)
    if found is None:
        return None
    return found["content"] if found.get("enabled") else ""


def slot_forbids_overrides(blocks: list[dict[str, Any]], place: str) -> bool:
    """The main or post-history block keeps a card's own prompt out ("Forbid overrides")."""
    return any(b.get("place") == place and b.get("forbid_overrides") for b in blocks)


def st_preset_prompts(blocks: list[dict[str, Any]],
                      markers: list[str] | None = None) -> dict[str, Any]:
    """`prompts` and `prompt_order` for a SillyTavern preset: the blocks in their places around
    SillyTavern's markers (in `markers`' order when the manager keeps one), so importing it
    there puts each where it went here."""
    prompts: list[dict[str, Any]] = []
    for name in MARKER_ORDER:
        prompts.append({"identifier": name, "name": name, "system_prompt": True, "marker": True})
    by_place: dict[str, list[dict[str, Any]]] = {place: [] for place in PLACES}
    for block in blocks:
        identifier = {"main": ST_MAIN, "post_history": ST_POST}.get(block["place"],
                                                                    block["identifier"])
        prompts.append({"identifier": identifier, "name": block["name"], "role": block["role"],
                        "content": block["content"], "system_prompt": block["place"] in
                        ("main", "post_history"), "marker": False,
                        "injection_position": 1 if block["place"] == "depth" else 0,
                        "injection_depth": block["depth"] if block["place"] == "depth" else 4,
                        **({"forbid_overrides": True} if block.get("forbid_overrides") else {})})
        by_place[block["place"]].append({"identifier": identifier, "enabled": block["enabled"]})
    run: list[Any] = [m for m in (markers or MARKER_ORDER) if m in MARKER_ORDER]
    run += [m for m in MARKER_ORDER if m not in run]
    last_character = max(i for i, m in enumerate(run) if m in CHARACTER_MARKERS)
    run[last_character + 1:last_character + 1] = by_place["after_char"]
    order = [*by_place["main"], *by_place["before_char"], *run, *by_place["after_history"],
             *by_place["post_history"]]
    order = _depth_blocks_placed(order, blocks)
    entries = [item if isinstance(item, dict) else {"identifier": item, "enabled": True}
               for item in order]
    return {"prompts": prompts, "prompt_order": [{"character_id": ST_CHARACTER_ID,
                                                  "order": entries}]}


def _depth_blocks_placed(order: list[Any], blocks: list[dict[str, Any]]) -> list[Any]:
    """`order` with each absolute-depth block after the block it followed in the list (the
    preset's own order when it came from one), first when it leads: SillyTavern places it by
    its depth wherever it sits, so the order only keeps where its author had it."""
    placed = list(order)
    previous: str | None = None
    for block in blocks:
        identifier = {"main": ST_MAIN, "post_history": ST_POST}.get(block["place"],
                                                                    block["identifier"])
        if block["place"] == "depth":
            at = next((i + 1 for i, item in enumerate(placed) if isinstance(item, dict)
                       and item["identifier"] == previous), 0)
            placed.insert(at, {"identifier": identifier, "enabled": block["enabled"]})
        previous = identifier
    return placed
