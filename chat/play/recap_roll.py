"""The rolling recap a finished turn may start (seeds/history-recap-system.md): its model call
runs after the reply, and the turn waits for it only PERSONALAB_RECAP_WAIT_SECONDS (2 s). A slow
or hanging model held the end of every fifth reply (the WebSocket's `done`, so the player's next
message) up to the model's timeout, 60 s by default; past the wait the roll goes on by itself and
tells the player of a failure when it comes. A failure never fails the turn: the next roll takes
those turns again (memory/summaries/recaps.py, CATCH_UP_ROLLS)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Awaitable, Callable

from django.conf import settings

from chat.play import context as turn_context
from chat.play.account_turns import AccountTurnsBusy, account_turn_awaited
from chat.play.regex_scripts import lines_for_model
from chat.play.window import turn_window
from chat.selectors import memory_settings_effective
from memory.summaries.recaps import recap_failed_warning, recap_maybe_roll
from personalab.lib.filestore.store import FileStore
from personalab.lib.llm import Provider
from personalab.lib.llm_capped import ReplyCapped

log = logging.getLogger(__name__)

Emit = Callable[[dict[str, Any]], Awaitable[None]]

# The roll of each instance still running after its turn ended: one at a time, so two rolls
# never write the recaps over each other; a turn that finds one running starts none.
_rolling: dict[str, asyncio.Task] = {}


async def recaps_roll(store: FileStore, instance_id: str, provider: Provider | None,
                      emit: Emit | None = None) -> None:
    """The turn's recap roll, waited for at most PERSONALAB_RECAP_WAIT_SECONDS (a model that
    answers at once is waited for, so its warning comes before the turn's end); the rest runs on
    (kept in `_rolling`) and is not cancelled when the turn's caller goes."""
    running = _rolling.get(instance_id)
    loop = asyncio.get_running_loop()
    if running is not None and not running.done() and running.get_loop() is loop:
        return
    task = loop.create_task(recaps_roll_now(store, instance_id, provider, emit))
    _rolling[instance_id] = task
    task.add_done_callback(lambda ended: _rolled(instance_id, ended))
    # asyncio.wait, not wait_for: when the time is up it neither raises nor cancels the roll.
    await asyncio.wait({task}, timeout=settings.PERSONALAB_RECAP_WAIT_SECONDS)


def _rolled(instance_id: str, task: asyncio.Task) -> None:
    if _rolling.get(instance_id) is task:
        del _rolling[instance_id]


async def recaps_roll_now(store: FileStore, instance_id: str, provider: Provider | None,
                          emit: Emit | None = None) -> None:
    """Optional rolling recaps; a failure never fails the turn, and the player hears of it
    (`emit`): the next roll takes those turns again."""
    settings_ = memory_settings_effective(store)
    if not settings_.get("recaps_enabled"):
        return
    # The roll calls the model after its turn gave back the account's count (ninth red-team
    # pass: a flood of fifth turns ran their rolls uncounted). One refused is skipped: the next
    # roll takes those turns too.
    held = contextlib.AsyncExitStack()
    try:
        await held.enter_async_context(account_turn_awaited(store, instance_id))
    except AccountTurnsBusy:
        log.info("recap roll of %s skipped: its account has its replies at once", instance_id)
        return
    async with held:
        await _rolled_now(store, instance_id, provider, emit, settings_)


async def _rolled_now(store: FileStore, instance_id: str, provider: Provider | None,
                      emit: Emit | None, settings_: dict[str, Any]) -> None:
    try:
        state = await asyncio.to_thread(store.instance_state_read, instance_id)
        window, _ = await asyncio.to_thread(turn_window, store, state)
        shown = await asyncio.to_thread(lambda: lines_for_model(store, state=state))
        llm = ReplyCapped(provider or turn_context.provider_current(store),
                          window_tokens=window.tokens, least=window.reply)
        done = await recap_maybe_roll(store, instance_id=instance_id, llm=llm,
                                      settings=settings_, prompt_tokens=window.prompt_room,
                                      shown=shown)
    except Exception as exc:  # noqa: BLE001
        log.exception("recap roll failed for %s", instance_id)
        done = {"action": "failed", "message": str(exc) or type(exc).__name__}
    if emit is not None and done and done.get("action") == "failed":
        await emit(recap_failed_warning(done))
