"""A round of replies in a conversation with several characters: who speaks next
(chat.groups.speakers), then each reply streamed file-first as a turn, all under one instance lock.
`reply_order` in instance_state.json is one of chat.groups.speakers.STRATEGIES (default natural).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from chat.groups.members import is_group, members_of
from chat.groups.speakers import Member, Pick, SpeakerError, speakers_pick
from chat.play import turn
from chat.play.line_limit import line_said
from chat.play.recap_roll import recaps_roll
from chat.play.regex_scripts import player_line_regexed
from chat.play.turn import Emit, TurnRefused, TurnResult
from chat.play.variables import stored_macros_fill
from chat.selectors import character_avatar_url
from library.selectors import player_name
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.store import FileStore
from personalab.lib.letter_colours import letter_class
from personalab.lib.line_macros import macros_in
from personalab.lib.llm import Provider
from personalab.lib.membership import member_change_recover
from personalab.lib.uncancelled import thread_whole


@dataclass
class RoundPlan:
    picks: list[Pick]
    members: list[Member]


def round_plan(store: FileStore, *, instance_id: str, user_text: str | None,
               speaker: str | None) -> RoundPlan:
    """Who answers: the player's message (None for a trigger) and the last speaker decide."""
    state = store.instance_state_read(instance_id)
    members = members_of(store, state)
    read = store.session_read(instance_id, state["current_session_id"], cached=True)
    last_speaker = next((line.get("speaker") for line in reversed(read.lines)
                         if line.get("role") == "assistant"), None)
    last_message = user_text if user_text is not None else next(
        (str(line.get("content", "")) for line in reversed(read.lines) if line.get("role")), "")
    try:
        picks = speakers_pick(members, strategy=state.get("reply_order") or "natural",
                              last_message=last_message, last_speaker=last_speaker,
                              requested=speaker, player_spoke_last=_player_spoke_last(
                                  read.lines, user_text),
                              allow_self_responses=state.get("allow_self_responses") is True)
    except SpeakerError as exc:
        refused = TurnRefused(str(exc), code="bad_request", status=400)
        if speaker is not None:  # a pick is judged before the order: the pick is at fault
            refused.fields = {"speaker": str(exc)}
        raise refused from None
    return RoundPlan(picks=picks, members=members)


def _player_spoke_last(lines: list[dict], user_text: str | None) -> bool:
    if user_text is not None:
        return True
    last = next((line for line in reversed(lines) if line.get("role")), None)
    return bool(last and last.get("role") == "user")


async def conversation_turn(store: FileStore, *, instance_id: str, user_text: str | None,
                            emit: Emit, stop: asyncio.Event | None = None,
                            provider: Provider | None = None,
                            speaker: str | None = None) -> list[TurnResult]:
    """The player's message (or, with user_text None, a trigger) and the replies it gets.
    A one-character conversation without a speaker is exactly turn_run."""
    if user_text is not None:
        user_text = turn.validate_user_text(user_text)
    stop = stop or asyncio.Event()
    async with turn.instance_locked(store, instance_id):
        ready = await line_said(thread_whole(_turn_begin, store, instance_id=instance_id,
                                             user_text=user_text, speaker=speaker,
                                             provider=provider))
        if ready is not None:
            results = [await turn.turn_locked(
                store, instance_id=instance_id, user_text=user_text or "", emit=emit,
                stop=stop, provider=provider, regenerate=False, continue_reply=False,
                ready=ready)]
        else:
            results = await _round_locked(store, instance_id=instance_id, user_text=user_text,
                                          emit=emit, stop=stop, provider=provider,
                                          speaker=speaker)
    await recaps_roll(store, instance_id, provider, emit)
    return results


def _turn_begin(store: FileStore, *, instance_id: str, user_text: str | None,
                speaker: str | None, provider: Provider | None) -> turn.Ready | None:
    """Finish a member change cut short by a crash; then, for a one-character conversation,
    everything before its request in this same worker hop (each hop is a thread wake-up before
    the first token). None: a round of several speakers follows."""
    member_change_recover(store, instance_id)
    state = store.instance_state_read(instance_id)
    if "round_cut" in state or "round_going" in state:  # a new round: the last one's notes
        state = {key: value for key, value in state.items()
                 if key not in ("round_cut", "round_going")}
        store.instance_state_write(instance_id, state)
    if speaker is not None or user_text is None or is_group(state):
        return None
    return turn.turn_ready(store, instance_id=instance_id, user_text=user_text,
                           provider=provider)


async def _round_locked(store: FileStore, *, instance_id: str, user_text: str | None,
                        emit: Emit, stop: asyncio.Event, provider: Provider | None,
                        speaker: str | None) -> list[TurnResult]:
    plan = await thread_whole(round_plan, store, instance_id=instance_id,
                                   user_text=user_text, speaker=speaker)
    if not plan.picks:
        if user_text is not None:
            await thread_whole(_user_line_append, store, instance_id, user_text)
        return []
    names = {m.character_id: m.name for m in plan.members}
    results: list[TurnResult] = []
    try:
        await _members_answer(store, instance_id=instance_id, user_text=user_text, emit=emit,
                              stop=stop, provider=provider, plan=plan, names=names,
                              results=results)
    finally:
        if len(plan.picks) > 1:
            await thread_whole(_round_going_note, store, instance_id, None)
    unanswered = [names.get(p.character_id, p.character_id) for p in plan.picks[len(results):]]
    if stop.is_set() and unanswered:
        # Stopped, or the page closed or reloaded (a phone locking its screen): the page says
        # who never answered until the next round starts.
        await thread_whole(_round_cut_note, store, instance_id, unanswered)
        if results:  # the page that stopped it says so at once, as a reload does
            results[-1].unanswered = unanswered
    return results


async def _members_answer(store: FileStore, *, instance_id: str, user_text: str | None,
                          emit: Emit, stop: asyncio.Event, provider: Provider | None,
                          plan: RoundPlan, names: dict[str, str],
                          results: list[TurnResult]) -> None:
    """Each picked member's reply in turn, added to `results` as it ends."""
    for index, pick in enumerate(plan.picks):
        if stop.is_set():
            return
        # The picture too: the member's bubble opens named and pictured, before any token.
        avatar = await thread_whole(character_avatar_url, store, pick.character_id)
        name = names.get(pick.character_id, pick.character_id)
        await emit({"type": "speaker", "speaker": pick.character_id, "name": name,
                    "avatar": avatar, "letter": letter_class(name), "reason": pick.reason})
        first = index == 0 and user_text is not None
        try:
            result = await turn.turn_locked(
                store, instance_id=instance_id, user_text=user_text if first else "",
                emit=emit, stop=stop, provider=provider, regenerate=False,
                continue_reply=False, speaker=pick, trigger=not first,
                # A round is one turn: the director counts a miss per round, not per reply,
                # and the members after the first answer in the first one's turn.
                director_counts_miss=index == 0, in_round=index > 0)
        except TurnRefused:
            if not results:
                raise
            return
        results.append(result)
        if index == 0 and len(plan.picks) > 1:
            await thread_whole(_round_going_note, store, instance_id, result)
        if index < len(plan.picks) - 1 and not stop.is_set():
            await emit({**result.done_event(), "speaker": pick.character_id, "round_end": False})


def _round_going_note(store: FileStore, instance_id: str, first: TurnResult | None) -> None:
    """Note, once the first reply is in, that the round's turn still has members to answer
    (`GET …/current_response` says it is streaming while the lock is held); None: it ended.
    A note a crash left is cleared when the next round starts, and means nothing meanwhile:
    nobody holds the lock."""
    state = store.instance_state_read(instance_id)
    if first is None and "round_going" not in state:
        return
    state = {key: value for key, value in state.items() if key != "round_going"}
    if first is not None:
        state["round_going"] = {"session_id": first.session_id, "turn": first.turn}
    store.instance_state_write(instance_id, state)


def round_going(store: FileStore, *, instance_id: str, session_id: str, turn: int) -> bool:
    """Whether a round's `turn` still has members to answer: noted, and the lock held (a note
    a crash left is not believed: nobody holds the lock then)."""
    going = store.instance_state_read(instance_id).get("round_going")
    return going == {"session_id": session_id, "turn": turn} and \
        store.instance_lock(instance_id).taken()

def _round_cut_note(store: FileStore, instance_id: str, names: list[str]) -> None:
    """Record the members a stopped round never reached (cleared when the next round starts)."""
    state = store.instance_state_read(instance_id)
    store.instance_state_write(instance_id, {**state, "round_cut": {"names": names}})


def _user_line_append(store: FileStore, instance_id: str, user_text: str) -> None:
    """Manual order with nobody picked: the player's line is kept; a trigger answers it."""
    state = store.instance_state_read(instance_id)
    session_id = state["current_session_id"]
    read = store.session_read(instance_id, session_id, cached=True)
    text = player_line_regexed(store, state=state, text=user_text)
    line = {"role": "user", "content": text, "turn": read.last_turn + 1,
            "timestamp": utc_now(), "name": player_name(store, state=state)}
    if macros_in(text):  # filled as it is sent, as a turn's player line
        line["content"] = stored_macros_fill(store, instance_id=instance_id,
                                             session_id=session_id, line=line, text=text,
                                             metadata=read.metadata, lines=read.lines)
        line["macros_filled"] = True
    store.session_append(instance_id, session_id, line)


def round_done_event(results: list[TurnResult]) -> dict:
    """The event that ends a round: the last reply's `done` (a round where nobody answered, as
    in manual order, ends with a `done` without a trace)."""
    if results:
        return {**results[-1].done_event(), "round_end": True} if results[-1].speaker \
            else results[-1].done_event()
    return {"type": "done", "trace_id": None, "turn": None, "replies": 0, "round_end": True}
