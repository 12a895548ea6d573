"""The light entry (seed 003 §14 "Chat"): an aside to one character of a story, answered from
a light prompt — its persona, its pinned prompt, the conversation's recaps and a few recent
lines — and never written into the story's session file (§14.1: only the full turn writes
history). With `history.asides_keep` (§15.3 Persona.Chat.WriteHistory) each aside and its answer
are kept in the instance's own `asides.jsonl`, apart from the story.

It takes no instance lock: nothing of the story is written, so an aside may run while a reply
of the story streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

import numpy as np

from chat.groups.prompt import lines_for_speaker
from chat.play import context as turn_context
from chat.play.regex_scripts import lines_for_model
from chat.play.turn import Emit, TurnRefused, account_turn_or_refused, validate_user_text
from chat.services.generation import generation_for_instance
from library.errors import ItemWithheld
from library.selectors import character_for_chat, persona_effective
from memory.action_base import lines_shown
from memory.character.pinned import pinned_prompt_effective
from memory.summaries.recaps import recap_items
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.store import FileStore
from personalab.lib.jsontext import json_loads
from personalab.lib.line_index import MESSAGE_KINDS
from personalab.lib.llm import LLMError, Provider
from personalab.lib.participants import member_ids, member_state_read
from personalab.lib.prompt_language import locale_for_character
from personalab.lib.reasoning import Reasoning
from personalab.lib.store_errors import StoreError
from personalab.lib.uncancelled import thread_whole

ASIDES_FILE = "asides.jsonl"
RECENT_LINES = 6  # seed 003 §15.2 RecentHistoryMaxEntries
RECAP_ITEMS = 3
SECTION_CHARS = 1200  # seed 003 §15.4 per-segment budget
ASIDE_WORDS = {
    "zh": {"opening": "你是{name}。{player}在故事之外和你私下说几句话；简短地以{name}的口吻回答。",
           "persona": "人格", "evolved": "成长人格", "pinned": "固定提示词", "recaps": "前情提要"},
    "en": {"opening": ("You are {name}. {player} is having a few private words with you outside "
                       "the story; answer briefly, as {name}."),
           "persona": "Persona", "evolved": "Evolved persona", "pinned": "Never forget",
           "recaps": "Story so far"},
}


@dataclass
class AsideResult:
    speaker: str
    name: str
    answer_text: str
    kept: bool
    error: str | None = None
    stopped: bool = False

    def done_event(self) -> dict[str, Any]:
        return {"type": "aside_done", "speaker": self.speaker, "name": self.name,
                "content": self.answer_text, "kept": self.kept, "error": self.error,
                "stopped": self.stopped}


def aside_speaker(instance_state: dict[str, Any], speaker: Any) -> str:
    """The member asked (default: the story's character); anyone else is refused by name."""
    if speaker is None or speaker == "":
        return str(instance_state.get("character_id") or "")
    if not isinstance(speaker, str) or speaker not in member_ids(instance_state):
        raise TurnRefused(f"{speaker!r} is not a character of this story", code="invalid",
                          status=400)
    return speaker


@dataclass
class AsidePlan:
    character_id: str
    name: str
    messages: list[dict]
    generation: dict[str, Any]


def aside_plan(store: FileStore, *, instance_id: str, speaker: Any, text: str) -> AsidePlan:
    """Who answers and the light prompt (files and DB: run it off the event loop)."""
    state = store.instance_state_read(instance_id)
    character_id = aside_speaker(state, speaker)
    try:
        character = character_for_chat(store, state=state, character_id=character_id)
    except ItemWithheld as exc:
        raise TurnRefused(str(exc), code=exc.code, status=exc.status) from None
    return AsidePlan(character_id=character_id, name=str(character.get("name") or character_id),
                     messages=aside_messages(store, instance_id=instance_id, state=state,
                                             character_id=character_id, character=character,
                                             text=text),
                     generation=generation_for_instance(store, state))


async def aside_run(store: FileStore, *, instance_id: str, speaker: Any, content: Any,
                    emit: Emit, provider: Provider | None = None,
                    stop: asyncio.Event | None = None) -> AsideResult:
    """Stream one aside's answer as `aside_token` events; returns what was said. A failing
    LLM ends in an answer with `error` set; `stop` ends it early, keeping what came (nothing
    is written to the story either way)."""
    text = validate_user_text(content)
    async with account_turn_or_refused(store, instance_id):
        return await _aside_answered(store, instance_id=instance_id, speaker=speaker, text=text,
                                     emit=emit, provider=provider, stop=stop)


async def _aside_answered(store: FileStore, *, instance_id: str, speaker: Any, text: str,
                          emit: Emit, provider: Provider | None,
                          stop: asyncio.Event | None) -> AsideResult:
    plan = await thread_whole(aside_plan, store, instance_id=instance_id, speaker=speaker,
                                   text=text)
    provider = provider or await thread_whole(turn_context.provider_current, store)
    pieces: list[str] = []

    async def pump() -> None:
        async for piece in provider.stream(plan.messages, context={
                "character_name": plan.name, "task": "aside", "generation": plan.generation}):
            if isinstance(piece, Reasoning) or not piece:
                continue
            pieces.append(piece)
            await emit({"type": "aside_token", "speaker": plan.character_id, "name": plan.name,
                        "content": piece})

    error, stopped = await until_stopped(pump(), stop or asyncio.Event())
    answer = "".join(pieces)
    kept = not error and await thread_whole(_kept, store, instance_id, plan, text, answer,
                                                 stopped)
    return AsideResult(speaker=plan.character_id, name=plan.name, answer_text=answer,
                       kept=kept, error=error, stopped=stopped)


async def until_stopped(work: Coroutine[Any, Any, None],
                         stop: asyncio.Event) -> tuple[str | None, bool]:
    """(the LLM's error, whether `stop` ended it first); a stop closes the LLM stream."""
    work_task = asyncio.create_task(work)
    stop_task = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({work_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
        stopped = not work_task.done()
        if stopped:
            work_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await work_task
    except LLMError as exc:
        return exc.message, False
    finally:
        stop_task.cancel()
        work_task.cancel()
    return None, stopped


def _kept(store: FileStore, instance_id: str, plan: AsidePlan, text: str, answer: str,
          stopped: bool) -> bool:
    if not store.module_read("history").get("asides_keep", False):
        return False
    aside_keep(store, instance_id=instance_id, lines=[
        {"role": "user", "content": text, "speaker": plan.character_id, "timestamp": utc_now()},
        {"role": "assistant", "content": answer, "speaker": plan.character_id,
         "name": plan.name, "timestamp": utc_now(), **({"interrupted": True} if stopped else {})}])
    return True


def aside_messages(store: FileStore, *, instance_id: str, state: dict[str, Any],
                   character_id: str, character: dict[str, Any], text: str) -> list[dict]:
    """§14.3 Chat: persona, pinned prompt, recaps, a few recent lines, the player's words."""
    own = member_state_read(store, instance_id, state, character_id)
    persona = persona_effective(store, owner=state.get("owner"), persona_id=state.get("persona_id"))
    name = str(character.get("name") or character_id)
    pinned, _ = pinned_prompt_effective(store, instance_id=instance_id,
                                        character_id=character_id)
    recaps = [item["text"] for item in recap_items(
        store, instance_id=instance_id)][-RECAP_ITEMS:]
    card = (character.get("card") or {}).get("data") or {}
    words = ASIDE_WORDS["zh" if locale_for_character(store, character).startswith("zh") else "en"]
    sections = [
        words["opening"].format(name=name, player=persona["name"]),
        _section(words["persona"], str(card.get("description") or own.get("base_persona") or "")),
        _section(words["evolved"], str(own.get("evolved_persona") or "")),
        _section(words["pinned"], pinned),
        _section(words["recaps"], "\n".join(recaps)),
    ]
    shown = lines_for_model(store, state=state, character_id=character_id)
    recent = [{"role": line["role"], "content": str(line.get("content") or "")}
              for line in lines_for_speaker(lines_shown(_recent_lines(store, instance_id, state),
                                                        shown),
                                            speaker_id=character_id,
                                            player_name=persona["name"], speaker_name=name)]
    return [{"role": "system", "content": "\n\n".join(s for s in sections if s)},
            *recent, {"role": "user", "content": text}]


def _section(label: str, text: str) -> str:
    text = text.strip()
    return f"[{label}]\n{text[:SECTION_CHARS]}" if text else ""


def _recent_lines(store: FileStore, instance_id: str, state: dict[str, Any]) -> list[dict]:
    # Through the line index, the newest lines only: an old session holds 100k lines.
    read = store.session_read(instance_id, state["current_session_id"], pick=_newest_messages)
    lines = [line for line in read.lines if line.get("role") in ("user", "assistant")
             and not line.get("streaming") and not line.get("hidden")]
    return lines[-RECENT_LINES:]


def _newest_messages(kinds: np.ndarray) -> tuple[int, int]:
    """The lines back to the RECENT_LINES * 2-th newest message (a hidden one counted too)."""
    messages = np.flatnonzero(np.isin(kinds, MESSAGE_KINDS))
    wanted = RECENT_LINES * 2
    return (int(messages[-wanted]) if len(messages) >= wanted else 0), len(kinds)


def aside_keep(store: FileStore, *, instance_id: str, lines: list[dict[str, Any]]) -> None:
    """Append to the instance's asides.jsonl (one write, so lines of two asides never mix)."""
    path = store.instance_dir(instance_id) / ASIDES_FILE
    data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data.encode("utf-8"))
    finally:
        os.close(fd)


def asides_read(store: FileStore, *, instance_id: str) -> list[dict[str, Any]]:
    """The kept asides (a line that does not parse is skipped: the file is only a record)."""
    try:
        text = (store.instance_dir(instance_id) / ASIDES_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise StoreError(f"{ASIDES_FILE} of {instance_id} cannot be read: {exc}") from None
    lines = []
    for raw in text.split("\n"):
        try:
            line = json_loads(raw) if raw.strip() else None
        except ValueError:
            continue
        if isinstance(line, dict):
            lines.append(line)
    return lines
