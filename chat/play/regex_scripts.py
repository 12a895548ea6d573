"""Where a chat runs its regex scripts (library/find_replace/scripts.py), as SillyTavern does: on
the player's message as it is stored, on the reply (and its reasoning) as it is finished,
on the messages and lore of the prompt, and on what the page shows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from chat.import_export.st_chat_export import st_display_text
from chat.play.turn_records import TurnContext
from chat.services.reading import reading_time_zone
from library.find_replace.scripts import (
    AI_OUTPUT,
    REASONING,
    SLASH_COMMAND,
    USER_INPUT,
    RegexRun,
    scripts_read,
)
from library.find_replace.services import regex_scripts_for_chat
from library.selectors import character_for_chat_optional, persona_effective
from memory.action_base import LinesShown
from personalab.lib.filestore.store import FileStore
from personalab.lib.js_regex import js_macro_escaped
from personalab.lib.line_macros import character_macro_values, line_macros_replace
from personalab.lib.lines import display_depths, narrator_sent
from personalab.lib.macros import PICK_SEED, TIME_ZONE, message_macros_replace


def regex_run_for(store: FileStore, *, owner: str | None, character: Mapping[str, Any],
                  persona_id: str | None = None, preset: Any = None,
                  values: Mapping[str, str] | None = None) -> RegexRun:
    """The account's scripts, then the chat's preset's (`preset`: its prompt manager), then the
    character's card's, as SillyTavern orders them; a preset's and a card's only once the
    account allowed them. Filled in with `values` (the chat's macros; the account's persona
    and the character's when not given)."""
    own, card = regex_scripts_for_chat(store, username=owner, character=character)
    scripts = scripts_read(own, preset_scripts_allowed(preset), card)
    if not scripts:
        return RegexRun()
    if values is None:
        persona = persona_effective(store, owner=owner, persona_id=persona_id)
        zone = reading_time_zone(store, username=owner)  # {{time}}: the player's clock
        values = {"user": persona.get("name") or "User",
                  "persona": persona.get("description") or "",
                  **character_macro_values(character), **({TIME_ZONE: zone} if zone else {})}
    # The zone and the pick's seed are read, not written into the pattern: not escaped.
    escaped = {name: value if name in (TIME_ZONE, PICK_SEED) else js_macro_escaped(value)
               for name, value in values.items()}
    return RegexRun(scripts,
                    macros=lambda text: message_macros_replace(text, values, seed="regex"),
                    escape_macros=lambda text: message_macros_replace(text, escaped,
                                                                      seed="regex"),
                    macros_as=lambda name: lambda text: message_macros_replace(
                        text, {**values, "char": name}, seed="regex"))


def preset_scripts_allowed(preset: Any) -> Any:
    """A chat's preset scripts when the player allowed them (chat/services/prompt_manager.py)."""
    if isinstance(preset, Mapping) and preset.get("regex_scripts_allowed"):
        return preset.get("regex_scripts")
    return None


def turn_regex(store: FileStore, ctx: TurnContext) -> RegexRun:
    """The scripts of a turn: its owner's and its answering character's."""
    state = ctx.instance_state
    return regex_run_for(store, owner=state.get("owner"), character=ctx.character,
                         persona_id=state.get("persona_id"),
                         preset=state.get("prompt_manager"))


def user_input_regexed(store: FileStore, ctx: TurnContext, text: str) -> str:
    """The player's message as it is stored (SillyTavern runs its scripts on sending)."""
    return turn_regex(store, ctx).text(text, USER_INPUT)


def reply_regexed(run: RegexRun, flags: dict[str, Any], content: str,
                  reasoning: str | None) -> dict[str, Any]:
    """What a finished reply's line keeps: its text and reasoning after the scripts (not an
    error line's, nor an empty one's)."""
    if not run or flags.get("error") or not content.strip():
        return {}
    changed = {"content": run.text(content, AI_OUTPUT)}
    if reasoning:
        changed["reasoning"] = run.text(reasoning, REASONING)
    return changed


@dataclass
class LineDisplay:
    """What the chat page shows of a line: its macros filled in, then the markdown-only
    scripts (SillyTavern runs them when it renders a message, never on the stored text)."""

    values: Mapping[str, str]
    run: RegexRun = field(default_factory=RegexRun)
    depths: dict[int, int] = field(default_factory=dict)  # by id() of the lines read

    def text(self, line: Mapping[str, Any]) -> str:
        # The page's templates read copies of the lines (chat.selectors.ShownLine): a depth is
        # the read's own line's, which a copy names (until 2026-12-03 no depth was found).
        depth = self.depths.get(getattr(line, "source_id", 0) or id(line))
        shown = st_display_text(dict(line))
        if shown is not None:  # an imported SillyTavern translation, shown as it showed it
            line = {**line, "content": shown}
        text = line_macros_replace(line, self.values) if self.values else str(
            line.get("content") or "")
        placement = line_placement_shown(line)
        if not self.run or placement is None:
            return text
        speaker = line.get("name") or self.values.get("user" if line.get("role") == "user"
                                                      else "char")
        return self.run.text(text, placement, markdown=True, depth=depth, speaker=speaker)

    def reasoning(self, line: Mapping[str, Any]) -> str:
        """The reply's reasoning as the page shows it: after the markdown-only reasoning (6)
        scripts at the reply's depth, as SillyTavern shows a reasoning block."""
        reasoning = str(line.get("reasoning") or "")
        if not self.run or not reasoning:
            return reasoning
        return self.run.text(reasoning, REASONING, markdown=True,
                             depth=self.depths.get(getattr(line, "source_id", 0) or id(line)),
                             speaker=line.get("name") or self.values.get("char"))


# SillyTavern's own system messages (its help, welcome, group notices): shown without scripts.
ST_SYSTEM_NAME = "SillyTavern System"


def line_placement_shown(line: Mapping[str, Any]) -> int | None:
    """Which scripts a message gets where SillyTavern shows or edits it (messageFormatting,
    updateMessage): the player's input, a narrator note's slash command (a note made here is
    written as a narrator message), any other's AI output; None for a summary and for
    SillyTavern's own system messages."""
    if line.get("role"):
        return USER_INPUT if line.get("role") == "user" else AI_OUTPUT
    if line.get("type") != "note" or (line.get("name") == ST_SYSTEM_NAME
                                      and not narrator_sent(dict(line))):
        return None
    extra = line.get("extra")
    return AI_OUTPUT if isinstance(extra, Mapping) and extra.get("type") != "narrator" \
        else SLASH_COMMAND


def line_display_for(store: FileStore, *, state: Mapping[str, Any],
                     character: Mapping[str, Any], lines: list[dict[str, Any]],
                     values: Mapping[str, str],
                     depths: dict[int, int] | None = None) -> LineDisplay:
    """The page's display of `lines` (a stretch of the session, newest last): a message's
    depth is how many messages come after it, as SillyTavern counts it (`depths`, from
    display_depths over a stretch that ends before the session; by default `lines` are
    taken to end where it does)."""
    run = regex_run_for(store, owner=state.get("owner"), character=character,
                        persona_id=state.get("persona_id"), preset=state.get("prompt_manager"),
                        values=values)
    if not run:
        return LineDisplay(values, run, {})
    return LineDisplay(values, run, display_depths(lines) if depths is None else depths)


def edit_regexed(store: FileStore, *, instance_id: str, line: Mapping[str, Any],
                 text: str) -> str:
    """An edited message's new text after the scripts marked "run on edit" (SillyTavern runs
    only those on an edit): the player's as input, a narrator note's as a slash command,
    any other (a comment too) as the AI's output."""
    if not line.get("role") and line.get("type") != "note":
        return text
    state = store.instance_state_read(instance_id)
    character = character_for_chat_optional(
        store, state=state, character_id=line.get("speaker") or state.get("character_id"))
    run = regex_run_for(store, owner=state.get("owner"), character=character,
                        persona_id=state.get("persona_id"), preset=state.get("prompt_manager"))
    # SillyTavern's updateMessage has no exception for its own system messages; it fills a
    # trim string's {{char}} with the message's speaker, but for a narrator line.
    narrator = (line.get("extra") or {}).get("type") == "narrator" if isinstance(
        line.get("extra"), Mapping) else line.get("type") == "note"
    return run.text(text, line_placement_shown(line) or AI_OUTPUT, edit=True,
                    speaker=None if narrator else line.get("name"))


def greetings_regexed(store: FileStore, *, state: Mapping[str, Any],
                      definitions: Mapping[str, Mapping[str, Any]],
                      lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A new chat's first messages and their swipes after the AI-output scripts of whoever
    says them (SillyTavern runs them on a greeting as it starts a chat)."""
    regexed = []
    for line in lines:
        character = definitions.get(line.get("speaker") or state.get("character_id") or "")
        run = regex_run_for(store, owner=state.get("owner"), character=character or {},
                            persona_id=state.get("persona_id"),
                            preset=state.get("prompt_manager"))
        if run:
            line = {**line, "content": run.text(line.get("content") or "", AI_OUTPUT)}
            if isinstance(line.get("alternatives"), list):
                line["alternatives"] = [
                    {**item, "content": run.text(str(item.get("content") or ""), AI_OUTPUT)}
                    for item in line["alternatives"] if isinstance(item, dict)]
        regexed.append(line)
    return regexed


def player_line_regexed(store: FileStore, *, state: Mapping[str, Any], text: str) -> str:
    """The player's message kept without a reply (a conversation in manual order where nobody
    was picked): the account's scripts and the chat's first character's."""
    character = character_for_chat_optional(store, state=dict(state),
                                            character_id=state.get("character_id"))
    return regex_run_for(store, owner=state.get("owner"), character=character,
                         persona_id=state.get("persona_id"),
                         preset=state.get("prompt_manager")).text(text, USER_INPUT)


def lines_for_model(store: FileStore, *, state: Mapping[str, Any],
                    character_id: str | None = None) -> LinesShown | None:
    """How summarize, update memory and the recaps show the chat's lines to the model: as a
    prompt does, the account's and the character's (or member `character_id`'s) prompt scripts
    run on each, the player's as input and the others as the AI's output, depth counted from
    the newest line given (SillyTavern's Summarize asks through the chat's prompt). None when
    no script runs."""
    character = character_for_chat_optional(
        store, state=dict(state), character_id=character_id or state.get("character_id"))
    run = regex_run_for(store, owner=state.get("owner"), character=character,
                        persona_id=state.get("persona_id"), preset=state.get("prompt_manager"))
    if not run:
        return None

    def shown(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        newest = len(lines) - 1
        return [{**line, "content": run.text(
            str(line.get("content") or ""), USER_INPUT if line.get("role") == "user"
            else AI_OUTPUT, prompt=True, depth=newest - at)} for at, line in enumerate(lines)]

    return shown
