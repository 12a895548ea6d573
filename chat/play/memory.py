"""What memory and the director bring to a turn: the recall searched on the player's line
(what the speaker witnessed, on this session's timeline, in its related conversations when
the setting says so) and the director's context with its fallback search, kept the same way."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from chat.groups.members import is_group, members_of
from chat.groups.prompt import lines_for_speaker, unnamed_lines_by
from chat.groups.scene import recall_macros, unnamed_name
from chat.play.macros import macro_values_for, player_time_zone
from chat.play.regex_scripts import turn_regex
from chat.play.turn_records import TurnContext
from chat.prompt.recall_section import (
    RecallSection,
    ShownAs,
    as_said,
    members_macros,
    recall_prepare,
    recalled_scripted,
    recalled_text,
)
from director.logic import DirectorWords, director_prepare_context
from library.find_replace.scripts import RegexRun
from library.selectors import persona_effective
from memory import runtime as memory_runtime
from memory.recall.rag import fallback_search
from memory.selectors import (
    character_conversation_ids,
    recall_enabled,
    recall_on_timeline,
    recall_witnessed,
    reference_instance_ids,
)
from personalab.lib.filestore.store import FileStore
from personalab.lib.participants import member_ids


def turn_recall(store: FileStore, ctx: TurnContext, *, memory_tokens: int) -> RecallSection:
    trimming = store.module_read("history").get("trim_max_messages", 10)
    return recall_prepare(store, instance_id=ctx.instance_id, user_text=round_asked(ctx),
                          lines=ctx.lines, memory_tokens=memory_tokens,
                          witnessed=_recall_kept(store, ctx),
                          related_instance_ids=_related_conversations(store, ctx),
                          newest_shown=int(trimming) if isinstance(trimming, int) else 0,
                          members=lambda: _member_names(store, ctx))


def _member_names(store: FileStore, ctx: TurnContext) -> list[str]:
    """The names the player may address a question to: every member of a group (one added
    since has no line in the memory index to be known by), else the character."""
    if is_group(ctx.instance_state):
        return [member.name for member in members_of(store, ctx.instance_state)]
    return [str(ctx.character.get("name") or "")]


def recall_shown_as(store: FileStore, ctx: TurnContext, *, player_name: str) -> ShownAs:
    """How the speaker's prompt shows a line, for recall to leave out every line the prompt
    holds whoever said it: its macros filled as the prompt's are (a greeting's {{user}}), in a
    group the player's and the other members' lines as "Name: …", the prompt's regex scripts
    run on it whatever their depth bounds. Read on first use: most turns recall nothing."""
    read: list[tuple[Mapping[str, str], dict[str, dict[str, str]], str, PromptSeeds,
                     RegexRun]] = []

    def shown_as(line: dict[str, Any]) -> str:
        if not read:
            values = _recall_values(store, ctx)
            read.append((values, members_macros(values), unnamed_name(store, ctx.instance_state),
                         prompt_seeds(ctx.lines), turn_regex(store, ctx)))
        values, own, unnamed, seeds, regex = read[0]
        line = {**line, "content": recalled_scripted(recalled_text(
            str(line.get("content") or ""), speaker=str(line.get("name") or ""), joined=False,
            macros=values, own=own, seed=seeds.of(line)), role=str(line.get("role") or ""),
            regex=regex, depth=None)}
        if not (is_group(ctx.instance_state) and ctx.speaker is not None):
            return as_said(line)
        return lines_for_speaker([line], speaker_id=ctx.speaker.character_id,
                                 player_name=player_name,
                                 speaker_name=ctx.character.get("name") or "",
                                 unnamed_by=unnamed_lines_by(ctx.instance_state),
                                 unnamed_name=unnamed,
                                 every_named=ctx.speaker.reason == "impersonate")[0]["content"]

    return shown_as


@dataclass
class PromptSeeds:
    """The seed the prompt fills each session line's macros with (its turn and time, as
    chat/prompt/conversation.py does), found by the line's role, time and text as written: a
    recalled line's {{random}}/{{roll}} then read as the prompt reads them, and a line the
    prompt shows is not recalled beside it (each fill rolled anew). A line copied into a
    summarize's new session (turn renumbered, time kept) is found by its time."""

    by_time: dict[tuple[str, str, str], str]
    by_text: dict[tuple[str, str], str]

    def of(self, line: Mapping[str, Any]) -> str:
        role, text = str(line.get("role") or ""), str(line.get("content") or "")
        return self.by_time.get((role, str(line.get("timestamp") or ""), text)) or \
            self.by_text.get((role, text), "")


def prompt_seeds(lines: list[dict[str, Any]]) -> PromptSeeds:
    by_time: dict[tuple[str, str, str], str] = {}
    by_text: dict[tuple[str, str], str] = {}
    for line in lines:
        text = line.get("content")
        if not isinstance(text, str) or "{{" not in text or line.get("macros_filled"):
            continue  # nothing a seed changes
        role, seed = str(line.get("role") or ""), f"{line.get('turn')}:{line.get('timestamp')}"
        by_time[(role, str(line.get("timestamp") or ""), text)] = seed
        by_text[(role, text)] = seed  # the newest saying it: the likeliest in the prompt
    return PromptSeeds(by_time, by_text)


def _recall_values(store: FileStore, ctx: TurnContext) -> Mapping[str, str]:
    """The macros this conversation's recalled lines are read with, as the prompt reads its
    lines: a greeting is kept as written, and in a group each member's line says its own
    {{char}}."""
    values = macro_values_for(character=ctx.character, lines=[], persona=persona_effective(
        store, owner=ctx.instance_state.get("owner"),
        persona_id=ctx.instance_state.get("persona_id")),
        time_zone=player_time_zone(store, state=ctx.instance_state))
    if is_group(ctx.instance_state):
        values = recall_macros(store, state=ctx.instance_state, lines=ctx.lines, macros=values,
                               member_names=tuple(m.name for m in members_of(
                                   store, ctx.instance_state)))
    return values


def round_asked(ctx: TurnContext) -> str:
    """What recall searches: the player's line. A member answering after another in the round
    the player's line started answers that line too (before, it searched the reply of the
    member before it, and the fact the player asked about reached the first member only); a
    member speaking with no line of the player's in this round searches the newest line."""
    if not (ctx.trigger and ctx.speaker):
        return ctx.user_text
    members = len(member_ids(ctx.instance_state))
    replies = 0
    for line in reversed(ctx.lines):
        role = line.get("role")
        if role == "user":
            return str(line.get("content") or "") if replies < members else ctx.user_text
        replies += role == "assistant"
    return ctx.user_text


def _recall_kept(store: FileStore, ctx: TurnContext) -> Callable[[Mapping[str, Any]], bool]:
    """What the speaker may recall: what it witnessed, on this session's timeline."""
    witnessed = recall_witnessed(store, character_id=speaker_id(ctx))
    on_timeline = recall_on_timeline(store, instance_id=ctx.instance_id, session_id=ctx.session_id)
    return lambda metadata: on_timeline(metadata) and witnessed(metadata)


def speaker_id(ctx: TurnContext) -> str:
    return ctx.speaker.character_id if ctx.speaker else str(ctx.instance_state.get("character_id")
                                                            or "")


def _related_conversations(store: FileStore, ctx: TurnContext) -> list[str]:
    """The speaker's other conversations recall may also search (a memory setting, off by
    default): the owner's, in this background, that the speaker took part in."""
    if not store.module_read("memory").get("recall_related_conversations"):
        return []
    return character_conversation_ids(store, instance_state=ctx.instance_state,
                                      character_id=speaker_id(ctx), exclude=ctx.instance_id)


def turn_director(store: FileStore, ctx: TurnContext,
                  words: DirectorWords) -> dict[str, Any] | None:
    settings = store.module_read("director")
    threshold = ctx.config["thresholds"].get("rag_fallback_threshold",
                                             settings.get("rag_fallback_threshold", 3))

    def search(query: str) -> tuple[list[str], list[str]]:
        index, _ = memory_runtime.index_for_turn(store)
        if index is None:
            return [], []
        current, reference = fallback_search(
            query, instance_id=ctx.instance_id,
            reference_instance_ids=reference_instance_ids(
                store, instance_id=ctx.instance_id, instance_state=ctx.instance_state,
                character_id=speaker_id(ctx)),
            background_id=ctx.instance_state.get("background_id") or "", index=index)
        values = _recall_values(store, ctx)
        own = members_macros(values)
        kept = _recall_kept(store, ctx)  # as everyday recall: witnessed, on this timeline
        regex = turn_regex(store, ctx)  # a block the card hides from the model stays hidden
        return ([recalled_scripted(recalled_text(
            h.text, speaker=str(h.metadata.get("name") or ""),
            joined=bool(h.metadata.get("joined")), macros=values, own=own, seed=h.id),
            role=str(h.metadata.get("role") or ""), regex=regex if h.collection == "turns"
            else None) for h in current if kept(h.metadata)],
                [h.text for h in reference if kept(h.metadata)])

    recall_on = recall_enabled(store)
    return director_prepare_context(settings=settings, threshold=threshold,
                                    instance_state=ctx.instance_state,
                                    background=ctx.background,
                                    search=search if recall_on else None, words=words)
