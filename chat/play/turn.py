"""One turn, from "send" to a finished, persisted reply (seeds/personalab-flow.md steps 1-7).

File first, then push: every token handed to `emit` is already in the session file.
The instance lock is held for the whole turn, so a second sender (another tab, another
worker) is refused instead of interleaving lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Awaitable, Callable

from channels.db import database_sync_to_async
from django.conf import settings

from chat.groups.speaker_shown import speaker_shown
from chat.groups.speakers import Pick
from chat.play import context as turn_context
from chat.play.account_turns import AccountTurnsBusy, account_turn_awaited
from chat.play.line_limit import line_over_limit, line_said
from chat.play.overflow import RETRIES, overflow_learn
from chat.play.prompt_refusal import prompt_refusal_said
from chat.play.recap_roll import recaps_roll
from chat.play.regex_scripts import reply_regexed, turn_regex
from chat.play.reply_clean import continue_pieces, reply_names, reply_tidied
from chat.play.reply_limit import pieces_capped, truncated_warning
from chat.play.reply_relay import Emit, ReplyPush, reply_relay
from chat.play.take_back import RedoRefused, reply_follows_its_turn
from chat.play.turn_records import Prepared, TurnContext, TurnRefused
from chat.play.variables import turn_variables_locked, turn_variables_save
from chat.prompt.window import CONTEXT_TOKENS_DEFAULT
from chat.services.index import trace_index
from director.services import director_step
from library.errors import ItemWithheld
from library.find_replace.scripts import RegexRun
from personalab.lib.embedding.embeddings import queries_once
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.store import FileStore
from personalab.lib.filestore.writer import AssistantLineWriter
from personalab.lib.llm import LLMError, Provider
from personalab.lib.locks import LockUnavailable, lock_awaited
from personalab.lib.reply_names import reply_stop_start_cut
from personalab.lib.reply_stream import ReplyShown, ReplyShownPaced
from personalab.lib.store_errors import InstanceBusy, StoreError
from personalab.lib.story_string import StoryStringError
from personalab.lib.uncancelled import run_whole, thread_whole

log = logging.getLogger(__name__)


async def events_dropped(event: dict[str, Any]) -> None:
    """A JSON reply's `emit`: the token events are all in the whole result it answers with."""
EMPTY_REPLY = "(无回复)"
ERROR_REPLY_OPENING = "(系统错误: "
# Instance-state writes of finishing turns, beside their trace writes (_reply_settle).
_state_writes = ThreadPoolExecutor(max_workers=4, thread_name_prefix="state-write")


@dataclass
class TurnResult:
    trace_id: str
    session_id: str
    instance_id: str
    turn: int
    answer_text: str
    warnings: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False
    empty: bool = False
    truncated: bool = False
    error: str | None = None
    director: dict[str, Any] | None = None
    speaker: str | None = None
    unanswered: list[str] = field(default_factory=list)  # a stopped round's never reached

    def done_event(self) -> dict[str, Any]:
        event = {"type": "done", "trace_id": self.trace_id, "turn": self.turn,
                 "session_id": self.session_id, "interrupted": self.interrupted,
                 "empty": self.empty, "truncated": self.truncated, "error": bool(self.error),
                 "director": self.director}
        if self.unanswered:
            event["unanswered"] = self.unanswered
        return {**event, "speaker": self.speaker} if self.speaker else event


def new_trace_id() -> str:
    return f"trc_{secrets.token_hex(8)}"


def validate_user_text(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise TurnRefused("message is empty", code="bad_request", status=400)
    limit = settings.PERSONALAB_MAX_MESSAGE_CHARS
    if len(text) > limit:
        raise TurnRefused(f"message is too long ({len(text)} > {limit} characters)",
                          code="too_large", status=413)
    return text


async def turn_run(store: FileStore, *, instance_id: str, user_text: str, emit: Emit,
                   stop: asyncio.Event | None = None, provider: Provider | None = None,
                   regenerate: bool = False, continue_reply: bool = False,
                   trigger: bool = False) -> TurnResult:
    """Run one turn. Raises TurnRefused before anything streams; afterwards every outcome
    (done, stop, disconnect, empty, LLM error) ends in a whole line and a TurnResult.
    `trigger`: the reply to the lines already there, no new player line."""
    if not (regenerate or continue_reply or trigger):
        user_text = validate_user_text(user_text)
    stop = stop or asyncio.Event()
    async with instance_locked(store, instance_id):
        result = await turn_locked(store, instance_id=instance_id, user_text=user_text,
                                   emit=emit, stop=stop, provider=provider,
                                   regenerate=regenerate, continue_reply=continue_reply,
                                   trigger=trigger)
    await recaps_roll(store, instance_id, provider, emit)
    return result


@contextlib.asynccontextmanager
async def instance_locked(store: FileStore, instance_id: str) -> AsyncIterator[None]:
    """The instance lock for a turn or a round; held by someone else, the turn is refused.
    Inside, a query text is embedded once (queries_once): recall, the director's fallback and
    every member of a round search the player's line, and each embedded it again (on a busy
    machine a query embedding is most of a turn's own time)."""
    held = contextlib.AsyncExitStack()
    try:
        await held.enter_async_context(lock_awaited(store.instance_lock(instance_id)))
    except InstanceBusy as exc:
        raise TurnRefused(str(exc), code="busy", status=409) from None
    except LockUnavailable as exc:
        raise TurnRefused(exc.message, code=exc.code, status=exc.status) from None
    async with held, account_turn_or_refused(store, instance_id):
        with queries_once():
            yield


@contextlib.asynccontextmanager
async def account_turn_or_refused(store: FileStore, instance_id: str) -> AsyncIterator[None]:
    """One of the chat owner's replies at once (chat/play/account_turns.py), or TurnRefused."""
    held = contextlib.AsyncExitStack()
    try:
        await held.enter_async_context(account_turn_awaited(store, instance_id))
    except AccountTurnsBusy as exc:
        raise TurnRefused(exc.message, code=exc.code, status=exc.status) from None
    async with held:
        yield


@dataclass
class Ready:
    """A turn up to its request: context loaded, player line written, prompt built."""

    ctx: TurnContext
    provider: Provider
    prepared: Prepared
    trace_id: str
    started: float
    timings: dict[str, float]
    # Who answers, as the page names the bubble: sent with the reply's first event.
    shown: dict[str, Any] = field(default_factory=dict)


def turn_ready(store: FileStore, *, instance_id: str, user_text: str, regenerate: bool = False,
               continue_reply: bool = False, speaker: Pick | None = None,
               trigger: bool = False, provider: Provider | None = None,
               in_round: bool = False) -> Ready:
    """Everything before the request, in the calling (worker) thread."""
    started = time.perf_counter()
    timings: dict[str, float] = {}
    trace_id = new_trace_id()
    with turn_variables_locked(store, instance_id=instance_id):
        ctx, provider, prepared = _turn_ready(
            store, instance_id=instance_id, user_text=user_text, regenerate=regenerate,
            continue_reply=continue_reply, speaker=speaker, trigger=trigger, provider=provider,
            started=started, timings=timings, in_round=in_round)
        if not prepared.prompt.refused:  # a refused prompt is no turn: its macros changed nothing
            turn_variables_save(store, instance_id=ctx.instance_id, session_id=ctx.session_id,
                                chat=ctx.variables, built=prepared.prompt.macro_variables,
                                trace_id=trace_id)
    shown = speaker_shown(store, character=ctx.character, character_id=(
        ctx.speaker.character_id if ctx.speaker else ctx.instance_state.get("character_id")))
    return Ready(ctx, provider, prepared, trace_id, started, timings, shown)


async def turn_locked(store: FileStore, *, instance_id: str, user_text: str, emit: Emit,
                      stop: asyncio.Event, provider: Provider | None, regenerate: bool,
                      continue_reply: bool, speaker: Pick | None = None,
                      trigger: bool = False, director_counts_miss: bool = True,
                      ready: Ready | None = None, in_round: bool = False) -> TurnResult:
    """One reply; the caller holds the instance lock. `speaker`: the member who answers in a
    conversation with several characters; `trigger`: it answers without a new player line;
    `in_round`: it follows another member's reply of the same round, in the same turn.
    `ready`: turn_ready's result when the caller already made it in its own worker hop."""
    if ready is None:
        # One hop to a worker thread for everything before the request: each hop is a thread
        # wake-up, and under load a wake-up can cost more than the work.
        ready = await line_said(thread_whole(
            turn_ready, store, instance_id=instance_id, user_text=user_text,
            regenerate=regenerate, continue_reply=continue_reply, speaker=speaker,
            trigger=trigger, provider=provider, in_round=in_round))
    ctx, provider, prepared = ready.ctx, ready.provider, ready.prepared
    trace_id, started, timings = ready.trace_id, ready.started, ready.timings
    for warning in prepared.warnings:
        await emit(warning)
    created_at = utc_now()
    if prepared.prompt.refused:
        trace = turn_context.trace_start(ctx, prepared, trace_id=trace_id, provider=provider,
                                         created_at=created_at)
        trace.update(reply=None, refused=prepared.prompt.refused, timings=timings)
        await database_sync_to_async(_trace_save, thread_sensitive=False)(
            store, instance_id, trace_id, trace)
        raise TurnRefused(prompt_refusal_said(prepared.prompt), code="prompt_too_long", status=422,
                          trace_id=trace_id)

    # What is sent is written down while the request goes out, off the token path, so a reply
    # cut by a crash still has its prompt to show; the end of the turn completes it.
    sent = asyncio.ensure_future(database_sync_to_async(_trace_sent, thread_sensitive=False)(
        store, ctx, prepared, provider=provider, trace_id=trace_id, created_at=created_at,
        timings=dict(timings)))
    llm_started = time.perf_counter()
    writer, flags, first_token_ms = await _stream_reply(store, ctx, prepared, provider, emit,
                                                        stop, trace_id=trace_id,
                                                        shown=ready.shown)
    for _ in range(RETRIES):
        if flags.get("overflow") is None or stop.is_set():
            break
        again = await thread_whole(_prepared_smaller, store, ctx, prepared, flags, timings)
        if again is None:
            break
        prepared = again
        await emit(prepared.warnings[-1])
        await sent  # the first request's trace is written before the second one replaces it
        sent = asyncio.ensure_future(database_sync_to_async(_trace_sent, thread_sensitive=False)(
            store, ctx, prepared, provider=provider, trace_id=trace_id, created_at=created_at,
            timings=dict(timings)))
        writer, flags, first_token_ms = await _stream_reply(
            store, ctx, prepared, provider, emit, stop, trace_id=trace_id, shown=ready.shown,
            writer=writer)
    timings["llm_ms"] = _ms(llm_started)
    if first_token_ms is not None:
        timings["first_token_ms"] = first_token_ms
    if flags.get("truncated"):
        prepared.warnings.append(truncated_warning(settings.PERSONALAB_MAX_REPLY_CHARS))

    # The finished line (fsynced), the director's step, the trace file and its row take one hop
    # to a worker thread: each hop is a thread wake-up between the last token and `done`.
    record, director_report = await run_whole(_settled(sent, database_sync_to_async(
        _reply_settle, thread_sensitive=False), store, ctx, prepared, writer, flags,
        provider=provider, trace_id=trace_id, created_at=created_at,
        counts_miss=director_counts_miss and not reply_follows_its_turn(ctx.lines, ctx.turn),
        started=started, timings=timings))
    if record.get("error"):
        await emit({"type": "error", "message": record["content"], "trace_id": trace_id})
    if record.get("truncated"):
        await emit(prepared.warnings[-1])
    turn_context.memory_after_turn(store, ctx, record)
    return TurnResult(
        trace_id=trace_id, session_id=ctx.session_id, instance_id=instance_id, turn=ctx.turn,
        answer_text=record["content"], warnings=prepared.warnings,
        interrupted=bool(record.get("interrupted")), empty=bool(record.get("empty")),
        truncated=bool(record.get("truncated")),
        error=record["content"] if record.get("error") else None, director=director_report,
        speaker=ctx.speaker.character_id if ctx.speaker else None)  # a redo's own pick too


def _turn_ready(store: FileStore, *, instance_id: str, user_text: str, regenerate: bool,
                continue_reply: bool, speaker: Pick | None, trigger: bool,
                provider: Provider | None, started: float, timings: dict[str, float],
                in_round: bool = False) -> tuple[TurnContext, Provider, Prepared]:
    try:
        ctx = turn_context.context_load(
            store, instance_id=instance_id, user_text=user_text, regenerate=regenerate,
            continue_reply=continue_reply, speaker=speaker, trigger=trigger, in_round=in_round)
    except RedoRefused as exc:
        raise TurnRefused(str(exc), code="bad_request", status=400) from None
    except ItemWithheld as exc:
        raise TurnRefused(str(exc), code=exc.code, status=exc.status) from None
    except (StoreError, ValueError) as exc:
        raise TurnRefused(f"the turn cannot start: {exc}", code="unreadable", status=500) from None
    except OSError as exc:
        raise TurnRefused(f"the data folder cannot be written: {exc.strerror or exc}",
                          code="storage_error", status=507) from None
    provider = provider or turn_context.provider_current(store)
    timings["load_ms"] = _ms(started)
    if not (regenerate or continue_reply or trigger):
        line_over_limit(store, ctx)  # refused before the prompt is built
    try:
        return ctx, provider, turn_context.context_prepare(store, ctx, timings)
    except StoryStringError as exc:  # the configured context template cannot be used
        raise TurnRefused(exc.message, code=exc.code, status=500) from None


def _prepared_smaller(store: FileStore, ctx: TurnContext,
                      prepared: Prepared, flags: dict[str, Any],
                      timings: dict[str, float]) -> Prepared | None:
    """The turn prepared again for the smaller window the server's refusal taught (its warning
    last), or None: no smaller window helps, and the refusal stands as the reply's error."""
    warning = overflow_learn(
        store, flags["overflow"], prompt_tokens=prepared.prompt.total_tokens,
        window_tokens=int(prepared.prompt.window.get("context_tokens") or CONTEXT_TOKENS_DEFAULT))
    if warning is None:
        return None
    again = turn_context.context_prepare(store, ctx, timings)
    if again.prompt.refused:
        flags["error"] = prompt_refusal_said(again.prompt)
        return None
    again.warnings.append(warning)
    return again


async def _stream_reply(store: FileStore, ctx: TurnContext,
                        prepared: Prepared, provider: Provider, emit: Emit,
                        stop: asyncio.Event, *, trace_id: str, shown: dict[str, Any],
                        writer: AssistantLineWriter | None = None
                        ) -> tuple[AssistantLineWriter, dict[str, Any], float | None]:
    """The reply streamed into its line, which the caller finishes (with `flags`) unless this
    is cancelled: then the line is finished here, marked interrupted. The first event (token
    or reasoning) also carries `shown`: who speaks, so the bubble is named from the start.
    `writer`: the line a refused request left empty, asked again. `flags["overflow"]`: the
    server refused the prompt as longer than its context, before anything was shown."""
    writer = writer or store.assistant_writer(
        ctx.instance_id, ctx.session_id, turn=ctx.turn,
        extra={"trace_id": trace_id, **ctx.reply_extra}, replace_from=ctx.replace_from,
        action=ctx.redo).open(content=ctx.continue_from)
    started = time.perf_counter()
    # The template may be read from the files: off the event loop.
    cleaner = ReplyShownPaced(ReplyShown(
        names=await asyncio.to_thread(reply_names, prepared.llm_context, provider),
        shape=prepared.llm_context.get("reply_shape"), continued=bool(ctx.continue_from)))
    push = ReplyPush(emit, cleaner, offset=len(writer.content), shown=shown, started=started)
    flags: dict[str, Any] = {}
    limit = settings.PERSONALAB_MAX_REPLY_CHARS
    pieces = pieces_capped(continue_pieces(provider.stream(
        prepared.prompt.messages, context=prepared.llm_context), ctx.continue_from, provider),
                           limit=max(limit - len(writer.content), 0), flags=flags)
    pump_task = asyncio.create_task(reply_relay(pieces, writer, push.token, push.reasoning))
    stop_task = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({pump_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
        if not pump_task.done():
            pump_task.cancel()
            flags["interrupted"] = True
        with contextlib.suppress(asyncio.CancelledError):
            await pump_task
        await push.end()
    except asyncio.CancelledError:
        pump_task.cancel()
        _finish_line(writer, {"interrupted": True})  # here, not in a thread: we are being stopped
        raise
    except LLMError as exc:
        flags["error"] = exc.message if hasattr(exc, "message") else str(exc)
        if getattr(exc, "overflow", None) is not None and not push.named_yet:
            flags["overflow"] = exc.overflow
    except Exception as exc:  # noqa: BLE001 — any failure must still end in a whole line
        log.exception("stream failed for %s", ctx.instance_id)
        flags["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        stop_task.cancel()
        push.late_cancel()
    return writer, flags, push.first_token_ms


def _finish_line(writer, flags: dict[str, Any], run: RegexRun | None = None, *,
                 shape: dict[str, Any] | None = None, kept: int = 0,
                 names: dict[str, Any] | None = None) -> dict[str, Any]:
    """The reply's line made whole; `run`: the regex scripts its text and reasoning keep;
    `names`: the speakers' names cleaned after them (reply_names_cleaned's arguments);
    `shape`: the context template's post-processing after that (the first `kept` characters,
    a continued reply's, left alone), as SillyTavern's order is: the start of a stop string
    the reply ends in first, then the scripts, the lines' trailing spaces, the names, the
    shape, and the whitespace at the ends."""
    text = writer.content
    cleaned = not flags.get("error") and bool(text.strip())
    if names and cleaned:
        text = text[:kept] + reply_stop_start_cut(text[kept:], names["stops"])
    regexed = reply_regexed(run, flags, text, "".join(writer._reasoning)) if run else {}
    if cleaned:
        if flags.get("interrupted") and shape:  # as SillyTavern's last streamed update left it
            shape = {key: on for key, on in shape.items() if key != "trim_sentences"} or None
        regexed["content"] = text = reply_tidied(regexed.get("content", text), names=names,
                                                 shape=shape, kept=kept)
    if flags.get("truncated"):
        return writer.finish(truncated=True, **regexed)
    if flags.get("error"):
        message = f"{ERROR_REPLY_OPENING}{flags['error']})"
        return writer.finish(content=f"{text}\n{message}" if text.strip() else message,
                             error=True, interrupted=flags.get("interrupted"))
    if flags.get("interrupted"):
        return writer.finish(interrupted=True, **regexed)
    if not text.strip():
        return writer.finish(content=EMPTY_REPLY, empty=True)
    return writer.finish(**regexed)


async def _settled(sent: asyncio.Future, settle: Callable[..., Awaitable[Any]], *args: Any,
                   **kwargs: Any) -> Any:
    """`settle` once the trace of what was sent is written (nearly always long before), so
    the finished trace is never overwritten by the unfinished one."""
    return await settle(*args, sent=await sent, **kwargs)


def _trace_sent(store: FileStore, ctx: TurnContext,
                prepared: Prepared, *, provider: Provider, trace_id: str,
                created_at: str, timings: dict[str, float]) -> tuple[dict[str, Any] | None, bool]:
    """The trace as the request goes out: what is sent, no reply, no `finished_at` (the
    inspector of a reply a crash cut reads it so). (trace, saved: its file and row written)."""
    try:
        trace = turn_context.trace_start(ctx, prepared, trace_id=trace_id, provider=provider,
                                         created_at=created_at)
        # A copy: the loop may add a warning at the end of the reply while this is written.
        trace.update(warnings=list(prepared.warnings), reply=None, timings=timings)
        store.trace_write(ctx.instance_id, trace_id, trace)
        trace_index(store, ctx.instance_id, trace_id, trace=trace)
        return trace, True
    except Exception:  # noqa: BLE001 — the end of the turn writes it again
        log.exception("the trace %s of what was sent was not written", trace_id)
        return None, False


def _reply_settle(store: FileStore, ctx: TurnContext,
                  prepared: Prepared, writer: AssistantLineWriter,
                  flags: dict[str, Any], *, provider: Provider, trace_id: str, created_at: str,
                  counts_miss: bool, started: float, timings: dict[str, float],
                  sent: tuple[dict[str, Any] | None, bool]
                  ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The reply's line finished (fsynced: on the loop, 200 replies ending together stalled
    every other stream for about a second), the director's step on it, then the turn's trace
    completed (`sent`: _trace_sent's answer). The instance state is written (fsynced) while
    the trace is saved: both wait on the disk, neither needs the other."""
    record = _finish_line(writer, flags, turn_regex(store, ctx),
                          shape=prepared.llm_context.get("reply_shape"),
                          kept=len(ctx.continue_from or ""),
                          names=reply_names(prepared.llm_context, provider))
    director_report, state = director_step(store, instance_id=ctx.instance_id, reply=record,
                                           counts_miss=counts_miss)
    writing = (_state_writes.submit(store.instance_state_write, ctx.instance_id, state)
               if state is not None else None)
    try:
        timings["total_ms"] = _ms(started)
        trace, indexed = sent
        # Made before the request, completed here: nothing it holds changes meanwhile.
        trace = {**(trace or turn_context.trace_start(ctx, prepared, trace_id=trace_id,
                                                      provider=provider, created_at=created_at)),
                 "warnings": prepared.warnings, "reply": record,
                 "director_result": director_report, "timings": timings}
        # A held marker is a field of the row (the chat page draws its badge as not taken).
        _trace_save(store, ctx.instance_id, trace_id, trace,
                    index=not indexed or "held_marker" in director_report)
    finally:
        if writing is not None:
            writing.result()
    return record, director_report


def _trace_save(store: FileStore, instance_id: str, trace_id: str,
                trace: dict[str, Any], *, index: bool = True) -> None:
    """The finished trace (`finished_at`), atomically in place of the one written as the
    request went out; `index`: its row too (only a held marker changes a row's fields in a turn)."""
    trace["finished_at"] = utc_now()
    store.trace_write(instance_id, trace_id, trace)
    if not index:
        return
    try:
        trace_index(store, instance_id, trace_id, trace=trace)
    except Exception:  # noqa: BLE001 — the trace file is the truth; reindex restores the row
        log.exception("trace %s written but not indexed", trace_id)


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 2)
