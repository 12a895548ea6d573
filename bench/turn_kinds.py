"""The other kinds of turn on a chat, each timed as one action (bench/summary_growth.py
--old-session N --action KIND): what a player does besides sending a line, on an old session.

    plain        a player's line and its reply (turn_run)
    regenerate   the last reply asked for again (turn_run regenerate=True)
    continue     the last reply carried on (turn_run continue_reply=True)
    swipe        another version of the last reply shown (reply_choose_alternative)
    impersonate  a line suggested for the player (impersonate_run)
    aside        a question to the character outside the story (aside_run)
    group        a player's line in a chat of two characters, a round of replies
    inspector    the last turn's prompt as the inspector shows it (trace_rebuild)

Django must be set up before these run (the app's modules are imported inside the functions,
as in turn_overhead.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from turn_overhead import InstantProvider, line_text

ACTIONS = ("plain", "regenerate", "continue", "swipe", "impersonate", "aside", "group",
           "inspector")


async def _emit(event: dict) -> None:
    return None


def _run(work) -> object:
    return asyncio.run(work)


def _turn(store, instance_id: str, turn: int, **kind) -> object:
    from chat.play.turn import turn_run

    return _run(turn_run(store, instance_id=instance_id, emit=_emit,
                         user_text="" if kind else line_text(turn, "user"),
                         provider=InstantProvider(), **kind))


def _last_reply(store, instance_id: str) -> dict:
    state = store.instance_state_read(instance_id)
    read = store.session_read(instance_id, state["current_session_id"], newest=1)
    return read.messages[-1]


def action_prepare(store, instance_id: str, action: str, *, owner, extra_character: str
                   ) -> Callable[[int], object]:
    """What one action does on the chat (called with a turn number), after what it needs is
    set up: a second version of the last reply to swipe to, a second member for a group."""
    if action == "regenerate":
        return lambda turn: _turn(store, instance_id, turn, regenerate=True)
    if action == "continue":
        return lambda turn: _turn(store, instance_id, turn, continue_reply=True)
    if action == "swipe":
        return _swipe_prepare(store, instance_id)
    if action == "impersonate":
        from chat.play.impersonate import impersonate_run

        return lambda turn: _run(impersonate_run(store, instance_id=instance_id, emit=_emit,
                                                 provider=InstantProvider()))
    if action == "aside":
        from chat.play.aside import aside_run

        return lambda turn: _run(aside_run(store, instance_id=instance_id, speaker=None,
                                           content=line_text(turn, "user"), emit=_emit,
                                           provider=InstantProvider()))
    if action == "group":
        return _group_prepare(store, instance_id, owner=owner, extra_character=extra_character)
    if action == "inspector":
        from chat.services.traces import trace_rebuild

        trace_id = _turn(store, instance_id, 0).trace_id
        return lambda turn: trace_rebuild(store, instance_id=instance_id, trace_id=trace_id)
    return lambda turn: _turn(store, instance_id, turn)


def _swipe_prepare(store, instance_id: str) -> Callable[[int], object]:
    from chat.history_manager.edits import reply_choose_alternative

    _turn(store, instance_id, 0, regenerate=True)  # a second version to flip to
    last = _last_reply(store, instance_id)["turn"]  # the page sends it

    def swipe(turn: int) -> object:
        state = store.instance_state_read(instance_id)
        return reply_choose_alternative(store, instance_id=instance_id,
                                        session_id=state["current_session_id"], turn=last,
                                        alternative_index=0)

    return swipe


def _group_prepare(store, instance_id: str, *, owner, extra_character: str
                   ) -> Callable[[int], object]:
    from chat.groups.round import conversation_turn
    from chat.services.members import instance_member_add

    instance_member_add(store, user=owner, instance_id=instance_id,
                        character_id=extra_character)
    return lambda turn: _run(conversation_turn(store, instance_id=instance_id,
                                               user_text=line_text(turn, "user"), emit=_emit,
                                               provider=InstantProvider()))


def action_timed(act: Callable[[int], object], turn: int) -> tuple[float, float]:
    """(wall ms, CPU ms of the whole process, its worker threads included)."""
    started, cpu = time.perf_counter(), time.process_time()
    act(turn)
    return (time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000
