"""What a turn reads and prepares before the LLM is called: files (flow step 2), recall
(step 2.5), the director (step 3), lore and notes, and the assembled prompt (step 4)."""

from __future__ import annotations

import copy
import dataclasses
import logging
import threading
import time
from pathlib import Path
from typing import Any

from chat.groups.before_tally import group_before_for_speaker
from chat.groups.cards import card_join_for_turn, inputs_joined, prompt_fitted
from chat.groups.members import is_group, members_of
from chat.groups.prompt import lines_for_speaker, unnamed_lines_by
from chat.groups.scene import (
    lines_with_own_macros,
    recall_macros,
    scene_members_blocks,
    unnamed_name,
)
from chat.groups.speakers import Pick
from chat.play.first_included import MACRO, first_included_keep, first_included_read
from chat.play.lore import lore_for_turn, persona_depth_blocks
from chat.play.macros import (
    chat_pick_seed,
    macro_values_for,
    model_current,
    player_macro_values,
    player_time_zone,
)
from chat.play.memory import recall_shown_as, speaker_id, turn_director, turn_recall
from chat.play.regex_scripts import turn_regex, user_input_regexed
from chat.play.story_choice import (
    chat_reply_shape,
    chat_utility_for,
    prompt_processing_for,
    story_choice_for,
    story_context,
)
from chat.play.take_back import redo_speaker, reply_take_back
from chat.play.turn_records import Prepared, TurnContext
from chat.play.variables import turn_variables_load
from chat.play.window import turn_window, turn_window_known
from chat.prompt.alternation import messages_processed
from chat.prompt.assemble import prompt_build
from chat.prompt.card_fields import (
    card_fields_placement,
    card_fields_read,
    scenario_overridden,
)
from chat.prompt.conversation import conversation_lines_wanted, conversation_tokens_room
from chat.prompt.inputs import PromptInputs, PromptResult
from chat.prompt.recall_section import (
    recall_shrunk,
    recall_unshown,
    recalled_entries,
)
from chat.prompt.tally import MESSAGE_OVERHEAD_TOKENS
from chat.prompt.template_macros import ST_SYSTEM_PROMPT, template_macro_values
from chat.prompt.templates import TemplateStore, director_words
from chat.prompt.window import ContextWindow, budgets_windowed, recap_spans
from chat.prompt.world_info import outlet_macros
from library.selectors import (
    background_for_chat,
    character_for_chat,
    persona_effective,
    player_name,
)
from memory import runtime as memory_runtime
from memory.character.biography import biography_items
from memory.character.pinned import pinned_prompt_effective
from memory.selectors import (
    recaps_witnessed,
)
from memory.summaries.journal import summarize_recover
from memory.summaries.recaps import recap_items
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.session_read import SessionRead
from personalab.lib.filestore.store import FileStore
from personalab.lib.line_index import MESSAGE_KINDS, kinds_among
from personalab.lib.line_macros import macros_in
from personalab.lib.llm import Provider
from personalab.lib.llm_providers import provider_for
from personalab.lib.llm_text import text_trace_note
from personalab.lib.macros import TIME_ZONE, macros_replace
from personalab.lib.membership import member_change_recover
from personalab.lib.participants import member_state_read
from personalab.lib.prompt_language import locale_for_character
from personalab.lib.trace_refs import conversation_refer
from personalab.llm_config import llm_settings_from_env

log = logging.getLogger(__name__)

_template_stores: dict[Path, TemplateStore] = {}
_template_lock = threading.Lock()


def provider_current(store: FileStore) -> Provider:
    return provider_for(llm_settings_from_env(store.module_read("llm")))


def templates_for(store: FileStore) -> TemplateStore:
    folder = store.templates_dir
    with _template_lock:
        if folder not in _template_stores:
            _template_stores[folder] = TemplateStore(folder)
        return _template_stores[folder]


# --- loading -----------------------------------------------------------------

def _turn_of_reply(read: Any, trigger: bool, in_round: bool = False) -> int:
    """A new turn, unless this answers a player's line no reply follows (a trigger after a
    deleted reply, an imported chat, a group's kept line): that line's turn, as a reply sent
    with it would have had. (Its reply was once numbered past it, leaving the line's turn
    "pending" for ever.) `in_round`: a group member's reply after another's in the same
    round, which is one turn for the player: the turn of the line before it."""
    last = next((line for line in reversed(read.lines) if line.get("role")), None)
    if trigger and last is not None and isinstance(last.get("turn"), int) \
            and (last["role"] == "user" or in_round):
        return last["turn"]
    return read.last_turn + 1


def context_load(store: FileStore, *, instance_id: str, user_text: str,
                 regenerate: bool = False, continue_reply: bool = False,
                 speaker: Pick | None = None, trigger: bool = False,
                 in_round: bool = False) -> TurnContext:
    """Flow step 1-2. The caller holds the instance lock. `speaker`: the member answering in a
    conversation with several characters (its own definition and state); `trigger`: it answers
    the lines already there, no new player line; `in_round`: after another member's reply of
    the same round (the same turn)."""
    summarize_recover(store, instance_id=instance_id)  # a summarize killed mid-way
    member_change_recover(store, instance_id)  # likewise a member change
    instance_state = store.instance_state_read(instance_id)
    session_id = instance_state["current_session_id"]
    store.session_repair(instance_id, session_id)
    config = store.config_read()
    redo = regenerate or continue_reply
    # The newest lines are enough (a trigger and an impersonation too). A group's lines are
    # renamed for each speaker ("Ann: …"), which the line index's token counts do not weigh:
    # context_prepare weighs the lines before them as the speaker reads them
    # (chat/groups/before_tally.py). A speaker outside a group still reads the whole session.
    read = _session_for_turn(store, instance_id, session_id, config, newest_only=True,
                             redo=redo, window=turn_window_known(store, instance_state))
    if speaker and not is_group(instance_state) and _said_before(read):
        read = store.session_read(instance_id, session_id, cached=True)
    if (regenerate or continue_reply) and speaker is None:
        speaker = redo_speaker(instance_state, read, "regenerate" if regenerate else "continue")
    speaker_id = speaker.character_id if speaker else instance_state.get("character_id")
    character_state = (member_state_read(store, instance_id, instance_state, speaker_id)
                       if speaker else store.character_state_read(instance_id))
    character = character_for_chat(store, state=instance_state, character_id=speaker_id) \
        if speaker_id else {}
    ctx = TurnContext(
        instance_id=instance_id, session_id=session_id,
        turn=_turn_of_reply(read, trigger, in_round),
        user_text=user_text, instance_state=instance_state, character_state=character_state,
        character=character,
        background=background_for_chat(store, state=instance_state),
        config=config, lines=list(read.lines),
        problems=[p.describe() for p in read.problems],
        plot_state_before=copy.deepcopy(instance_state.get("plot_state", {})),
        speaker=speaker, trigger=trigger, first_index=read.first_index,
        lines_before=read.lines_before, token_counts=read.token_counts,
        # Nothing to weigh when no player's or character's line lies before the stretch (an
        # old session's summary lines): their tally reads as the group's prompt shows them.
        before_source=read.before_source if _said_before(read) else None,
    )
    ctx.first_included = first_included_read(store, instance_id=instance_id,
                                             session_id=session_id)
    ctx.pick_seed = chat_pick_seed(read.metadata, instance_id)
    if speaker:
        ctx.reply_extra = {"speaker": speaker.character_id,
                           "name": character.get("name") or speaker.character_id}
    if trigger:
        ctx.user_text = next((str(line.get("content", "")) for line in reversed(ctx.lines)
                              if line.get("role")), "")
    elif regenerate or continue_reply:
        reply_take_back(store, ctx, read, keep_as_alternative=regenerate)
    sending = not (redo or trigger)
    if sending:
        ctx.user_text = user_input_regexed(store, ctx, user_text)  # stored as the scripts left it
    stamp = utc_now()
    ctx.variables = turn_variables_load(
        store, instance_id=instance_id, session_id=session_id, metadata=read.metadata,
        owner=instance_state.get("owner"), player_text=ctx.user_text if sending else "",
        player_values=_player_values(store, ctx) if sending and macros_in(ctx.user_text)
        else None, player_seed=f"{ctx.turn}:{stamp}",
        redo_trace_id=str(read.lines[-1].get("trace_id") or "") if redo and read.lines else "")
    if sending:
        # Stored with its macros filled in, as SillyTavern's sendMessageAsUser stores it: what
        # its {{getvar}}, {{random}} or {{time}} gave is kept (docs/decisions/macros.md).
        written, ctx.user_text = ctx.user_text, ctx.variables.player_text
        line = {"role": "user", "content": ctx.user_text, "turn": ctx.turn, "timestamp": stamp,
                "name": player_name(store, state=instance_state),
                **({"macros_filled": True} if macros_in(written) else {})}
        # Written first; the reply line's fsync covers it: one fsync less before the 1st token.
        store.session_append(instance_id, session_id, line, durable=False)
        ctx.lines.append(line)
    return ctx


def _player_values(store: FileStore, ctx: TurnContext) -> dict[str, str]:
    return {MACRO: ctx.first_included} | player_macro_values(
        store, state=ctx.instance_state, character=ctx.character, lines=ctx.lines,
        chat_id=ctx.pick_chat, member_names=[member.name for member in members_of(
            store, ctx.instance_state)] if is_group(ctx.instance_state) else None,
        earlier=ctx.lines_before.chat_messages if ctx.lines_before else 0)


def _session_for_turn(store: FileStore, instance_id: str, session_id: str,
                      config: dict[str, Any], *, newest_only: bool, redo: bool = False,
                      window: ContextWindow | None = None) -> SessionRead:
    """Only the newest lines the prompt can hold are parsed (through the line index beside the
    file): the newest messages when the prompt sends only those, otherwise the newest lines back
    to the prompt's token limit (`window`'s, when under the server's); a session that fits is
    read through the session cache, which parses only the lines appended since the last turn.
    Either way ctx.lines is read, never changed. A regenerate or continue reads one message
    more: the reply it replaces, not counted in the token limit (its prompt leaves it out, so
    counted, the prompt would want older lines than the read holds and read the session whole)."""
    wanted = conversation_lines_wanted(config, {
        "max_messages": store.module_read("history").get("trim_max_messages", 10)})
    if newest_only and wanted is not None:
        return store.session_read(instance_id, session_id, usable=wanted + redo)
    if newest_only:
        return store.session_read(instance_id, session_id, overhead=MESSAGE_OVERHEAD_TOKENS,
                                  spared=int(redo), tokens=conversation_tokens_room(
                                      config, store.module_read("prompt").get("section_budgets"),
                                      window))
    return store.session_read(instance_id, session_id, cached=True)


def _said_before(read: SessionRead) -> bool:
    """Whether a player's or character's line lies before the lines read (or may: no kinds)."""
    if not read.first_index:
        return False
    if read.line_kinds is None:
        return True
    return bool(kinds_among(read.line_kinds[:read.first_index], MESSAGE_KINDS).any())


def _session_whole(store: FileStore, ctx: TurnContext) -> None:
    """ctx with every line of the session, when the prompt wanted more than the newest."""
    read = store.session_read(ctx.instance_id, ctx.session_id, cached=True)
    # A regenerate's old reply is still in the file until its new line replaces it.
    ctx.lines = list(read.lines[:ctx.replace_from])
    ctx.first_index, ctx.lines_before, ctx.before_source = 0, None, None
    ctx.speakers_before = frozenset()


def _group_before_weighed(store: FileStore, ctx: TurnContext) -> None:
    """A group speaker's ctx.lines_before weighed as its prompt shows those lines; the whole
    session read when the file no longer holds what the turn read."""
    if not (ctx.speaker and ctx.lines_before and ctx.before_source is not None
            and is_group(ctx.instance_state)):
        return
    weighed = group_before_for_speaker(
        store, state=ctx.instance_state, character=ctx.character,
        speaker_id=ctx.speaker.character_id, source=ctx.before_source,
        before=ctx.lines_before, persona=persona_effective(
            store, owner=ctx.instance_state.get("owner"),
            persona_id=ctx.instance_state.get("persona_id")),
        every_named=ctx.speaker.reason == "impersonate")
    if weighed is None:
        _session_whole(store, ctx)
    else:
        ctx.lines_before, ctx.speakers_before = weighed.lines_before, weighed.speakers


# --- preparing ---------------------------------------------------------------

def context_prepare(store: FileStore, ctx: TurnContext, timings: dict[str, float]) -> Prepared:
    warnings: list[dict[str, Any]] = [_corrupt_lines_warning(ctx)] if ctx.problems else []

    started = time.perf_counter()
    window, generation = turn_window(store, ctx.instance_state)
    section = turn_recall(store, ctx, memory_tokens=budgets_windowed(
        store.module_read("prompt").get("section_budgets") or {}, window)["recalled"])
    recall = section.report
    if recall.get("warning"):
        warnings.append(recall["warning"])
    timings["recall_ms"] = _ms(started)

    started = time.perf_counter()
    locale = locale_for_character(store, ctx.character)
    templates = templates_for(store).get(locale)
    director = turn_director(store, ctx, director_words(templates))
    if director and director.get("clamped"):
        warnings.append(_warning("outline_clamped",
                                 "当前剧情点超出新背景的大纲长度，已按最后一点处理",
                                 suggestion="检查实例的剧情进度"))
    timings["director_ms"] = _ms(started)

    started = time.perf_counter()
    lore = lore_for_turn(store, ctx, window)
    _group_before_weighed(store, ctx)

    def built(recall: dict[str, Any]) -> tuple[PromptInputs, PromptResult]:
        inputs = _prompt_inputs(store, ctx, director, recall, lore, locale=locale, window=window)
        return inputs, prompt_build(inputs, templates)

    inputs, prompt = built(recall)
    if prompt.lines_missing:
        _session_whole(store, ctx)
        inputs, prompt = built(recall)
    unshown = recall_unshown(section, prompt.messages, shown_as=recall_shown_as(
        store, ctx, player_name=inputs.user_name))
    if unshown is not None:  # the conversation shows some of it: recall others instead
        section = unshown
        inputs, prompt = built(section.report)
    while (smaller := recall_shrunk(section, prompt)) is not None:
        section = smaller
        inputs, prompt = built(section.report)
    recall = section.report
    # Recall gives way first; then, if still too big, the other members' joined cards.
    inputs, prompt = prompt_fitted(inputs, templates, built=prompt)
    prompt.messages = messages_processed(
        prompt.messages, mode=prompt_processing_for(store),
        opening=templates.default("opening_user"), user_name=inputs.user_name,
        character_name=inputs.character_name)
    timings["assemble_ms"] = _ms(started)
    first_included_keep(store, ctx, prompt.window)
    warnings.extend(prompt.warnings)
    outline = ctx.background.get("story_outline", [])
    llm_context = {
        "character_name": ctx.character.get("name") or ctx.instance_state.get("character_id"),
        "turn": ctx.turn,
        "plot_index": ctx.instance_state.get("plot_state", {}).get("current_plot_index", 1),
        "plot_status": ctx.instance_state.get("plot_state", {}).get("current_status"),
        "outline_length": len(outline) if director else 0,
        "user_text": ctx.user_text, "user_name": inputs.user_name,
        "group": ctx.speaker is not None,
        # Text completion stops at another member's "\nName:" (SillyTavern's group stops).
        "member_names": [m.name for m in members_of(store, ctx.instance_state)
                         if ctx.speaker and m.character_id != ctx.speaker.character_id],
        "continue_from": ctx.continue_from,
        # The chat's first message left out of the window: no first input / output sequence.
        "chat_start_cut": bool(prompt.window.get("first_included_message")),
        # How many earlier versions a regenerate keeps (the offline demo varies on it).
        "variant": len((ctx.reply_extra or {}).get("alternatives", [])) if not ctx.continue_from
        else 0,
        "generation": _stops_filled(generation, inputs.macros),
        **story_context(prompt, inputs.story),
        **chat_reply_shape(store),
    }
    return Prepared(prompt=prompt, recall=recall, director=director, lore=lore,
                    warnings=_dedupe(warnings), llm_context=llm_context, card=inputs.card)


def _prompt_inputs(store: FileStore, ctx: TurnContext, director: dict | None,
                   recall: dict[str, Any], lore: dict[str, Any], *, locale: str,
                   window: ContextWindow) -> PromptInputs:
    history = store.module_read("history")
    group = is_group(ctx.instance_state)
    member_names = (tuple(member.name for member in members_of(store, ctx.instance_state))
                    if group else ())
    pinned, _ = pinned_prompt_effective(
        store, instance_id=ctx.instance_id,
        character_id=ctx.speaker.character_id if ctx.speaker
        else ctx.instance_state.get("character_id", ""))
    prompt_settings = store.module_read("prompt")
    persona = persona_effective(store, owner=ctx.instance_state.get("owner"),
                                persona_id=ctx.instance_state.get("persona_id"))
    regex = turn_regex(store, ctx)
    card = scenario_overridden(card_fields_read(ctx.character, base_persona=ctx.character_state.get(
        "base_persona", "")), ctx.instance_state.get("scenario_override"))
    recaps = recap_items(store, instance_id=ctx.instance_id)
    if group:
        recaps = recaps_witnessed(store, instance_id=ctx.instance_id,
                                  character_id=speaker_id(ctx), items=recaps)
    story = story_choice_for(store, group=group, state=ctx.instance_state,
                             speaker_id=speaker_id(ctx), continuing=bool(ctx.continue_from))
    macros = _turn_macros(store, ctx, persona=persona, story=story, locale=locale)
    join = card_join_for_turn(
        store, state=ctx.instance_state, instance_id=ctx.instance_id, pick_seed=ctx.pick_chat,
        speaker_id=ctx.speaker.character_id if ctx.speaker and group else None, story=story,
        speaker_base_persona=ctx.character_state.get("base_persona", ""), user_name=macros["user"],
        time_zone=macros.get(TIME_ZONE, ""))
    return inputs_joined(PromptInputs(
        character_name=ctx.character.get("name") or ctx.instance_state.get("character_id", ""),
        user_name=persona["name"],
        persona_description=persona["description"]
        if persona["description_position"] == "prompt" else "",
        base_persona=card.description,
        evolved_persona=ctx.character_state.get("evolved_persona", ""),
        world_setting=ctx.background.get("world_setting", ""),
        background_name=ctx.background.get("name", ""),
        director=director,
        recalled=[] if window.memory_tokens <= 0 else _recalled(
            store, ctx, recall, persona=persona, locale=locale, macros=macros, regex=regex,
            member_names=member_names if group else None),
        pinned=pinned,
        recaps=[item["text"] for item in recaps],
        recap_spans=recap_spans(recaps, ctx.session_id),
        biography=[] if group else [item["text"] for item in biography_items(
            store, instance_id=ctx.instance_id, character_id=speaker_id(ctx))],  # §3.4: 1v1 only
        floating_blocks=_floating_blocks(store, ctx, lore, card=card, persona=persona,
                                         group=group, locale=locale),
        lines=_group_prompt_lines(store, ctx, persona=persona) if group else _prompt_lines(ctx),
        lines_before=ctx.lines_before, token_counts=ctx.token_counts,
        config=ctx.config,
        trimming={"max_messages": history.get("trim_max_messages", 10),
                  "max_chars": history.get("trim_max_chars", 4000)},
        section_budgets=prompt_settings.get("section_budgets", {}),
        locale=locale,
        state={"plot_state": ctx.instance_state.get("plot_state", {}), "turn": ctx.turn},
        macros=_with_outlets(macros, lore.get("outlets", {})),
        chat_variables=ctx.variables.local, global_variables=ctx.variables.shared,
        card=card, window=window, regex=regex,
        prompt_blocks=(ctx.instance_state.get("prompt_manager") or {}).get("blocks") or [],
        marker_order=tuple((ctx.instance_state.get("prompt_manager") or {}).get("markers") or ()),
        story=story, members=member_names,
        utility=chat_utility_for(store, state=ctx.instance_state, members=member_names,
                                 continuing=bool(ctx.continue_from),
                                 impersonating=bool(ctx.speaker
                                                    and ctx.speaker.reason == "impersonate")),
    ), join)



def _turn_macros(store: FileStore, ctx: TurnContext, *, persona: dict[str, Any], story: Any,
                 locale: str) -> dict[str, Any]:
    """The macros' values for this turn's prompt, the story string's own among them."""
    macros = macro_values_for(character=ctx.character, persona=persona, lines=ctx.lines[:-1],
                              scenario_override=ctx.instance_state.get("scenario_override"),
                              chat_id=ctx.pick_chat,
                              time_zone=player_time_zone(store, state=ctx.instance_state)
                              ) | {"model": model_current(store), MACRO: ctx.first_included}
    if ctx.redo == "regenerate":  # SillyTavern: the swipe being made, after the kept ones
        macros["currentSwipeId"] = macros["lastSwipeId"] = str(
            len(ctx.reply_extra.get("alternatives") or []) + 1)
    return template_macro_values(story, macros, system_default=templates_for(store).get(
        locale).default("text_system_prompt") or ST_SYSTEM_PROMPT) | macros


def _recalled(store: FileStore, ctx: TurnContext, recall: dict[str, Any], *,
              persona: dict[str, Any], locale: str, macros: dict[str, Any], regex: Any,
              member_names: tuple[str, ...] | None) -> list:
    """What recall found, as the prompt's entries (`member_names`: a group's, whose lines
    fill macros as each speaker)."""
    if member_names is not None:
        macros = recall_macros(store, state=ctx.instance_state, lines=[
            *({"role": "assistant", "speaker": s} for s in sorted(ctx.speakers_before)),
            *ctx.lines], macros=macros, member_names=member_names)
    return recalled_entries(
        recall, user_name=persona["name"], locale=locale,
        character_name=ctx.character.get("name") or ctx.instance_state.get("character_id", ""),
        macros=macros, regex=regex)


def _floating_blocks(store: FileStore, ctx: TurnContext, lore: dict[str, Any], *, card: Any,
                     persona: dict[str, Any], group: bool, locale: str) -> list:
    """The blocks placed at a depth of the chat: lore, the card's and the persona's depth
    prompts, and in a group who else is in the scene."""
    depth_prompt = [card.depth_prompt] if card.depth_prompt else []
    scene = scene_members_blocks(
        store, state=ctx.instance_state, instance_id=ctx.instance_id,
        speaker_id=ctx.speaker.character_id if ctx.speaker else None,
        speaker_name=ctx.character.get("name") or "", locale=locale) if group else []
    return [*lore["blocks"], *depth_prompt, *persona_depth_blocks(persona), *scene]


def _group_prompt_lines(store: FileStore, ctx: TurnContext, *, persona: dict[str, Any]) -> list:
    """A group's chat lines, each member's macros filled as that member."""
    own = lines_with_own_macros(
        store, state=ctx.instance_state, lines=ctx.lines, character=ctx.character,
        speaker_id=ctx.speaker.character_id if ctx.speaker else None, persona=persona)
    return _prompt_lines(dataclasses.replace(ctx, lines=own), player_name=persona["name"],
                         unnamed_name=unnamed_name(store, ctx.instance_state))

FILLED_STOP_MAX_CHARS = 2000  # a stop string as its macros fill it, as an instruct marker


def _stops_filled(generation: dict[str, Any], macros: dict[str, str]) -> dict[str, Any]:
    """The player's stop strings with their macros filled ("\\n{{user}}:"), as SillyTavern's
    custom stopping strings are at its default (`custom_stopping_strings_macro`)."""
    stops = generation.get("stop")
    if not stops or not any("{{" in stop or "<" in stop for stop in stops):
        return generation
    # Cut: a macro may fill one with a card field or a 100,000-character variable, and each is
    # sent to the server and read for its start at a reply's end (quadratic in its length).
    return {**generation, "stop": [macros_replace(stop, macros)[:FILLED_STOP_MAX_CHARS]
                                   for stop in stops]}


def _with_outlets(values: dict[str, str], outlets: dict[str, str]) -> dict[str, str]:
    return {**values, **outlet_macros(outlets, values)}


def _prompt_lines(ctx: TurnContext, *, player_name: str | None = None,
                  unnamed_name: str = "") -> list[dict[str, Any]]:
    if player_name is not None and ctx.speaker is not None:
        return lines_for_speaker(_prompt_lines(ctx), speaker_id=ctx.speaker.character_id,
                                 player_name=player_name,
                                 speaker_name=ctx.character.get("name") or "",
                                 unnamed_by=unnamed_lines_by(ctx.instance_state),
                                 unnamed_name=unnamed_name,
                                 every_named=ctx.speaker.reason == "impersonate")
    # The pipeline keeps only messages and summaries itself, walking from the newest back.
    if ctx.continue_from:
        # The reply being continued is the speaker's own (in a group, read as another
        # member's it went out as the first member's line, for the speaker to go on with).
        own = ({"speaker": ctx.speaker.character_id, "name": ctx.character.get("name") or ""}
               if ctx.speaker is not None else {})
        return [*ctx.lines, {"role": "assistant", "content": ctx.continue_from,
                             "turn": ctx.turn, **own}]
    return ctx.lines


def _warning(category: str, message: str, *, current_value: Any = None, threshold: Any = None,
             suggestion: str = "") -> dict[str, Any]:
    return {"type": "warning", "category": category, "message": message,
            "current_value": current_value, "threshold": threshold, "suggestion": suggestion}


def _corrupt_lines_warning(ctx: TurnContext) -> dict[str, Any]:
    return _warning("corrupt_session_lines",
                    f"会话文件中有 {len(ctx.problems)} 行无法读取，已跳过（文件未被修改）",
                    current_value=len(ctx.problems), suggestion="; ".join(ctx.problems[:3]))


def _dedupe(warnings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_category: dict[str, dict[str, Any]] = {}
    for warning in warnings:
        by_category[warning.get("category", "")] = warning
    return list(by_category.values())


# --- trace and after-turn work -----------------------------------------------

def trace_start(ctx: TurnContext, prepared: Prepared, *, trace_id: str,
                provider: Provider, created_at: str) -> dict[str, Any]:
    prompt = prepared.prompt
    return {
        "trace_id": trace_id,
        "instance_id": ctx.instance_id,
        "session_id": ctx.session_id,
        "turn": ctx.turn,
        "created_at": created_at,
        "request": {"query": ctx.user_text, "provider": provider.name,
                    "model": getattr(provider, "model", ""),
                    "generation": prepared.llm_context.get("generation", {}),
                    **text_trace_note(provider, prepared.llm_context)},
        "retrievals": prepared.recall,
        "director_context": prepared.director,
        "plot_state_before": ctx.plot_state_before,
        "lore": {"fired": prepared.lore["fired"], "dropped": prepared.lore["dropped"],
                 "problems": prepared.lore.get("problems", [])},
        "sections": [
            {"name": s.name, "region": s.region, "tokens": s.tokens, "chars": s.chars,
             "cut": s.cut, "omitted": s.omitted, "note": s.note, "text": s.text}
            for s in prompt.sections
        ],
        "total_tokens": prompt.total_tokens,
        "middle_tokens": prompt.middle_tokens,
        "max_total_tokens": ctx.config["limits"]["max_total_tokens"],
        "dropped_blocks": prompt.dropped_blocks, "window": prompt.window,
        "warnings": prepared.warnings,
        # The conversation is referred to in the session, not copied (chat.services.trace_rebuild).
        **conversation_refer(prompt.messages, ctx.lines, session_id=ctx.session_id,
                             first_index=ctx.first_index),
        "card_fields": card_fields_placement(prepared.card, [
            {"name": s.name, "note": s.note} for s in prompt.sections],
            (ctx.instance_state.get("prompt_manager") or {}).get("blocks") or []),
        "session_problems": ctx.problems,
        **({"card_join": prompt.card_join} if prompt.card_join else {}),
        **({"speaker": {"character_id": ctx.speaker.character_id,
                        "name": ctx.character.get("name") or ctx.speaker.character_id,
                        "reason": ctx.speaker.reason}} if ctx.speaker else {}),
    }


def memory_after_turn(store: FileStore, ctx: TurnContext, reply: dict[str, Any]) -> None:
    """Off the hot path: the turn's lines keyword-searchable at once, then the full sync. A
    group's round is one turn and one document: the replies before this one in it go too, or
    the document would hold this reply alone."""
    turn = []  # the player's line, and in a round the replies before this one
    for line in reversed(ctx.lines):
        if line.get("turn") != reply.get("turn") or line.get("role") not in ("user", "assistant"):
            break
        turn.insert(0, line)
    memory_runtime.turn_lines_live(
        store, instance_id=ctx.instance_id, session_id=ctx.session_id, lines=[*turn, reply],
        round_on=not ctx.redo and any(line.get("role") == "assistant" for line in turn))
    memory_runtime.schedule_sync(store, instance_id=ctx.instance_id)


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 2)
