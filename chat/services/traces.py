"""A turn's trace as the pages and the API show it: its conversation read back from the
session (or the backup that still holds it) and its token figures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chat.services.sessions import session_read_repaired
from personalab.lib.filestore.session_read import read_session_bytes
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import is_valid_id
from personalab.lib.llm_text import trace_prompt_text
from personalab.lib.session_tail import states_back
from personalab.lib.tokens import count_tokens
from personalab.lib.trace_refs import conversation_matches, messages_rebuild


def trace_rebuild(store: FileStore, *, instance_id: str, trace_id: str) -> dict[str, Any]:
    """A trace as the pages and the API show it: its conversation part (kept as references
    into the session, personalab/lib/trace_refs.py) read back from the session file or, when
    the session was edited or archived since, from the copy that still holds those lines,
    and the trace says which (`conversation_source`, `session_edited`)."""
    trace = store.trace_read(instance_id, trace_id)
    if "finished_at" not in trace:
        _reply_unfinished(store, instance_id, trace)
    conversation = trace.get("conversation")
    if not isinstance(conversation, dict):
        _text_prompt(trace)
        return trace  # an older trace with the messages copied in, or nothing referred to
    session_id = str(conversation.get("session_id") or trace.get("session_id") or "")
    lines, first_index = _lines_referred(store, instance_id, session_id, conversation)
    if lines is not None:
        trace["conversation_source"] = "session"
    else:
        for source, path, data in _session_states(store, instance_id, session_id):
            read = read_session_bytes(path, data)
            if conversation_matches(conversation, read.lines):
                lines, first_index = read.lines, 0
                trace["conversation_source"] = source
                break
    trace["session_edited"] = trace.get("conversation_source") != "session"
    if lines is None:
        trace["conversation_source"] = None
    trace["messages"] = messages_rebuild(trace.get("messages") or [], lines,
                                         first_index=first_index)
    _text_prompt(trace)
    return trace


def _lines_referred(store: FileStore, instance_id: str, session_id: str,
                    conversation: dict[str, Any]) -> tuple[list[dict[str, Any]] | None, int]:
    """The session's lines the trace refers to, when the session still holds them as sent (only
    those parsed, through the line index: an old session holds 100k lines), and the position
    of the first line given; (None, 0) otherwise."""
    first, last = conversation.get("first_line"), conversation.get("last_line")
    if not (is_valid_id(session_id) and isinstance(first, int) and isinstance(last, int)
            and 0 <= first <= last and store.session_path(instance_id, session_id).is_file()):
        return None, 0
    read = store.session_read(instance_id, session_id,
                              pick=lambda kinds: (min(first, len(kinds)),
                                                  min(last + 1, len(kinds))))
    if not conversation_matches(conversation, read.lines, first_index=read.first_index):
        return None, 0
    return read.lines, read.first_index


def _text_prompt(trace: dict[str, Any]) -> None:
    """A text backend was sent one string: the inspector shows it (and its stop sequences),
    rebuilt from the messages with the template the turn used."""
    request = trace.get("request") if isinstance(trace.get("request"), dict) else {}
    note = request.get("instruct")
    if isinstance(note, dict) and isinstance(trace.get("messages"), list):
        generation = request.get("generation")
        prompt = trace_prompt_text(trace["messages"], note, generation=generation
                                   if isinstance(generation, dict) else None)
        if prompt is not None:
            trace["prompt_text"], trace["prompt_stop"] = prompt.text, prompt.stop


TRACE_FIGURES = ("trace_id", "instance_id", "session_id", "turn", "created_at", "total_tokens",
                 "middle_tokens", "max_total_tokens")
SECTION_FIGURES = ("name", "region", "tokens", "chars", "cut", "omitted")


def trace_prompt_limit(trace: dict[str, Any]) -> int:
    """The most the prompt could hold on that turn: the context window less the reply when the
    model's window is smaller than the server's cap (a turn is refused past it), else the cap."""
    window = trace.get("window") if isinstance(trace.get("window"), dict) else {}
    for limit in (window.get("prompt_limit"), trace.get("max_total_tokens")):
        if isinstance(limit, int) and limit > 0:
            return limit
    return 1


def trace_sections(store: FileStore, *, instance_id: str, trace_id: str) -> dict[str, Any]:
    """The trace's token figures and its sections without their texts: what a budget bar
    draws, read from the trace file alone (the session is not read)."""
    trace = store.trace_read(instance_id, trace_id)
    return {**{key: trace.get(key) for key in TRACE_FIGURES},
            "prompt_limit": trace_prompt_limit(trace),
            "unfinished": "finished_at" not in trace,
            "sections": [{key: section.get(key) for key in SECTION_FIGURES}
                         for section in trace.get("sections") or [] if isinstance(section, dict)]}


def trace_info(store: FileStore, *, instance_id: str, trace_id: str) -> dict[str, Any]:
    """What a message's Info shows of the reply a trace made: when, which model, its tokens
    (the prompt's and the reply's own) and how long it took, read from the trace file alone."""
    trace = store.trace_read(instance_id, trace_id)
    request = trace.get("request") if isinstance(trace.get("request"), dict) else {}
    reply = trace.get("reply") if isinstance(trace.get("reply"), dict) else {}
    timings = trace.get("timings") if isinstance(trace.get("timings"), dict) else {}
    content = reply.get("content")
    return {"trace_id": trace.get("trace_id"), "turn": trace.get("turn"),
            "created_at": trace.get("created_at"), "finished_at": trace.get("finished_at"),
            "unfinished": "finished_at" not in trace,
            "model": request.get("model") or "", "provider": request.get("provider") or "",
            "prompt_tokens": trace.get("total_tokens"),
            "reply_tokens": count_tokens(content) if isinstance(content, str) else None,
            **{key: timings.get(key) for key in ("first_token_ms", "llm_ms", "total_ms")}}


def _reply_unfinished(store: FileStore, instance_id: str, trace: dict[str, Any]) -> None:
    """A trace written as the request went out and never completed: the reply is still
    streaming (`reply.streaming`) or the server stopped during it (`reply`: the line it kept,
    marked interrupted, or None). `unfinished` says so."""
    trace["unfinished"] = True
    session_id = str(trace.get("session_id") or "")
    if not (is_valid_id(session_id) and store.session_path(instance_id, session_id).is_file()):
        return
    # A line a crash left unfinished is completed (marked interrupted) first, as on the chat page.
    read = session_read_repaired(store, instance_id, session_id, newest=2)
    if read.partial is not None and read.partial.get("trace_id") == trace.get("trace_id"):
        trace["reply"] = {**read.partial, "streaming": True}
        return

    def kept(lines: list[dict[str, Any]]) -> dict[str, Any] | None:
        return next((line for line in reversed(lines)
                     if line.get("trace_id") == trace.get("trace_id")), None)

    trace["reply"] = kept(read.lines) or (None if read.complete else kept(
        store.session_read(instance_id, session_id, cached=True).lines))


def _session_states(store: FileStore, instance_id: str,
                    session_id: str) -> Iterator[tuple[str, Path, bytes]]:
    """The session's file now, then each earlier state its backups under sessions/history/
    give back (newest first; a backup of a tail change holds only the lines it replaced,
    personalab/lib/session_tail.py), then its archived copies: (source, path, bytes)."""
    sessions = store.sessions_dir(instance_id)
    path = store.session_path(instance_id, session_id)
    data = path.read_bytes() if is_valid_id(session_id) and path.is_file() else b""
    if data:
        yield "session", path, data
    backups = sorted((sessions / "history").glob(f"{session_id}.*.jsonl"), reverse=True)
    for source, state in states_back(data, ((f"history/{backup.name}", backup.read_bytes())
                                             for backup in backups)):
        yield source, path, state
    for archived in sorted((sessions / "archive").glob(f"{session_id}.*.jsonl"), reverse=True):
        yield f"archive/{archived.name}", archived, archived.read_bytes()
