"""What every memory action shares: the character's name and prompt locale, the model call,
the session's messages grouped by turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from django.utils.translation import gettext

from library.selectors import character_for_chat_optional, player_name
from memory.errors import MemoryActionError
from personalab.lib.filestore.session_read import SessionRead
from personalab.lib.filestore.store import FileStore
from personalab.lib.llm import LLMError
from personalab.lib.participants import member_ids
from personalab.lib.prompt_language import locale_for_character
from personalab.lib.uncancelled import run_whole, thread_whole


def speaker_named(store: FileStore, state: dict[str, Any],
           character_id: Any = None) -> tuple[str, str]:
    """(name, prompt locale) of the chat's character, or of member `character_id`, as the chat
    may read it (a kept copy once its author made it private)."""
    character_id = str(character_id or state.get("character_id") or "")
    character = character_for_chat_optional(store, state=state, character_id=character_id)
    return (str(character.get("name") or character_id or "角色"),
            locale_for_character(store, character))


async def speaker_of(store: FileStore, state: dict[str, Any],
                   character_id: Any = None) -> tuple[str, str]:
    # off the event loop: whether the chat may read another author's file asks the database
    return await thread_whole(speaker_named, store, state, character_id)


def scene_named(store: FileStore, state: dict[str, Any]) -> tuple[dict[str, str], str]:
    """({member id: name} in list order, the player's name) of a conversation, as its
    requests to the model name them."""
    members = {member: speaker_named(store, state, member)[0] for member in member_ids(state)}
    return members, player_name(store, state=state)


async def scene_of(store: FileStore, state: dict[str, Any]) -> tuple[dict[str, str], str]:
    return await thread_whole(scene_named, store, state)  # as speaker_of


async def player_of(store: FileStore, state: dict[str, Any]) -> str:
    """The player's name in the chat (its `{{user}}`), off the event loop as speaker_of."""
    return await thread_whole(player_name, store, state=state)


async def llm_text(llm: Any, messages: list[dict], context: dict[str, Any]) -> str:
    try:
        text = await llm.complete(messages, context=context)
    except LLMError as exc:
        raise MemoryActionError(gettext("The model call failed; nothing was changed: %(error)s")
                                % {"error": exc.message}) from exc
    return text if isinstance(text, str) else ""


def int_setting(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


# How the chat's prompt shows session lines to the model: the chat layer's regex scripts run on
# them (chat/play/regex_scripts.py `lines_for_model`); None keeps them as stored.
T = TypeVar("T")
LinesShown = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


def lines_shown(lines: list[dict[str, Any]], shown: LinesShown | None) -> list[dict[str, Any]]:
    """`lines` as a request to the model shows them (only the request: files keep them)."""
    return shown(lines) if shown is not None and lines else lines


async def lines_shown_off_loop(lines: list[dict[str, Any]],
                               shown: LinesShown | None) -> list[dict[str, Any]]:
    """`lines_shown` for a coroutine: the scripts may take their whole budget (a second) and a
    session's lines are many, so they run on a thread, not on the loop every account shares."""
    if shown is None or not lines:
        return lines
    return await thread_whole(shown, lines)


async def thread_writes_whole(write: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`write(*args, **kwargs)` on a thread, run to its end even when the awaiting request is
    cancelled meanwhile (its client gone; the cancellation is raised after): the caller
    releases the instance lock only once a memory action's writes are done."""
    return await run_whole(asyncio.to_thread(write, *args, **kwargs))


def session_messages(session: SessionRead) -> list[dict[str, Any]]:
    """Finished user/assistant lines the player did not hide, plus a line a crash left
    unfinished (kept, marked)."""
    messages = list(session.messages_shown_to_model)
    if session.partial:
        messages.append({**session.partial, "interrupted": True})
    return messages


def turn_groups(messages: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    groups: dict[int, list[dict[str, Any]]] = {}
    for line in messages:
        turn = line.get("turn")
        if isinstance(turn, int) and not isinstance(turn, bool):
            groups.setdefault(turn, []).append(line)
    return list(groups.values())


def main_character(store: FileStore, instance_id: str) -> str:
    return str(store.instance_state_read(instance_id).get("character_id") or "")

