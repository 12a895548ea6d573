"""Memory actions over the file store (SPEC §5), one module per job; this module is the app's
service entry, so callers can write `from memory import services as memory`:

- summarize a session                     memory/summarize.py
- the evolved persona and its versions    memory/evolved_persona.py
- pinned ("never forget") prompts         memory/pinned.py
- biography paragraphs                    memory/biography.py
- rolling recaps                          memory/recaps.py (item lists: memory/item_lists.py)
- the author's note                       memory/authors_note.py
- what the actions share                  memory/action_base.py, memory/errors.py

The caller holds the instance lock; nothing here locks. The text files are the truth and Chroma is
rebuilt from them, so a write order is chosen per action so that a failure half way loses nothing
(each module's docstring says its order).
"""

from __future__ import annotations

<<<<<<< HEAD
from memory.authors_note import (
                                 AUTHORS_NOTE_DEFAULT,
                                 AUTHORS_NOTE_FILE,
                                 NOTE_ROLES,
                                 authors_note_read,
                                 authors_note_save,
)
from memory.biography import (
                                 BIOGRAPHY_FILE,
                                 biography_add,
                                 biography_from_persona,
                                 biography_items,
                                 biography_remove,
                                 biography_reorder,
                                 biography_update,
)
from memory.errors import MemoryActionError
from memory.evolved_persona import (
                                 PERSONA_LEDGER,
                                 evolved_persona_read,
                                 memory_update_persona,
                                 persona_member,
                                 persona_restore,
                                 persona_set_manual,
                                 persona_versions,
                                 recent_turn_lines,
)
from memory.pinned import (
                                 PINNED_FILE,
                                 PINNED_MAX_CHARS,
                                 pinned_members,
                                 pinned_override_set,
                                 pinned_overrides_read,
                                 pinned_prompt_effective,
                                 pinned_prompt_set,
)
from memory.recaps import (
                                 RECAPS_FILE,
                                 recap_items,
                                 recap_maybe_roll,
                                 recap_pending,
                                 recap_rebuild,
                                 recap_remove,
                                 recap_reorder,
                                 recap_update,
)
from memory.summarize import memory_summarize, parse_events_json, summary_seed_lines

__all__ = [
    "AUTHORS_NOTE_DEFAULT", "AUTHORS_NOTE_FILE", "BIOGRAPHY_FILE", "NOTE_ROLES", "PERSONA_LEDGER",
    "PINNED_FILE", "PINNED_MAX_CHARS", "RECAPS_FILE", "MemoryActionError", "authors_note_read",
    "authors_note_save", "biography_add", "biography_from_persona", "biography_items",
    "biography_remove", "biography_reorder", "biography_update", "evolved_persona_read",
    "memory_summarize", "memory_update_persona", "parse_events_json", "persona_member",
    "persona_restore", "persona_set_manual", "persona_versions", "pinned_members",
    "pinned_override_set", "pinned_overrides_read", "pinned_prompt_effective",
    "pinned_prompt_set", "recap_items", "recap_maybe_roll", "recap_pending", "recap_rebuild",
    "recap_remove", "recap_reorder", "recap_update", "recent_turn_lines", "summary_seed_lines",
]
=======
import asyncio
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.utils.translation import gettext, gettext_noop

from personalab.lib.llm import LLMError
from personalab.lib.prompt_language import locale_for_character
from library.selectors import character_for_chat_optional
from memory import prompts
from memory.summarize_journal import (summarize_journal_commit, summarize_journal_write,
                                      summarize_recover)
from personalab.lib.errors import AppError
from personalab.lib.filestore import (CorruptFile, FileStore, MissingFile, SessionRead, StoreError,
                                      read_json, utc_now, write_json_atomic)
from personalab.lib.ids import random_id
from personalab.lib.jsontext import json_loads
from personalab.lib.membership import Presence, member_changes_read, presence_of
from personalab.lib.participants import (conv_key, member_ids, member_state_read,
                                         member_state_write, participants_of)

PERSONA_LEDGER = "persona_versions"
RECAPS_FILE = "recaps"
BIOGRAPHY_FILE = "biography"
PINNED_FILE = "pinned"


class MemoryActionError(AppError):
    """A memory action that was refused or failed; nothing was changed."""

    code, status = "unusable_llm_output", 422

    def __init__(self, message: str, *, detail: str = "", code: str | None = None,
                 status: int | None = None, fields: dict[str, str] | None = None) -> None:
        super().__init__(code, status, message, fields)
        self.detail = detail


# --- shared helpers ------------------------------------------------------------


def _named(store: FileStore, state: dict[str, Any],
           character_id: Any = None) -> tuple[str, str]:
    """(name, prompt locale) of the chat's character, or of member `character_id`, as the chat
    may read it (a kept copy once its author made it private)."""
    character_id = str(character_id or state.get("character_id") or "")
    character = character_for_chat_optional(store, state=state, character_id=character_id)
    return (str(character.get("name") or character_id or "角色"),
            locale_for_character(store, character))


async def _speaker(store: FileStore, state: dict[str, Any],
                   character_id: Any = None) -> tuple[str, str]:
    # off the event loop: whether the chat may read another author's file asks the database
    return await asyncio.to_thread(_named, store, state, character_id)


async def _llm_text(llm: Any, messages: list[dict], context: dict[str, Any]) -> str:
    try:
        text = await llm.complete(messages, context=context)
    except LLMError as exc:
        raise MemoryActionError(gettext("The model call failed; nothing was changed: %(error)s")
                                % {"error": exc.message}) from exc
    return text if isinstance(text, str) else ""


def _int_setting(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _session_messages(session: SessionRead) -> list[dict[str, Any]]:
    """Finished user/assistant lines the player did not hide, plus a line a crash left
    unfinished (kept, marked)."""
    messages = list(session.messages_shown_to_model)
    if session.partial:
        messages.append({**session.partial, "interrupted": True})
    return messages


def _turn_groups(messages: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    groups: dict[int, list[dict[str, Any]]] = {}
    for line in messages:
        turn = line.get("turn")
        if isinstance(turn, int) and not isinstance(turn, bool):
            groups.setdefault(turn, []).append(line)
    return list(groups.values())


# --- summarize -----------------------------------------------------------------

_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def parse_events_json(text: str) -> list[dict[str, str]]:
    """The LLM's summarize answer as [{"summary", "plot"}]: code fences, prose around the JSON
    and trailing commas are tolerated; anything else is refused."""
    data = _json_object_find(text or "")
    if not isinstance(data, dict):
        raise _unparsable(gettext("no JSON object found"), text)
    events = data.get("events")
    if not isinstance(events, list) or not events:
        raise _unparsable(gettext('no non-empty "events" list'), text)
    parsed = []
    for position, event in enumerate(events, start=1):
        summary = event.get("summary") if isinstance(event, dict) else None
        plot = event.get("plot") if isinstance(event, dict) else None
        if not (isinstance(summary, str) and summary.strip()
                and isinstance(plot, str) and plot.strip()):
            raise _unparsable(gettext("event %(position)s has no non-empty summary or plot")
                              % {"position": position}, text)
        parsed.append({"summary": summary.strip(), "plot": plot.strip()})
    return parsed


def _unparsable(reason: str, text: str) -> MemoryActionError:
    return MemoryActionError(gettext("The model's answer could not be read as a list of events: "
                                     "%(reason)s") % {"reason": reason}, detail=text or "")


def _json_object_find(text: str) -> Any:
    candidates = [match.strip() for match in _FENCE.findall(text)] + [text.strip()]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
            try:
                return json_loads(attempt)
            except json.JSONDecodeError:
                continue
    return None


def _event_owner(instance_id: str, state: dict[str, Any],
                 messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Who the events belong to; `speakers` (character ids joined by "|") names who replied in
    the summarized lines, so a group's summaries say whose story they are."""
    speakers = sorted({str(line["speaker"]) for line in messages if line.get("speaker")})
    return {"instance_id": instance_id, "character_id": state.get("character_id"),
            "background_id": state.get("background_id"), "speakers": "|".join(speakers)}


def _event_records(owner: dict[str, Any], session_id: str,
                   events: list[dict[str, str]]) -> tuple[list[dict], list[dict]]:
    owner = {**owner, "created_at": utc_now()}
    summaries, plots = [], []
    for index, event in enumerate(events):
        summary_id, plot_id = f"summary_{session_id}_{index}", f"plot_{session_id}_{index}"
        summaries.append({"id": summary_id, "session_id": session_id, "index": index,
                          "text": event["summary"], "related_plot_id": plot_id, **owner})
        plots.append({"id": plot_id, "session_id": session_id, "index": index,
                      "text": event["plot"], "related_summary_id": summary_id, **owner})
    return summaries, plots


def _index_warning(message: str) -> dict[str, Any]:
    return {"type": "warning", "category": "memory_index_unavailable", "message": message,
            "current_value": None, "threshold": None,
            "suggestion": "摘要已写入记忆账本；Chroma 恢复后运行 "
                          "python manage.py reindex 重建向量索引"}


def _events_index(index: Any, owner: dict[str, Any], session_id: str,
                  events: list[dict[str, str]]) -> list[dict[str, Any]]:
    if index is None:
        return [_index_warning("向量索引不可用，本次摘要未写入 Chroma")]
    try:
        index.add_events(**owner, session_id=session_id,
                         events=[{**event, "index": i} for i, event in enumerate(events)])
    except Exception as exc:  # noqa: BLE001 — Chroma is rebuildable from the ledger (SPEC §5)
        return [_index_warning(f"写入向量索引失败，本次摘要未写入 Chroma（{exc}）")]
    return []


def summary_seed_lines(summaries: list[str], groups: list[list[dict[str, Any]]], *,
                       order: str) -> list[dict[str, Any]]:
    summary_lines = [{"type": "summary", "content": text} for text in summaries]
    turn_lines = [{**line, "turn": number}
                  for number, group in enumerate(groups, start=1) for line in group]
    if order == "last_n_first":
        return turn_lines + summary_lines
    return summary_lines + turn_lines


async def memory_summarize(store: FileStore, *, instance_id: str, llm: Any, index: Any,
                           progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    say = progress or (lambda text: None)
    summarize_recover(store, instance_id=instance_id)
    say(gettext_noop("Reading the current session"))
    state = store.instance_state_read(instance_id)
    old_id = state["current_session_id"]
    session = store.session_read(instance_id, old_id)
    messages = _session_messages(session)
    if not messages:
        raise MemoryActionError(gettext("The current session has no conversation yet: nothing "
                                        "to summarize."))
    earlier = [str(line.get("content") or "") for line in session.summaries]
    name, locale = await _speaker(store, state)

    say(gettext_noop("Asking the model for the story events"))
    text = await _llm_text(
        llm, prompts.summarize_messages(character_name=name, summaries=earlier, turns=messages,
                                        locale=locale),
        {"task": "summarize", "character_name": name, "transcript": messages,
         "instance_id": instance_id})
    say(gettext_noop("Reading the model's answer"))
    events = parse_events_json(text)

    owner = _event_owner(instance_id, state, messages)
    summary_records, plot_records = _event_records(owner, old_id, events)
    new_id = store.session_next_id(instance_id)
    summarize_journal_write(store, instance_id=instance_id, old_session_id=old_id,
                            new_session_id=new_id,
                            records={"summaries": summary_records, "plots": plot_records})
    _session_continue(store, instance_id=instance_id, old_id=old_id, new_id=new_id,
                      summaries=earlier + [event["summary"] for event in events],
                      messages=messages, say=say)
    say(gettext_noop("Switching to the new session"))
    state["current_session_id"] = new_id
    store.instance_state_write(instance_id, state)
    say(gettext_noop("Writing the memory ledger"))
    summarize_journal_commit(store, instance_id=instance_id)
    say(gettext_noop("Writing the search index"))
    # Embedding is CPU work: off the event loop, or every request of every user waits for it.
    warnings = await asyncio.to_thread(_events_index, index, owner, old_id, events)
    return {"old_session_id": old_id, "new_session_id": new_id, "events": len(events),
            "summary_ids": [r["id"] for r in summary_records],
            "plot_ids": [r["id"] for r in plot_records], "warnings": warnings}


def _session_continue(store: FileStore, *, instance_id: str, old_id: str, new_id: str,
                      summaries: list[str], messages: list[dict[str, Any]],
                      say: Callable[[str], None]) -> None:
    config = store.config_read()
    last_n = max(_int_setting(config.get("thresholds", {}).get("summary_last_n_turns"), 5), 0)
    order = config.get("preferences", {}).get("summary_order", "summary_first")
    groups = _turn_groups(messages)[-last_n:] if last_n else []
    say(gettext_noop("Creating the new session"))
    store.session_create(instance_id, new_id, continued_from=old_id,
                         lines=summary_seed_lines(summaries, groups, order=order))


# --- evolved persona -------------------------------------------------------------


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
        messages = _session_messages(session)
        if presence is not None:
            messages = [line for line in messages if presence.saw(
                timestamp=str(line.get("timestamp") or ""), session_id=current,
                turn=line.get("turn"))]
        groups = [g for g in _turn_groups(messages) if _group_key(g) not in seen]
        seen.update(_group_key(g) for g in groups)
        collected = groups + collected
        current = session.metadata.get("continued_from")
    chosen = collected[-last_n_turns:] if last_n_turns > 0 else []
    return [line for group in chosen for line in group]


def _group_key(group: list[dict[str, Any]]) -> tuple:
    return tuple((line.get("role"), line.get("content"), line.get("timestamp")) for line in group)


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
                                last_n_turns: int = 20,
                                character_id: str | None = None) -> dict[str, Any]:
    """Grow one member's evolved persona from the recent turns it witnessed."""
    state, character_id = persona_member(store, instance_id=instance_id,
                                         character_id=character_id)
    character = member_state_read(store, instance_id, state, character_id)
    turns = recent_turn_lines(store, instance_id=instance_id,
                              session_id=state["current_session_id"], last_n_turns=last_n_turns,
                              presence=presence_of(member_changes_read(store, instance_id),
                                                   character_id))
    if not turns:
        raise MemoryActionError(gettext("There is no conversation yet: memory cannot be "
                                        "updated."))
    name, locale = await _speaker(store, state, character_id)
    messages = prompts.persona_update_messages(
        character_name=name, base_persona=character.get("base_persona", ""),
        evolved_persona=character.get("evolved_persona", ""), turns=turns, locale=locale)
    text = (await _llm_text(llm, messages, {
        "task": "update_memory", "character_name": name, "transcript": turns,
        "base_persona": character.get("base_persona", ""),
        "evolved_persona": character.get("evolved_persona", ""), "instance_id": instance_id,
    })).strip()
    if not text:
        raise MemoryActionError(gettext("The model returned an empty evolved persona; nothing "
                                        "was changed."))
    version = _persona_record(store, instance_id, state, character_id, text,
                              source="update_memory")
    return {"evolved_persona": text, "version": version, "character_id": character_id}


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
    store.ledger_append(instance_id, PERSONA_LEDGER, records)
    member_state_write(store, instance_id, state, character_id,
                       {**character, "evolved_persona": text})
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


# --- pinned prompts --------------------------------------------------------------


def pinned_prompt_effective(store: FileStore, *, instance_id: str,
                            character_id: str) -> tuple[str, str]:
    """(text, "conv_key" | "instance" | "character" | "none") for one member of a conversation
    (seed 003 §3.5): the override set for this participant set (convKey) and this character
    wins, then this instance's own override (it belongs to the instance's character), then the
    character's own pinned prompt."""
    try:
        state = store.instance_state_read(instance_id)
    except (StoreError, ValueError):
        state = {}
    text = pinned_overrides_read(store, conv_key=conv_key(participants_of(state))).get(
        character_id) if state else None
    if text:
        return text, "conv_key"
    try:
        override = store.memory_json_read(instance_id, PINNED_FILE, {})
    except (StoreError, ValueError):
        override = {}
    override = override if isinstance(override, dict) else {}
    # The instance's own override belongs to the character it was set for (files from before
    # this was recorded: to the instance's character).
    if override.get("character_id", state.get("character_id", character_id)) == character_id:
        text = override.get("text")
        if isinstance(text, str) and text.strip():
            return text, "instance"
    # an unreadable state has no owner to judge by: only shared files, then (nobody's chat)
    text = character_for_chat_optional(store, state={"owner": "", **state,
                                                     "instance_id": instance_id},
                                       character_id=character_id).get("pinned_prompt")
    if isinstance(text, str) and text.strip():
        return text, "character"
    return "", "none"


def pinned_members(store: FileStore, *, instance_id: str) -> tuple[str, list[dict[str, str]]]:
    """(convKey, each member's effective pinned prompt, its source and its convKey override)."""
    state = store.instance_state_read(instance_id)
    key = conv_key(participants_of(state))
    by_key = pinned_overrides_read(store, conv_key=key)
    members = []
    for character_id in member_ids(state):
        text, source = pinned_prompt_effective(store, instance_id=instance_id,
                                               character_id=character_id)
        members.append({"character_id": character_id, "text": text, "source": source,
                        "conv_key_override": by_key.get(character_id, "")})
    return key, members


def _pinned_overrides_path(store: FileStore, key: str) -> Path:
    # A convKey holds "|" and ":" and can be long: the file is named by its digest.
    return store.root / "pinned" / f"{hashlib.sha256(key.encode()).hexdigest()[:40]}.json"


def pinned_overrides_read(store: FileStore, *, conv_key: str) -> dict[str, str]:
    """character_id -> the override text for conversations of exactly these participants."""
    try:
        data = read_json(_pinned_overrides_path(store, conv_key), what="pinned override")
    except StoreError:
        return {}
    if not isinstance(data, dict) or data.get("conv_key") != conv_key:
        return {}
    by_character = data.get("by_character")
    return {k: v["text"] for k, v in (by_character or {}).items()
            if isinstance(v, dict) and isinstance(v.get("text"), str) and v["text"].strip()} \
        if isinstance(by_character, dict) else {}


PINNED_MAX_CHARS = 20_000  # as a character's own pinned prompt (library MAX_TEXT)


def _pinned_text_checked(text: str) -> None:
    if len(text.strip()) > PINNED_MAX_CHARS:
        raise MemoryActionError(
            f"text is longer than {PINNED_MAX_CHARS} characters, the most a pinned prompt may be",
            code="invalid", status=400, fields={"text": f"at most {PINNED_MAX_CHARS} characters"})


def pinned_override_set(store: FileStore, *, instance_id: str, character_id: str,
                        text: str) -> str:
    """The convKey override of one member of this conversation (empty text removes it);
    returns the convKey. A character that is not a member is refused (400 naming it)."""
    _pinned_text_checked(text)
    state = store.instance_state_read(instance_id)
    if character_id not in member_ids(state):
        raise MemoryActionError(f"{character_id} is not a member of this conversation",
                                code="invalid", status=400,
                                fields={"character_id": "not a member"})
    key = conv_key(participants_of(state))
    path = _pinned_overrides_path(store, key)
    try:
        data = read_json(path, what="pinned override")
    except MissingFile:
        data = {}
    by_character = data.get("by_character") if isinstance(data, dict) else None
    by_character = by_character if isinstance(by_character, dict) else {}
    if text.strip():
        by_character[character_id] = {"text": text.strip(), "updated_at": utc_now()}
    else:
        by_character.pop(character_id, None)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, {"conv_key": key, "by_character": by_character})
    return key


def pinned_prompt_set(store: FileStore, *, instance_id: str | None, character_id: str | None,
                      text: str) -> None:
    """Instance override when instance_id is given (empty text removes the override), else the
    character's own pinned prompt in its definition.json."""
    _pinned_text_checked(text)
    if instance_id:
        store.instance_state_read(instance_id)  # refuse a typo'd instance instead of creating it
        store.memory_json_write(instance_id, PINNED_FILE, {
            "text": text, "updated_at": utc_now(),
            "character_id": _main_character(store, instance_id)})
        return
    if not character_id:
        raise MemoryActionError(gettext("A pinned prompt needs an instance or a character."))
    try:
        definition = store.character_read(character_id)
    except StoreError as exc:
        raise MemoryActionError(gettext("Cannot read character %(id)s: %(error)s")
                                % {"id": character_id, "error": exc}) from exc
    store.character_write(character_id, {**definition, "pinned_prompt": text})


# --- editable item lists (biography, recaps) --------------------------------------


def _doc_read(store: FileStore, instance_id: str, name: str, *, strict: bool) -> dict[str, Any]:
    """Readers fall back to empty on a damaged file (the chat goes on); writers refuse, so a
    damaged file is never overwritten."""
    try:
        data = store.memory_json_read(instance_id, name, {"items": []})
    except CorruptFile as exc:
        if strict:
            raise MemoryActionError(gettext("%(name)s.json is damaged; nothing was changed: "
                                            "%(error)s") % {"name": name, "error": exc}) from exc
        return {"items": []}
    if not isinstance(data, dict) or not isinstance(data.get("items", []), list):
        if strict:
            raise MemoryActionError(gettext("%(name)s.json has the wrong shape (an items list is "
                                            "needed); nothing was changed.") % {"name": name})
        return {"items": []}
    data["items"] = [item for item in data.get("items", [])
                     if isinstance(item, dict) and isinstance(item.get("id"), str)]
    return data


def _item_position(items: list[dict[str, Any]], item_id: str) -> int:
    for position, item in enumerate(items):
        if item["id"] == item_id:
            return position
    raise MemoryActionError(f"there is no item {item_id!r}", code="not_found", status=404,
                            fields={"item_id": "not found"})


def _text_checked(text: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise MemoryActionError(gettext("The text must not be empty."), code="invalid", status=400,
                                fields={"text": "required"})
    return text.strip()


def _item_update(store: FileStore, instance_id: str, name: str, item_id: str,
                 text: str) -> dict[str, Any]:
    data = _doc_read(store, instance_id, name, strict=True)
    item = data["items"][_item_position(data["items"], item_id)]
    item.update(text=_text_checked(text), updated_at=utc_now())
    store.memory_json_write(instance_id, name, data)
    return item


def _item_remove(store: FileStore, instance_id: str, name: str, item_id: str) -> dict[str, Any]:
    data = _doc_read(store, instance_id, name, strict=True)
    removed = data["items"].pop(_item_position(data["items"], item_id))
    store.memory_json_write(instance_id, name, data)
    return removed


def _item_reorder(store: FileStore, instance_id: str, name: str, item_id: str,
                  new_index: int) -> list[dict[str, Any]]:
    data = _doc_read(store, instance_id, name, strict=True)
    items = data["items"]
    item = items.pop(_item_position(items, item_id))
    items.insert(min(max(new_index, 0), len(items)), item)
    store.memory_json_write(instance_id, name, data)
    return items


# --- biography ---------------------------------------------------------------------


def biography_items(store: FileStore, *, instance_id: str,
                    character_id: str | None = None) -> list[dict[str, Any]]:
    """The biography paragraphs; with `character_id`, only that character's (seed 003 §3.4:
    keyed by character — after the first member left, the next one does not inherit them).
    Items from before this was recorded belong to whoever is the instance's character."""
    items = _doc_read(store, instance_id, BIOGRAPHY_FILE, strict=False)["items"]
    if character_id is None:
        return items
    return [item for item in items if item.get("character_id", character_id) == character_id]


def _main_character(store: FileStore, instance_id: str) -> str:
    return str(store.instance_state_read(instance_id).get("character_id") or "")


def biography_add(store: FileStore, *, instance_id: str, text: str, source: str = "manual",
                  position: int | None = None) -> dict[str, Any]:
    data = _doc_read(store, instance_id, BIOGRAPHY_FILE, strict=True)
    item = {"id": random_id("bio"), "text": _text_checked(text), "created_at": utc_now(),
            "source": source, "character_id": _main_character(store, instance_id)}
    items = data["items"]
    items.insert(len(items) if position is None else min(max(position, 0), len(items)), item)
    store.memory_json_write(instance_id, BIOGRAPHY_FILE, data)
    return item


def biography_update(store: FileStore, *, instance_id: str, item_id: str,
                     text: str) -> dict[str, Any]:
    return _item_update(store, instance_id, BIOGRAPHY_FILE, item_id, text)


def biography_remove(store: FileStore, *, instance_id: str, item_id: str) -> dict[str, Any]:
    return _item_remove(store, instance_id, BIOGRAPHY_FILE, item_id)


def biography_reorder(store: FileStore, *, instance_id: str, item_id: str,
                      new_index: int) -> list[dict[str, Any]]:
    return _item_reorder(store, instance_id, BIOGRAPHY_FILE, item_id, new_index)


def biography_from_persona(store: FileStore, *, instance_id: str) -> list[dict[str, Any]]:
    """Keep the current evolved persona as biography paragraphs (one item per paragraph)."""
    persona = store.character_state_read(instance_id).get("evolved_persona", "")
    paragraphs = [part.strip() for part in re.split(r"\n\s*\n|\n", persona) if part.strip()]
    if not paragraphs:
        raise MemoryActionError(gettext("The evolved persona is still empty: there are no "
                                        "paragraphs to keep in the biography."), code="empty",
                                status=409)
    data = _doc_read(store, instance_id, BIOGRAPHY_FILE, strict=True)
    now = utc_now()
    character_id = _main_character(store, instance_id)
    added = [{"id": random_id("bio"), "text": text, "created_at": now, "source": "persona",
              "character_id": character_id} for text in paragraphs]
    data["items"].extend(added)
    store.memory_json_write(instance_id, BIOGRAPHY_FILE, data)
    return added


# --- recaps ------------------------------------------------------------------------


def recap_items(store: FileStore, *, instance_id: str) -> list[dict[str, Any]]:
    return _doc_read(store, instance_id, RECAPS_FILE, strict=False)["items"]


def recap_pending(store: FileStore, *, instance_id: str) -> list[dict[str, Any]]:
    data = _doc_read(store, instance_id, RECAPS_FILE, strict=False)
    return [p for p in data.get("pending_summaries", []) if isinstance(p, dict)]


def recap_update(store: FileStore, *, instance_id: str, item_id: str, text: str) -> dict[str, Any]:
    return _item_update(store, instance_id, RECAPS_FILE, item_id, text)


def recap_remove(store: FileStore, *, instance_id: str, item_id: str) -> dict[str, Any]:
    return _item_remove(store, instance_id, RECAPS_FILE, item_id)


def recap_reorder(store: FileStore, *, instance_id: str, item_id: str,
                  new_index: int) -> list[dict[str, Any]]:
    return _item_reorder(store, instance_id, RECAPS_FILE, item_id, new_index)


def _recap_settings(settings: dict[str, Any]) -> tuple[int, int, int]:
    every = _int_setting(settings.get("recap_every_n_rounds"), 5)
    stack = _int_setting(settings.get("recap_stack_every_rounds"), 10)
    return max(every, 1), max(stack, 1), _int_setting(settings.get("recap_max_entries"), 20)


def _recap_doc(store: FileStore, instance_id: str) -> dict[str, Any]:
    data = _doc_read(store, instance_id, RECAPS_FILE, strict=True)
    pending = data.get("pending_summaries", [])
    data["pending_summaries"] = [p for p in pending if isinstance(p, dict)] \
        if isinstance(pending, list) else []
    return data


async def _recap_chunk(store: FileStore, *, llm: Any, state: dict[str, Any], session_id: str,
                       lines: list[dict[str, Any]], from_turn: int, to_turn: int) -> dict[str, Any]:
    name, locale = await _speaker(store, state)
    messages = prompts.recap_messages(character_name=name, turns=lines, locale=locale)
    text = (await _llm_text(llm, messages, {
        "task": "recap", "character_name": name, "transcript": lines,
        "instance_id": state.get("instance_id")})).strip()
    if not text:
        raise MemoryActionError(gettext("The model returned an empty recap."))
    return {"text": text, "from_turn": from_turn, "to_turn": to_turn, "session_id": session_id,
            "created_at": utc_now()}


def _recap_push(data: dict[str, Any], entry: dict[str, Any], *, stack_every: int,
                max_entries: int) -> dict[str, Any]:
    pending = data["pending_summaries"]
    pending.append(entry)
    covered = sum(p.get("to_turn", 0) - p.get("from_turn", 0) + 1 for p in pending)
    done = {"from_turn": entry["from_turn"], "to_turn": entry["to_turn"]}
    if covered < stack_every:
        return {"action": "pending", **done, "pending": len(pending)}
    item = {"id": random_id("recap"), "text": "\n".join(p["text"] for p in pending),
            "created_at": utc_now(), "from_turn": pending[0].get("from_turn"),
            "to_turn": pending[-1].get("to_turn"), "session_id": pending[-1].get("session_id"),
            "from_session_id": pending[0].get("session_id")}
    data["items"].append(item)
    data["pending_summaries"] = []
    return {"action": "stacked", **done, "pending": 0, "item": item,
            "removed": _recap_trim(data, max_entries)}


def _recap_trim(data: dict[str, Any], max_entries: int) -> list[str]:
    items = data["items"]
    if max_entries <= 0 or len(items) <= max_entries:
        return []
    # Items can be reordered by hand, so "oldest" is by creation time, list order breaking ties.
    by_age = sorted(range(len(items)), key=lambda i: (str(items[i].get("created_at", "")), i))
    drop = set(by_age[: len(items) - max_entries])
    data["items"] = [item for i, item in enumerate(items) if i not in drop]
    return [items[i]["id"] for i in sorted(drop)]


def _recap_covered(data: dict[str, Any], session_id: str, turn: int) -> bool:
    return any(entry.get("session_id") == session_id and entry.get("to_turn", 0) >= turn
               for entry in [*data["pending_summaries"], *data["items"]])


def _current_turns(store: FileStore,
                   instance_id: str) -> tuple[dict[str, Any], str, dict[int, list[dict]]]:
    state = store.instance_state_read(instance_id)
    session_id = state["current_session_id"]
    messages = store.session_read(instance_id, session_id).messages_shown_to_model
    return state, session_id, {group[0]["turn"]: group for group in _turn_groups(messages)}


async def recap_maybe_roll(store: FileStore, *, instance_id: str, llm: Any,
                           settings: dict[str, Any]) -> dict[str, Any] | None:
    """Called after each finished turn. Returns what it did, or None when it had nothing to do.
    An LLM failure changes nothing and comes back as {"action": "failed", "message": ...}."""
    if not settings.get("recaps_enabled"):
        return None
    every, stack, max_entries = _recap_settings(settings)
    state, session_id, groups = await asyncio.to_thread(_current_turns, store, instance_id)
    last = max(groups, default=0)
    if last <= 0 or last % every:
        return None
    first = last - every + 1
    lines = [line for turn in sorted(groups) if first <= turn <= last for line in groups[turn]]
    try:
        data = _recap_doc(store, instance_id)
        if _recap_covered(data, session_id, last):
            return None
        entry = await _recap_chunk(store, llm=llm, state=state, session_id=session_id,
                                   lines=lines, from_turn=first, to_turn=last)
    except MemoryActionError as exc:
        return {"action": "failed", "from_turn": first, "to_turn": last, "message": exc.message}
    result = _recap_push(data, entry, stack_every=stack, max_entries=max_entries)
    store.memory_json_write(instance_id, RECAPS_FILE, data)
    return result


async def recap_rebuild(store: FileStore, *, instance_id: str, llm: Any,
                        settings: dict[str, Any]) -> dict[str, Any]:
    """Recompute the current session's recaps (its items and pending summaries) from its turns;
    recaps of earlier sessions are kept. All LLM calls happen before anything is written."""
    every, stack, max_entries = _recap_settings(settings)
    state, session_id, groups = await asyncio.to_thread(_current_turns, store, instance_id)
    data = _recap_doc(store, instance_id)
    entries = []
    for end in range(every, max(groups, default=0) + 1, every):
        lines = [line for turn in sorted(groups) if end - every < turn <= end
                 for line in groups[turn]]
        if lines:
            entries.append(await _recap_chunk(store, llm=llm, state=state, session_id=session_id,
                                              lines=lines, from_turn=end - every + 1, to_turn=end))
    rebuilt = {**data,
               "items": [i for i in data["items"] if session_id not in
                         (i.get("session_id"), i.get("from_session_id"))],
               "pending_summaries": [p for p in data["pending_summaries"]
                                     if p.get("session_id") != session_id]}
    for entry in entries:
        _recap_push(rebuilt, entry, stack_every=stack, max_entries=max_entries)
    store.memory_json_write(instance_id, RECAPS_FILE, rebuilt)
    return {"chunks": len(entries), "items": rebuilt["items"],
            "pending": rebuilt["pending_summaries"]}


# --- author's note -----------------------------------------------------------------------

AUTHORS_NOTE_FILE = "authors_note"
NOTE_ROLES = ("system", "user", "assistant")
AUTHORS_NOTE_DEFAULT = {"text": "", "depth": 4, "frequency": 1, "role": "system"}


def authors_note_read(store: FileStore, *, instance_id: str) -> dict[str, Any]:
    """The note with every field present; a hand-edited odd value reads as its default."""
    try:
        note = store.memory_json_read(instance_id, AUTHORS_NOTE_FILE, {})
    except (StoreError, ValueError):
        note = {}
    note = note if isinstance(note, dict) else {}
    checks = {"text": lambda v: isinstance(v, str),
              "depth": lambda v: type(v) is int and 0 <= v <= 50,
              "frequency": lambda v: type(v) is int and 1 <= v <= 100,
              "role": lambda v: v in NOTE_ROLES}
    return {key: note[key] if check(note.get(key)) else AUTHORS_NOTE_DEFAULT[key]
            for key, check in checks.items()}


def authors_note_save(store: FileStore, *, instance_id: str,
                      note: dict[str, Any]) -> dict[str, Any]:
    """Save a validated note (text stripped); empty text turns the note off."""
    saved = {**AUTHORS_NOTE_DEFAULT, **note, "text": str(note.get("text", "")).strip()}
    store.memory_json_write(instance_id, AUTHORS_NOTE_FILE, saved)
    return saved
>>>>>>> sec-finish
