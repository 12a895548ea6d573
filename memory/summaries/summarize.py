"""Summarize a session (SPEC §5): its events go to the memory ledgers and a new session
continues from the summaries.

The caller holds the instance lock. Write order: LLM → parse → journal → new session file →
instance_state (the commit) → ledgers (summaries.jsonl, plots.jsonl) → Chroma;
memory/summaries/journal.py finishes or undoes an attempt cut short. Until every part's answer
is parsed nothing is written but the answered parts (memory/summaries/parts_kept.py), which a
retry after a failed part goes on from. A Chroma failure is a warning (the ledger is written,
`reindex` restores the collections). The old session file is never touched.
The new session carries the newest of the previous session's summary lines and the new
events' summaries: as many as a prompt could ever send (their tokens within the prompt's room),
so a turn's cost does not grow with the number of summarizes. The older ones stay where they
were: in the earlier sessions' files, the ledger and the memory index (recall). Seeded turns
keep their original lines (timestamps included, so later reads can recognise them as copies);
only `turn` is renumbered from 1. Summarizing a session replaces its ledger records, so an id
is never repeated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext, gettext_noop

from memory import prompts
from memory.action_base import (
    LinesShown,
    int_setting,
    lines_shown_off_loop,
    llm_text,
    player_of,
    session_messages,
    speaker_of,
    thread_writes_whole,
    turn_groups,
)
from memory.errors import MemoryActionError
from memory.selectors import recall_enabled
from memory.summaries.journal import (
    summarize_journal_commit,
    summarize_journal_write,
    summarize_recover,
)
from memory.summaries.parts_kept import (
    part_key,
    parts_kept_read,
    parts_kept_remove,
    parts_kept_write,
)
from memory.summaries.transcript_parts import (
    EARLIER_SHARE,
    newest_fitting,
    request_tokens,
    transcript_parts,
)
from personalab.lib.filestore.defaults import DEFAULT_CONFIG
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.session_read import SessionRead
from personalab.lib.filestore.store import FileStore
from personalab.lib.jsontext import json_loads
from personalab.lib.uncancelled import thread_whole

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
    """Who the events belong to and when they were made; `speakers` (character ids joined by
    "|") names who replied in the summarized lines, so a group's summaries say whose story they
    are (and a member that joined later recalls those it spoke in)."""
    speakers = sorted({str(line["speaker"]) for line in messages if line.get("speaker")})
    return {"instance_id": instance_id, "character_id": state.get("character_id"),
            "background_id": state.get("background_id"), "speakers": "|".join(speakers),
            "created_at": utc_now()}


def _event_records(owner: dict[str, Any], session_id: str,
                   events: list[dict[str, str]]) -> tuple[list[dict], list[dict]]:
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


async def _events_ask(store: FileStore, llm: Any, *, name: str, locale: str, player: str,
                      earlier: list[str], messages: list[dict[str, Any]],
                      prompt_tokens: int | None, say: Callable[..., None], instance_id: str,
                      session_id: str) -> tuple[list[dict[str, str]], int]:
    """The story events of `messages` and how many parts were kept from an earlier attempt,
    asked in parts that each fit `prompt_tokens`: a long chat (an imported one: thousands of
    messages) in one request is refused by the server, or cut without a word. Each part is told
    the story so far: the newest summaries that fit. Each answered part is kept
    (memory/summaries/parts_kept.py): a part that fails loses none before it."""
    story_room = None if prompt_tokens is None else int(prompt_tokens * EARLIER_SHARE)
    bare = prompts.summarize_messages(character_name=name, summaries=[], turns=[], locale=locale)
    fixed = request_tokens(bare)
    # Counting a long session's tokens is CPU work: off the event loop.
    parts = await thread_whole(
        transcript_parts, messages, character_name=name, locale=locale, player_name=player,
        room=None if prompt_tokens is None else max(prompt_tokens - fixed - story_room, 1))
    keys = [part_key(part, character_name=name, locale=locale) for part in parts]
    kept = parts_kept_read(store, instance_id=instance_id, session_id=session_id, keys=keys)
    events = [event for _, part_events in kept for event in part_events]
    reused = len(kept)
    if reused:
        say(gettext_noop("Going on from part %(part)s of %(parts)s: the parts before it were "
                         "kept"), {"part": reused + 1, "parts": len(parts)})
    for number, part in enumerate(parts[reused:], start=reused + 1):
        if len(parts) == 1:
            say(gettext_noop("Asking the model for the story events"))
        else:
            say(gettext_noop("Asking the model for the story events, part %(part)s of "
                             "%(parts)s"), {"part": number, "parts": len(parts)})
        so_far = earlier + [event["summary"] for event in events]
        try:
            text = await llm_text(
                llm, prompts.summarize_messages(
                    character_name=name, locale=locale, turns=part, player_name=player,
                    summaries=so_far if story_room is None
                    else newest_fitting(so_far, story_room)),
                {"task": "summarize", "character_name": name, "transcript": part,
                 "instance_id": instance_id})
            say(gettext_noop("Reading the model's answer"))
            part_events = parse_events_json(text)
        except MemoryActionError as exc:
            if len(parts) == 1:
                raise
            raise _part_failed(exc, number, len(parts)) from exc
        events.extend(part_events)
        kept.append((keys[number - 1], part_events))
        if number < len(parts):
            parts_kept_write(store, instance_id=instance_id, session_id=session_id, kept=kept)
    return events, reused


def _part_failed(exc: MemoryActionError, number: int, parts: int) -> MemoryActionError:
    """Part `number` of `parts` failed: which one, and that the parts before it are kept."""
    if number == 1:
        message = gettext("Part 1 of %(parts)s failed; nothing was changed. Summarize again to "
                          "retry. (%(error)s)") % {"parts": parts, "error": exc.message}
    else:
        message = gettext(
            "Part %(part)s of %(parts)s failed; the parts before it are kept and nothing was "
            "lost or changed in the chat. Summarize again to go on from part %(part)s. "
            "(%(error)s)") % {"part": number, "parts": parts, "error": exc.message}
    return MemoryActionError(message, detail=exc.detail, code=exc.code, status=exc.status,
                             part=number, parts=parts, parts_kept=number - 1)


async def memory_summarize(store: FileStore, *, instance_id: str, llm: Any, index: Any,
                           progress: Callable[..., None] | None = None,
                           prompt_tokens: int | None = None,
                           shown: LinesShown | None = None) -> dict[str, Any]:
    """`progress(text, values=None)` hears each stage; `prompt_tokens`: what one request to the
    model may hold (the context window less the reply), so a long session is asked in parts;
    `shown`: how the chat's prompt shows its lines (its regex scripts), which the model is
    asked about (the new session keeps them as stored)."""
    say = progress or (lambda text, values=None: None)
    state, session, messages = await thread_writes_whole(_session_to_summarize, store,
                                                         instance_id, say)
    old_id = state["current_session_id"]
    if not messages:
        raise MemoryActionError(gettext("The current session has no conversation yet: nothing "
                                        "to summarize."))
    earlier = [str(line.get("content") or "") for line in session.summaries]
    name, locale = await speaker_of(store, state)
    events, reused = await _events_ask(store, llm, name=name, locale=locale,
                                       player=await player_of(store, state), earlier=earlier,
                                       messages=await lines_shown_off_loop(messages, shown),
                                       prompt_tokens=prompt_tokens, say=say,
                                       instance_id=instance_id, session_id=old_id)

    owner, summary_records, plot_records, new_id = await thread_writes_whole(
        _summarized_write, store, instance_id=instance_id, state=state, events=events,
        summaries=earlier + [event["summary"] for event in events], messages=messages,
        say=say, prompt_tokens=prompt_tokens)
    warnings: list[dict[str, Any]] = []
    # Recall off embeds nothing, as with turns: the ledger holds the events, and the sync that
    # follows recall turned back on indexes them (memory/vectors/sync.py, the ledgers' watermark).
    if recall_enabled(store):
        say(gettext_noop("Writing the search index"))
        # Embedding is CPU work: off the event loop, or every request of every user waits.
        warnings = await thread_whole(_events_index, index, owner, old_id, events)
    return {"old_session_id": old_id, "new_session_id": new_id, "events": len(events),
            "summary_ids": [r["id"] for r in summary_records],
            "plot_ids": [r["id"] for r in plot_records], "parts_reused": reused,
            "warnings": warnings}


def _session_to_summarize(store: FileStore, instance_id: str, say: Callable[..., None]
                          ) -> tuple[dict[str, Any], SessionRead, list[dict[str, Any]]]:
    """The chat's state, its current session and that session's messages: read on a thread,
    as `_summarized_write` writes, for the session is read whole (a long chat's held the event
    loop, and every account's requests, for as long)."""
    summarize_recover(store, instance_id=instance_id)
    say(gettext_noop("Reading the current session"))
    state = store.instance_state_read(instance_id)
    session = store.session_read(instance_id, state["current_session_id"])
    return state, session, session_messages(session)


def _summarized_write(store: FileStore, *, instance_id: str, state: dict[str, Any],
                      events: list[dict[str, Any]], summaries: list[str],
                      messages: list[dict[str, Any]], say: Callable[..., None],
                      prompt_tokens: int | None) -> tuple[dict[str, Any], list, list, str]:
    """The events' records journaled, the new session made and switched to, the journal
    committed: (the events' owner, summary records, plot records, the new session's id)."""
    old_id = state["current_session_id"]
    owner = _event_owner(instance_id, state, messages)
    summary_records, plot_records = _event_records(owner, old_id, events)
    new_id = store.session_next_id(instance_id)
    summarize_journal_write(store, instance_id=instance_id, old_session_id=old_id,
                            new_session_id=new_id,
                            records={"summaries": summary_records, "plots": plot_records})
    _session_continue(store, instance_id=instance_id, old_id=old_id, new_id=new_id,
                      summaries=summaries, messages=messages, say=say,
                      prompt_tokens=prompt_tokens)
    say(gettext_noop("Switching to the new session"))
    state["current_session_id"] = new_id
    store.instance_state_write(instance_id, state)
    say(gettext_noop("Writing the memory ledger"))
    summarize_journal_commit(store, instance_id=instance_id)
    parts_kept_remove(store, instance_id=instance_id)
    return owner, summary_records, plot_records, new_id


def _session_continue(store: FileStore, *, instance_id: str, old_id: str, new_id: str,
                      summaries: list[str], messages: list[dict[str, Any]],
                      say: Callable[[str], None], prompt_tokens: int | None) -> None:
    config = store.config_read()
    last_n = max(int_setting(config.get("thresholds", {}).get("summary_last_n_turns"), 5), 0)
    order = config.get("preferences", {}).get("summary_order", "summary_first")
    groups = turn_groups(messages)[-last_n:] if last_n else []
    seeded = newest_fitting(summaries, summary_seed_room(config, prompt_tokens))
    say(gettext_noop("Creating the new session"))
    store.session_create(instance_id, new_id, continued_from=old_id,
                         lines=summary_seed_lines(seeded, groups, order=order))


def summary_seed_room(config: dict[str, Any], prompt_tokens: int | None) -> int:
    """The tokens of summary lines a new session is seeded with: a prompt's whole room (the
    window less the reply, never over limits.max_total_tokens), as no prompt can send more.
    Each line is counted at its text and 2 tokens, less than a prompt pays for it (its
    template's words and 4), so every line a prompt could keep is seeded."""
    limits = config.get("limits") if isinstance(config.get("limits"), dict) else {}
    ceiling = int_setting(limits.get("max_total_tokens"),
                          DEFAULT_CONFIG["limits"]["max_total_tokens"])
    return ceiling if prompt_tokens is None else min(prompt_tokens, ceiling)
