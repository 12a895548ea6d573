"""The evolved persona of each member (the character's grown persona): grown by the model from
the recent turns it witnessed, set by hand, listed and restored.

persona_versions.jsonl holds every evolved persona ever set, the current one last; a persona found
in character_state.json that no version records (written before versioning, or edited outside
the app) is recorded first with source "imported", so no text is ever lost. The caller holds the
instance lock.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from memory import prompts
from memory.action_base import (
    LinesShown,
    lines_shown_off_loop,
    llm_text,
    scene_of,
    session_messages,
    speaker_of,
    thread_writes_whole,
    turn_groups,
)
from memory.errors import MemoryActionError
from memory.summaries.recap_copies import turn_group_key
from memory.summaries.transcript_parts import request_tokens, transcript_parts
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.store import FileStore
from personalab.lib.membership import Presence, member_changes_read, presence_of
from personalab.lib.participants import member_ids, member_state_read, member_state_write
from personalab.lib.store_errors import StoreError
from personalab.lib.uncancelled import thread_whole

PERSONA_LEDGER = "persona_versions"
# An evolved persona goes into every turn's prompt whole: a 67,000-character one took 14,407
# tokens of a 16k window and crowded out the recalled lines; past the window every turn would
# be refused. Written by hand or by the model, one longer than this is refused, nothing changed.
EVOLVED_PERSONA_MAX_CHARS = 8000


def recent_turn_lines(store: FileStore, *, instance_id: str, session_id: str,
                      last_n_turns: int, presence: Presence | None = None
                      ) -> list[dict[str, Any]]:
    """The last N turns, reaching into earlier sessions through `continued_from` when the current
    one is short. Turns seeded into a newer session are copies of older ones and count once.
    With `presence`, only lines said while that member was in the conversation."""
    collected: list[list[dict[str, Any]]] = []
    seen: set[tuple] = set()
    visited: set[str] = set()
    current: str | None = session_id
    while current and len(collected) < last_n_turns and current not in visited:
        visited.add(current)
        try:
            session = store.session_read(instance_id, current)
        except (StoreError, ValueError):
            if current == session_id:
                raise
            break  # an archived or missing older session: use what we have
        messages = session_messages(session)
        if presence is not None:
            messages = [line for line in messages if presence.saw(
                timestamp=str(line.get("timestamp") or ""), session_id=current,
                turn=line.get("turn"))]
        groups = [g for g in turn_groups(messages) if turn_group_key(g) not in seen]
        seen.update(turn_group_key(g) for g in groups)
        collected = groups + collected
        current = session.metadata.get("continued_from")
    chosen = collected[-last_n_turns:] if last_n_turns > 0 else []
    return [line for group in chosen for line in group]


def persona_member(store: FileStore, *, instance_id: str,
                   character_id: str | None) -> tuple[dict[str, Any], str]:
    """(instance state, the member whose persona is meant): the instance's character when none is
    named; a character that is not a member is refused (400 naming the field)."""
    state = store.instance_state_read(instance_id)
    character_id = character_id or str(state.get("character_id") or "")
    if character_id not in member_ids(state):
        raise MemoryActionError(f"{character_id} is not a member of this conversation",
                                code="invalid", status=400,
                                fields={"character_id": "not a member"})
    return state, character_id


async def memory_update_persona(store: FileStore, *, instance_id: str, llm: Any,
                                last_n_turns: int = 20, character_id: str | None = None,
                                prompt_tokens: int | None = None,
                                shown: LinesShown | None = None) -> dict[str, Any]:
    """Grow one member's evolved persona from the recent turns it witnessed: the newest of them
    that fit `prompt_tokens` (what one request may hold) with the personas, as the chat's
    prompt shows them (`shown`: its regex scripts)."""
    state, character_id, character, turns = await thread_whole(
        _persona_update_read, store, instance_id, character_id, last_n_turns)
    if not turns:
        raise MemoryActionError(gettext("There is no conversation yet: memory cannot be "
                                        "updated."))
    turns = await lines_shown_off_loop(turns, shown)
    name, locale = await speaker_of(store, state, character_id)
    members, player = await scene_of(store, state)
    scene = {"others": [other for member, other in members.items() if member != character_id],
             "player_name": player}
    if prompt_tokens is not None:
        bare = prompts.persona_update_messages(
            character_name=name, base_persona=character.get("base_persona", ""),
            evolved_persona=character.get("evolved_persona", ""), turns=[], locale=locale,
            **scene)
        room = prompt_tokens - request_tokens(bare)
        turns = (await thread_whole(transcript_parts, turns, room=max(room, 1),
                                         character_name=name, locale=locale,
                                         player_name=player))[-1]
    messages = prompts.persona_update_messages(
        character_name=name, base_persona=character.get("base_persona", ""),
        evolved_persona=character.get("evolved_persona", ""), turns=turns, locale=locale,
        **scene)
    text = (await llm_text(llm, messages, {
        "task": "update_memory", "character_name": name, "transcript": turns,
        "base_persona": character.get("base_persona", ""),
        "evolved_persona": character.get("evolved_persona", ""), "instance_id": instance_id,
    })).strip()
    if not text:
        raise MemoryActionError(gettext("The model returned an empty evolved persona; nothing "
                                        "was changed."))
    if len(text) > EVOLVED_PERSONA_MAX_CHARS:
        raise MemoryActionError(gettext(
            "The model wrote an evolved persona of %(n)s characters, more than the %(max)s that "
            "fit in every turn; nothing was changed.") % {"n": len(text),
                                                          "max": EVOLVED_PERSONA_MAX_CHARS})
    version = await thread_writes_whole(_persona_record, store, instance_id, state,
                                        character_id, text, source="update_memory")
    return {"evolved_persona": text, "version": version, "character_id": character_id}


def _persona_update_read(store: FileStore, instance_id: str, character_id: str | None,
                         last_n_turns: int) -> tuple[dict[str, Any], str, dict[str, Any],
                                                     list[dict[str, Any]]]:
    """What update memory reads before it asks: on a thread, for the session is read whole
    (40,000 messages held the event loop, and every account's requests, 0.6-1.3 s)."""
    state, character_id = persona_member(store, instance_id=instance_id,
                                         character_id=character_id)
    character = member_state_read(store, instance_id, state, character_id)
    turns = recent_turn_lines(store, instance_id=instance_id,
                              session_id=state["current_session_id"], last_n_turns=last_n_turns,
                              presence=presence_of(member_changes_read(store, instance_id),
                                                   character_id))
    return state, character_id, character, turns


def _persona_record(store: FileStore, instance_id: str, state: dict[str, Any],
                    character_id: str, text: str, *, source: str,
                    extra: dict[str, Any] | None = None) -> int:
    character = member_state_read(store, instance_id, state, character_id)
    versions = _versions_of(state, store.ledger_read(instance_id, PERSONA_LEDGER), character_id)
    number = max((v.get("version", 0) for v in versions if isinstance(v.get("version"), int)),
                 default=0)
    now = utc_now()
    # A one-character story's records stay as they always were; once the story has had a
    # second member every record names whose persona it is.
    owner = {"character_id": character_id} if _ever_group(state) else {}
    current = str(character.get("evolved_persona") or "")
    recorded = versions[-1].get("evolved_persona") if versions else None
    records = []
    if current.strip() and current != recorded and current != text:
        number += 1
        records.append({"version": number, "evolved_persona": current, "created_at": now,
                        "source": "imported", **owner})
    number += 1
    records.append({"version": number, "evolved_persona": text, "created_at": now,
                    "source": source, **owner, **(extra or {})})
    # The persona first: a kill between the two writes leaves it in effect and unrecorded,
    # which the next change records (as above), never a version the prompt did not use.
    member_state_write(store, instance_id, state, character_id,
                       {**character, "evolved_persona": text})
    store.ledger_append(instance_id, PERSONA_LEDGER, records)
    return number


def _ever_group(state: dict[str, Any]) -> bool:
    return len(member_ids(state)) > 1 or "solo_character_id" in state


def _versions_of(state: dict[str, Any], records: list[dict[str, Any]],
                 character_id: str) -> list[dict[str, Any]]:
    """One member's versions. Records without `character_id` were written while the story had
    one character: the one it had before a second joined, else its character."""
    unnamed = state.get("solo_character_id") or state.get("character_id")
    return [r for r in records if r.get("character_id", unnamed) == character_id]


def persona_set_manual(store: FileStore, *, instance_id: str, text: str,
                       character_id: str | None = None) -> dict[str, Any]:
    if len(text) > EVOLVED_PERSONA_MAX_CHARS:
        message = gettext("The evolved persona is %(n)s characters; at most %(max)s fit in every "
                          "turn.") % {"n": len(text), "max": EVOLVED_PERSONA_MAX_CHARS}
        raise MemoryActionError(message, code="too_long", status=400, fields={"text": message})
    state, character_id = persona_member(store, instance_id=instance_id,
                                         character_id=character_id)
    character = member_state_read(store, instance_id, state, character_id)
    versions = _versions_of(state, store.ledger_read(instance_id, PERSONA_LEDGER), character_id)
    if versions and character.get("evolved_persona") == text == versions[-1].get("evolved_persona"):
        return {"evolved_persona": text, "version": versions[-1].get("version"), "changed": False}
    version = _persona_record(store, instance_id, state, character_id, text, source="manual")
    return {"evolved_persona": text, "version": version, "changed": True}


def persona_versions(store: FileStore, *, instance_id: str,
                     character_id: str | None = None) -> list[dict[str, Any]]:
    """One member's evolved-persona versions, oldest first (the instance's character by
    default)."""
    state, character_id = persona_member(store, instance_id=instance_id,
                                         character_id=character_id)
    return _versions_of(state, store.ledger_read(instance_id, PERSONA_LEDGER), character_id)


def evolved_persona_read(store: FileStore, *, instance_id: str,
                 character_id: str | None = None) -> dict[str, Any]:
    """One member's base and evolved persona and its versions."""
    state, character_id = persona_member(store, instance_id=instance_id,
                                         character_id=character_id)
    character = member_state_read(store, instance_id, state, character_id)
    return {"character_id": character_id,
            "base_persona": str(character.get("base_persona", "")),
            "evolved_persona": str(character.get("evolved_persona", "")),
            "versions": _versions_of(state, store.ledger_read(instance_id, PERSONA_LEDGER),
                                     character_id)}


def persona_restore(store: FileStore, *, instance_id: str, version: int,
                    character_id: str | None = None) -> dict[str, Any]:
    """An older version becomes the current one again, as a new (manual) version."""
    state, character_id = persona_member(store, instance_id=instance_id,
                                         character_id=character_id)
    versions = _versions_of(state, store.ledger_read(instance_id, PERSONA_LEDGER), character_id)
    match = [v for v in versions if v.get("version") == version]
    if not match:
        raise MemoryActionError(f"there is no evolved-persona version {version}",
                                code="not_found", status=404, fields={"version": "no such version"})
    text = str(match[-1].get("evolved_persona") or "")
    number = _persona_record(store, instance_id, state, character_id, text, source="manual",
                             extra={"restored_from": version})
    return {"evolved_persona": text, "version": number, "changed": True}
