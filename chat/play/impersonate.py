"""Impersonate (SillyTavern's button beside Send, `/impersonate`): the model writes a suggestion
for the player's next message, from the prompt a turn would send (persona as {{user}}, the
card, lore, the history) with the impersonation instruction as its last system message.

The suggestion goes to the player's input box only: nothing is written to the session file,
and lore timers do not advance. The finished suggestion gets the user-input regex scripts (not
prompt-only nor markdown-only ones), as SillyTavern's `cleanUpMessage` runs them on an
impersonation; sending it runs them again, as SillyTavern's `sendMessageAsUser` does. Then
the names, as there: it stops where the character's line starts, and the player's own `Name:`
goes (chat/play/reply_clean.py); while it streams, each event carries the text so far cleaned
so, as SillyTavern shows it in the input box. The instance lock is held as for a turn, so a
suggestion never runs beside a reply (and a reply never starts while one is written).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from chat.groups.members import is_group
from chat.groups.speakers import Pick
from chat.play import context as turn_context
from chat.play.aside import until_stopped
from chat.play.macros import player_time_zone
from chat.play.prompt_refusal import prompt_refusal_said
from chat.play.regex_scripts import turn_regex
from chat.play.reply_clean import reply_names, suggestion_cleaned
from chat.play.reply_limit import pieces_capped
from chat.play.story_choice import text_completion_on
from chat.play.turn import Emit, TurnRefused, instance_locked
from library.errors import ItemWithheld
from library.find_replace.scripts import USER_INPUT, RegexRun
from library.selectors import persona_effective
from personalab.lib.filestore.store import FileStore
from personalab.lib.llm import Provider
from personalab.lib.macros import macros_replace
from personalab.lib.prompt_language import locale_for_character
from personalab.lib.reasoning import Reasoning
from personalab.lib.store_errors import StoreError
from personalab.lib.uncancelled import thread_whole

PROMPT_SETTING = "impersonation_prompt"  # in modules/prompt.json; "" = the template's default
PROMPT_MAX_CHARS = 4000


@dataclass
class ImpersonateResult:
    text: str
    error: str | None = None
    stopped: bool = False
    truncated: bool = False

    def done_event(self) -> dict[str, Any]:
        return {"type": "impersonate_done", "content": self.text, "error": self.error,
                "stopped": self.stopped, "truncated": self.truncated}


@dataclass
class ImpersonatePlan:
    messages: list[dict[str, Any]]
    llm_context: dict[str, Any]
    regex: RegexRun = field(default_factory=RegexRun)


def impersonation_prompt_error(value: Any) -> str:
    """"" when `value` may be saved as the impersonation instruction, else what is wrong."""
    if not isinstance(value, str):
        return "must be text"
    if len(value) > PROMPT_MAX_CHARS:
        return f"must be at most {PROMPT_MAX_CHARS} characters"
    return ""


def impersonation_instruction(store: FileStore, *, locale: str,
                              state: dict[str, Any] | None = None) -> str:
    """The chat's prompt manager's own (a SillyTavern preset's `impersonation_prompt`, or set
    among its utility prompts; emptied there: none), else the setting when one is saved (and
    valid), else the prompt language's default."""
    own = ((state or {}).get("prompt_manager") or {}).get("utility") or {}
    if isinstance(own.get(PROMPT_SETTING), str):  # "" (emptied): none sent, as SillyTavern
        return own[PROMPT_SETTING]
    saved = store.module_read("prompt").get(PROMPT_SETTING)
    if isinstance(saved, str) and saved.strip() and not impersonation_prompt_error(saved):
        return saved
    return turn_context.templates_for(store).get(locale).default(PROMPT_SETTING)


def impersonate_plan(store: FileStore, *, instance_id: str) -> ImpersonatePlan:
    """The turn's prompt for the lines already there, plus the instruction (files, recall and
    DB: run it off the event loop, holding the instance lock)."""
    state = store.instance_state_read(instance_id)
    # In a group every member's line is a character's turn, named (chat/groups/prompt.py
    # lines_for_speaker's every_named); the first member's card is the one the prompt holds.
    speaker = (Pick(character_id=str(state.get("character_id") or ""), reason="impersonate")
               if is_group(state) else None)
    try:
        ctx = turn_context.context_load(store, instance_id=instance_id, user_text="",
                                        trigger=True, speaker=speaker)
    except ItemWithheld as exc:
        raise TurnRefused(str(exc), code=exc.code, status=exc.status) from None
    except (StoreError, ValueError) as exc:
        raise TurnRefused(f"the suggestion cannot start: {exc}", code="unreadable",
                          status=500) from None
    ctx.dry_run = True
    prepared = turn_context.context_prepare(store, ctx, {})
    if prepared.prompt.refused:
        raise TurnRefused(prompt_refusal_said(prepared.prompt), code="prompt_too_long", status=422)
    persona = persona_effective(store, owner=state.get("owner"),
                                persona_id=state.get("persona_id"))
    locale = locale_for_character(store, ctx.character)
    # SillyTavern's impersonation prompt is Chat Completion's: a text prompt ends on the
    # player's own turn marker and name, which is the instruction there.
    instruction = "" if text_completion_on(store) else macros_replace(
        impersonation_instruction(store, locale=locale, state=state),
        turn_context.macro_values_for(character=ctx.character, persona=persona,
                                      lines=ctx.lines,
                                      time_zone=player_time_zone(store, state=state)))
    return ImpersonatePlan(
        messages=[*prepared.prompt.messages,
                  *([{"role": "system", "content": instruction}] if instruction.strip() else [])],
        llm_context={**prepared.llm_context, "task": "impersonate",
                     "user_name": persona["name"]},
        regex=turn_regex(store, ctx))


async def impersonate_run(store: FileStore, *, instance_id: str, emit: Emit,
                          provider: Provider | None = None,
                          stop: asyncio.Event | None = None) -> ImpersonateResult:
    """Stream a suggestion as `impersonate_token` events (`content`: the text that came since
    the last one; `text`: the whole suggestion so far as the box shows it, cleaned as the
    finished one is); returns it whole. Refused (busy, prompt too long) before anything
    streams; a failing LLM ends in a result with `error`; `stop` ends it early, keeping what
    came."""
    async with instance_locked(store, instance_id):
        plan = await thread_whole(impersonate_plan, store, instance_id=instance_id)
        provider = provider or await thread_whole(turn_context.provider_current, store)
        # The template may be read from the files: off the event loop.
        names = await thread_whole(reply_names, plan.llm_context, provider,
                                        impersonate=True)
        shape = plan.llm_context.get("reply_shape")
        pieces: list[str] = []
        flags: dict[str, Any] = {}

        async def read(fresh: list[str], wake: asyncio.Event) -> None:
            try:
                async for piece in pieces_capped(
                        provider.stream(plan.messages, context=plan.llm_context),
                        limit=settings.PERSONALAB_MAX_MESSAGE_CHARS, flags=flags):
                    if isinstance(piece, Reasoning) or not piece:
                        continue
                    pieces.append(piece)
                    fresh.append(piece)
                    wake.set()
            finally:
                fresh.append("")  # the end
                wake.set()

        async def pump() -> None:
            # What came while the last text was cleaned goes out in one event (user regex
            # scripts run on the whole text: once per event, on a thread).
            fresh: list[str] = []
            wake = asyncio.Event()
            reader = asyncio.create_task(read(fresh, wake))
            try:
                while True:
                    await wake.wait()
                    wake.clear()
                    ended = bool(fresh) and fresh[-1] == ""
                    came = "".join(fresh)
                    fresh.clear()
                    if came:
                        text = await thread_whole(
                            suggestion_cleaned, "".join(pieces), names=names, run=plan.regex,
                            shape=shape, final=False)
                        await emit({"type": "impersonate_token", "content": came, "text": text})
                    if ended:
                        await reader  # its failure, raised here
                        return
            finally:
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reader

        error, stopped = await until_stopped(pump(), stop or asyncio.Event())
        text = "".join(pieces)
        if error:
            if plan.regex and text:
                text = await thread_whole(plan.regex.text, text, USER_INPUT)
        else:
            text = await thread_whole(suggestion_cleaned, text, names=names,
                                           run=plan.regex, shape=shape, final=not stopped)
    return ImpersonateResult(text=text, error=error, stopped=stopped,
                             truncated=bool(flags.get("truncated")))
