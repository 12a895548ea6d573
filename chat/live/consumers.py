"""The chat WebSocket: `send` / `stop` / `aside` / `aside_stop` / `impersonate` in; `token` /
`done` / `error` / `warning` / `aside_token` / `aside_done` / `impersonate_token` /
`impersonate_done` / `impersonate_error` out."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import Counter
from importlib import import_module
from types import SimpleNamespace

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.contrib.auth import get_user
from django.utils import translation

from chat.groups.round import conversation_turn, round_done_event
from chat.live.followers import FollowCursor, emit_published, group_name, streaming_snapshot
from chat.live.frame_checks import (
    THROTTLED_MESSAGE,
    ActionWindow,
    ConnectWindows,
    FrameBudget,
    frame_budget_new,
    frame_refused,
)
from chat.live.refusal_words import event_said
from chat.play.aside import aside_run
from chat.play.impersonate import impersonate_run
from chat.play.redo import redo_run
from chat.play.turn import TurnRefused
from chat.services.errors import NotFound
from chat.services.instances import instance_for_user
from memory.runtime import files_follow
from personalab.lib.jsontext import json_loads
from personalab.reader_language import language_picked
from personalab.storage import get_store

log = logging.getLogger(__name__)
MAX_FRAME_CHARS = 256 * 1024
# Frames that write to the chat or ask the model; each is let through only while the login
# that opened the socket still holds.
ACTING_FRAMES = ("send", "trigger", "regenerate", "continue", "aside", "impersonate")
# How long another tab's followed turn is relayed on the last check of that login.
FOLLOW_CHECK_SECONDS = 5.0
SIGNED_OUT_CLOSE = 4401
TOO_MANY_CLOSE = 4429
# Open chat sockets per account in this process (PERSONALAB_SOCKETS_PER_ACCOUNT).
_open_sockets: Counter[int] = Counter()
# What each account's open sockets in this process sent lately (chat/live/frame_checks.py).
_frame_budgets: dict[int, FrameBudget] = {}
# Each account's connects in this process lately (PERSONALAB_SOCKET_CONNECTS_PER_MINUTE).
_connects = ConnectWindows()


def scope_language(scope: dict) -> str:
    """The language the page is in (as LocaleMiddleware picks it for a page)."""
    chosen = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME)
    headers = dict(scope.get("headers") or [])
    return language_picked(chosen=chosen,
                           accepted=headers.get(b"accept-language", b"").decode("latin-1"))


def _follow_failure_logged(task: asyncio.Task) -> None:
    if not task.cancelled() and task.exception() is not None:  # the chat goes on without it
        log.error("the index could not follow the chat's files", exc_info=task.exception())


def _account_frames(account: int) -> FrameBudget:
    """The account's frame budget in this process. Kept when its last socket closes (a socket
    closed for its flood and opened again starts no new budget), forgotten once idle."""
    if len(_frame_budgets) > 2 * len(_open_sockets) + 100:
        for idle in [k for k, budget in _frame_budgets.items()
                     if k not in _open_sockets and budget.idle()]:
            del _frame_budgets[idle]
    return _frame_budgets.setdefault(account, frame_budget_new())


class ChatConsumer(AsyncJsonWebsocketConsumer):
    async def dispatch(self, message: dict) -> None:
        """As channels' own, without its `close_old_connections` hop to the sync thread before
        every message: it delayed each `send` and each followed token, and these handlers reach
        the database only through database_sync_to_async, which closes stale connections
        itself."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        self.instance_id = self.scope["url_route"]["kwargs"]["instance_id"]
        self.language = scope_language(self.scope)
        self.turn_task: asyncio.Task | None = None
        self.aside_task: asyncio.Task | None = None
        self.aside_stop = asyncio.Event()
        self.stop_event = asyncio.Event()
        self.files_following: asyncio.Task | None = None
        self.actions = ActionWindow(settings.PERSONALAB_SOCKET_ACTIONS_PER_MINUTE)
        self.frames = frame_budget_new()
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=4404)
            return
        if _open_sockets[user.pk] >= settings.PERSONALAB_SOCKETS_PER_ACCOUNT:
            await self.close(code=TOO_MANY_CLOSE)  # before the check that costs a query
            return
        # Refused before the handshake, as above: the page never sees the socket open, so its
        # reconnection keeps backing off.
        if not _connects.admit(user.pk, limit=settings.PERSONALAB_SOCKET_CONNECTS_PER_MINUTE):
            await self.close(code=TOO_MANY_CLOSE)
            return
        if not await self._may_open(user):
            await self.close(code=4404)
            return
        _open_sockets[user.pk] += 1
        self.counted = user.pk
        self.frames = _account_frames(user.pk)
        await self.accept()
        await self._follow()
        # Whatever the files hold and the index missed is indexed before this socket's next
        # question (the keyword side at once, even while an import's fill runs). Not awaited
        # here: the consumer handles nothing else until `connect` returns, and a follower whose
        # worker was still opening its index got a whole reply in one burst after it ended.
        self.files_following = asyncio.create_task(
            asyncio.to_thread(files_follow, get_store(), instance_id=self.instance_id))
        self.files_following.add_done_callback(_follow_failure_logged)

    async def _files_followed(self) -> None:
        """Before a question: what `connect` asked the index to follow is queued."""
        if self.files_following is not None:
            await asyncio.wait([self.files_following])  # never raises; a failure is logged

    async def _follow(self) -> None:
        """Join the instance's followers first, then read the file: a token published in
        between arrives twice and the cursor drops the repeat; none is missed."""
        self.cursor = FollowCursor()
        self.group = group_name(self.instance_id)
        try:
            await self.channel_layer.group_add(self.group, self.channel_name)
        except Exception as exc:  # noqa: BLE001 — the tab still works, only without following
            log.warning("cannot follow %s: %s", self.instance_id, exc)
            self.group = None
        if not await self._send_snapshot() and b"writing=1" in self.scope.get("query_string", b""):
            # The page was drawn with a reply "writing…" (a turn was finishing, a reload's stop)
            # and none streams now: it reads the file again at once, not after its wait.
            await self._emit({"type": "idle"})

    async def _send_snapshot(self) -> bool:
        snapshot = await asyncio.to_thread(streaming_snapshot, get_store(), self.instance_id)
        self.cursor = FollowCursor(len(snapshot["content"]) if snapshot else None)
        if snapshot:
            await self._emit(snapshot)
        return bool(snapshot)

    async def turn_event(self, message: dict) -> None:
        """Another tab's (or worker's) turn: tokens past what this tab has, then the rest."""
        if message.get("origin") == self.channel_name:
            return
        if time.monotonic() - self.signed_in_checked > FOLLOW_CHECK_SECONDS:
            if not await self._still_signed_in():
                await self._signed_out()
                return
        event = message["event"]
        if event.get("type") == "token":
            text = self.cursor.take(int(event.get("offset", 0)), event.get("content", ""))
            if text is None:  # a missed token: the file has it and everything before it
                await self._send_snapshot()
                return
            if not text and "shown" not in event:  # (the last shown update has no text)
                return
            event = {**event, "content": text}
        elif event.get("type") == "done":
            self.cursor = FollowCursor()
        await self._emit(event)

    @database_sync_to_async
    def _may_open(self, user) -> bool:
        self.signed_in_checked = time.monotonic()
        try:
            instance_for_user(user, self.instance_id)
            return True
        except NotFound:
            return False

    async def _still_signed_in(self) -> bool:
        """The socket's login read again from the session store: a socket opened before a log
        out (a password change, an account made inactive) kept writing to the chat and
        receiving its turns, as the scope holds the user it was opened with."""
        key = getattr(self.scope.get("session"), "session_key", None)
        if not key:
            return False
        engine = import_module(settings.SESSION_ENGINE)
        user = await database_sync_to_async(get_user)(
            SimpleNamespace(session=engine.SessionStore(session_key=key)))
        opener = self.scope.get("user")
        return (user.is_authenticated and opener is not None and user.pk == opener.pk
                and await self._may_open(user))

    async def _signed_out(self) -> None:
        await self._error("you are signed out: log in again to go on with this chat",
                          code="signed_out")
        self.closed = True
        await self.close(code=SIGNED_OUT_CLOSE)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        size = len(text_data if text_data is not None else bytes_data or b"")
        # An oversize frame is refused unread below: it weighs what a frame may, and the
        # socket stays open for the player's next one.
        if not self.frames.admit(min(size, MAX_FRAME_CHARS + 1)):
            # Closed, not answered frame by frame: each frame of a flood costs the shared loop
            # even unread. The page reconnects; its account's budget frees as the window moves.
            await self._error(THROTTLED_MESSAGE, code="throttled")
            self.closed = True
            await self.close(code=TOO_MANY_CLOSE)
            return
        if text_data is None or size > MAX_FRAME_CHARS:
            await self._error("frames must be JSON text of at most 256 KB", code="bad_frame")
            return
        try:
            content = json_loads(text_data)
        except json.JSONDecodeError as exc:
            await self._error(f"malformed JSON: {exc.msg}", code="bad_json")
            return
        except RecursionError:  # "[" nested 100,000 deep fits in a frame; it closed the socket
            await self._error("malformed JSON: it nests too deep", code="bad_json")
            return
        if not isinstance(content, dict):
            await self._error("a frame must be a JSON object with a type", code="bad_frame")
            return
        await self.receive_json(content)

    async def receive_json(self, content, **kwargs) -> None:
        kind = content.get("type")
        if kind in ACTING_FRAMES:
            refused = frame_refused(kind, content, busy=self._busy(kind), actions=self.actions)
            if refused is not None:
                await self._emit(refused)
                return
            if not await self._still_signed_in():
                await self._signed_out()
                return
        if kind == "send":
            text = content.get("content")
            await self._start_turn("" if text is None else text, speaker=content.get("speaker"))
        elif kind == "trigger":
            await self._start_turn(None, speaker=content.get("speaker"))
        elif kind in ("regenerate", "continue"):
            await self._start_turn("", regenerate=kind == "regenerate",
                                   continue_reply=kind == "continue")
        elif kind == "aside":
            await self._start_aside(content)
        elif kind == "impersonate":
            await self._start_impersonate()
        elif kind == "stop":
            self.stop_event.set()
        elif kind == "aside_stop":
            self.aside_stop.set()
        elif kind == "ping":
            await self.send_json({"type": "pong"})
        else:
            await self._error(f"unknown message type {kind!r}", code="bad_type")

    def _busy(self, kind: str) -> bool:
        task = self.aside_task if kind == "aside" else self.turn_task
        return task is not None and not task.done()

    async def _start_turn(self, text, *, regenerate: bool = False,
                          continue_reply: bool = False, speaker=None) -> None:
        self.stop_event = asyncio.Event()
        self.turn_task = asyncio.create_task(
            self._run_turn(text, regenerate=regenerate, continue_reply=continue_reply,
                           speaker=speaker))

    async def _run_turn(self, text, *, regenerate: bool, continue_reply: bool,
                        speaker=None) -> None:
        # What a turn tells the player (a recap that failed, a memory warning) in the page's
        # language: the cookie the language menu sets, else the browser's.
        with translation.override(scope_language(self.scope)):
            await self._turn_told(text, regenerate=regenerate, continue_reply=continue_reply,
                                  speaker=speaker)

    async def _turn_told(self, text, *, regenerate: bool, continue_reply: bool,
                         speaker=None) -> None:
        await self._files_followed()
        try:
            emit = emit_published(self.instance_id, self._emit, origin=self.channel_name)
            if regenerate or continue_reply:
                done, _text = await redo_run(
                    self.instance_id, action="regenerate" if regenerate else "continue",
                    emit=emit, stop=self.stop_event)
            else:
                done = round_done_event(await self._round(text, speaker, emit))
        except TurnRefused as exc:
            await self._error(exc.message, code=exc.code, trace_id=exc.trace_id)
            return
        except Exception as exc:  # noqa: BLE001 — the client must hear about it
            log.exception("turn failed")
            await self._error(f"internal error: {exc}", code="internal")
            return
        await emit(done)

    async def _start_impersonate(self) -> None:
        """A suggestion for the player's next line takes the turn's place (one at a time on a
        socket; `stop` ends it); its events go to this socket only."""
        self.stop_event = asyncio.Event()
        self.turn_task = asyncio.create_task(self._run_impersonate())

    async def _run_impersonate(self) -> None:
        await self._files_followed()
        try:
            result = await impersonate_run(get_store(), instance_id=self.instance_id,
                                           emit=self._emit, stop=self.stop_event)
        except TurnRefused as exc:
            await self._emit({"type": "impersonate_error", "code": exc.code,
                              "message": exc.message})
            return
        except Exception as exc:  # noqa: BLE001 — the client must hear about it
            log.exception("impersonate failed")
            await self._emit({"type": "impersonate_error", "code": "internal",
                              "message": str(exc)})
            return
        await self._emit(result.done_event())

    async def _round(self, text, speaker, emit):
        return await conversation_turn(get_store(), instance_id=self.instance_id,
                                       user_text=text, emit=emit, stop=self.stop_event,
                                       speaker=speaker)

    async def _emit(self, event: dict) -> None:
        if not getattr(self, "closed", False):
            # Refusals and warnings in this page's language, another tab's turn's included.
            with translation.override(self.language):
                event = event_said(event)
            try:
                await self.send_json(event)
            except Exception:  # noqa: BLE001 — the file already holds it; a reload shows it
                self.closed = True

    async def _start_aside(self, content: dict) -> None:
        """An aside runs beside the story (and beside a streaming reply), one at a time; its
        events go to this socket only."""
        self.aside_stop = asyncio.Event()
        self.aside_task = asyncio.create_task(self._run_aside(content))

    async def _run_aside(self, content: dict) -> None:
        await self._files_followed()
        try:
            result = await aside_run(get_store(), instance_id=self.instance_id,
                                     speaker=content.get("speaker"),
                                     content=content.get("content"), emit=self._emit,
                                     stop=self.aside_stop)
        except TurnRefused as exc:
            await self._emit({"type": "aside_error", "code": exc.code, "message": exc.message})
            return
        except Exception as exc:  # noqa: BLE001 — the client must hear about it
            log.exception("aside failed")
            await self._emit({"type": "aside_error", "code": "internal", "message": str(exc)})
            return
        await self._emit(result.done_event())

    async def _error(self, message: str, *, code: str, trace_id: str | None = None) -> None:
        await self._emit({"type": "error", "message": message, "code": code,
                          "trace_id": trace_id})

    async def disconnect(self, code) -> None:
        self.closed = True
        counted = getattr(self, "counted", None)
        if counted is not None:
            self.counted = None
            _open_sockets[counted] -= 1
            if _open_sockets[counted] <= 0:
                del _open_sockets[counted]
        if getattr(self, "group", None):
            with contextlib.suppress(Exception):
                await self.channel_layer.group_discard(self.group, self.channel_name)
        # A disconnect ends the stream like a stop: the partial reply is kept, marked.
        self.stop_event.set()
        self.aside_stop.set()
        if self.turn_task and not self.turn_task.done():
            try:
                await asyncio.wait_for(asyncio.shield(self.turn_task), timeout=10)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001
                pass
