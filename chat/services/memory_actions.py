"""Summarize and update-memory as one locked action (user-triggered, seeds/personalab-flow.md);
used by the REST routes (chat/api/memory.py) and the chat page."""

from __future__ import annotations

import contextlib

from asgiref.sync import sync_to_async
from django.utils.translation import gettext_noop

from chat.play.account_turns import account_turn_awaited
from chat.play.context import provider_current
from chat.play.regex_scripts import lines_for_model
from chat.play.window import turn_window
from chat.prompt.window import ContextWindow
from chat.services.index import instance_index
from memory import runtime
from memory.character.evolved_persona import memory_update_persona
from memory.summaries.summarize import memory_summarize
from personalab.lib.llm_capped import ReplyCapped
from personalab.lib.locks import lock_awaited
from personalab.lib.uncancelled import thread_whole
from personalab.storage import get_store


async def provider_fitted(store, instance_id: str) -> tuple[ReplyCapped, ContextWindow]:
    """The model as a memory action asks it: its reply capped to what the chat's window leaves.
    A long chat is asked in parts (summarize, recaps) or its newest turns (update memory) that
    each fit `window.prompt_room`, the room a turn's prompt has."""
    window, _ = await thread_whole(
        lambda: turn_window(store, store.instance_state_read(instance_id)))
    return (ReplyCapped(provider_current(store), window_tokens=window.tokens, least=window.reply),
            window)


async def memory_action(instance_id: str, action: str, progress=None, *,
                        character_id: str | None = None) -> dict:
    """Run summarize / update_memory under the instance lock (the chat is locked meanwhile).
    `character_id`: the member whose evolved persona update_memory grows (default: the
    instance's character)."""
    store = get_store()
    held = contextlib.AsyncExitStack()  # the lock, then the account's count
    await held.enter_async_context(lock_awaited(store.instance_lock(instance_id)))
    try:
        await held.enter_async_context(account_turn_awaited(store, instance_id))  # at once
    except BaseException:  # AccountTurnsBusy, or the request cancelled meanwhile
        await held.aclose()
        raise
    progress = progress or (lambda text, values=None: runtime.progress_set(instance_id, text,
                                                                           values))
    progress(gettext_noop("Starting") if action == "summarize"
             else gettext_noop("Updating the memory"))
    try:
        provider, window = await provider_fitted(store, instance_id)
        shown = await thread_whole(lambda: lines_for_model(
            store, state=store.instance_state_read(instance_id), character_id=character_id))
        if action == "summarize":
            index, warning = runtime.index_or_warning(store)
            result = await memory_summarize(store, instance_id=instance_id, llm=provider,
                                            index=index, progress=progress,
                                            prompt_tokens=window.prompt_room, shown=shown)
            if warning:
                result.setdefault("warnings", []).append(warning)
        else:
            last_n = store.module_read("memory").get("update_memory_last_n_turns", 20)
            result = await memory_update_persona(store, instance_id=instance_id, llm=provider,
                                                 last_n_turns=last_n, character_id=character_id,
                                                 prompt_tokens=window.prompt_room, shown=shown)
    finally:
        await held.aclose()
        runtime.progress_set(instance_id, None)
    # A server killed before this line: instances_index_catch_up at its next start.
    await sync_to_async(instance_index)(store, instance_id)
    return result
