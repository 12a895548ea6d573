"""The refusals an acting frame gets before the socket's login is read again: its shape, a
reply or aside already running, and the socket's action budget. Each is decided from the frame
and the socket alone, so a flood of them never reaches the session store on the thread every
page view shares (red team, 2026-12-02). Beside them, what one account's sockets may cost the
process: the frames they send and how often they connect."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

from chat.play.turn import TurnRefused, validate_user_text

# The event a refusal of each acting frame goes out as (aside and impersonate answer to this
# socket only, under their own names).
REFUSAL_TYPE = {"aside": "aside_error", "impersonate": "impersonate_error"}
BUSY_MESSAGE = {
    "aside": "the last aside is still being answered",
}
DEFAULT_BUSY_MESSAGE = "a reply is still streaming; stop it or wait"
THROTTLED_MESSAGE = "too many actions on this chat in a short time; wait a moment and try again"
ACTION_WINDOW_SECONDS = 60.0


class ActionWindow:
    """At most `limit` actions in any ACTION_WINDOW_SECONDS on one socket."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.started: deque[float] = deque()

    def admit(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        while self.started and now - self.started[0] >= ACTION_WINDOW_SECONDS:
            self.started.popleft()
        if len(self.started) >= self.limit:
            return False
        self.started.append(now)
        return True

    def idle(self, now: float) -> bool:
        """Nothing started within the window: it would admit as a new one does."""
        return not self.started or now - self.started[-1] >= ACTION_WINDOW_SECONDS


class ConnectWindows:
    """Each account's chat-socket connects in this process, at most `limit` in any
    ACTION_WINDOW_SECONDS. A refused connect is not counted (it cost nothing). Idle windows are
    forgotten as the map grows, which loses nothing: an idle window admits as a new one."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.windows: dict[int, ActionWindow] = {}
        self.kept = 0  # windows left after the last sweep

    def admit(self, account: int, *, limit: int) -> bool:
        now = self.clock()
        if len(self.windows) > 2 * self.kept + 100:
            for idle in [k for k, window in self.windows.items() if window.idle(now)]:
                del self.windows[idle]
            self.kept = len(self.windows)
        return self.windows.setdefault(account, ActionWindow(limit)).admit(now)


def refusal_event(kind: str, message: str, code: str) -> dict[str, Any]:
    event = {"type": REFUSAL_TYPE.get(kind, "error"), "code": code, "message": message}
    return event if kind in REFUSAL_TYPE else {**event, "trace_id": None}


def shape_refused(kind: str, content: dict[str, Any]) -> TurnRefused | None:
    """What the turn itself would refuse in this frame before it reads any file."""
    speaker = content.get("speaker")
    try:
        if kind in ("send", "trigger", "aside") and speaker is not None and not isinstance(
                speaker, str):
            raise TurnRefused("speaker must be a character id", code="bad_request", status=400)
        if kind == "send":
            text = content.get("content")
            validate_user_text("" if text is None else text)
        if kind == "aside":
            validate_user_text(content.get("content"))
    except TurnRefused as exc:
        return exc
    return None


def frame_refused(kind: str, content: dict[str, Any], *, busy: bool,
                  actions: ActionWindow) -> dict[str, Any] | None:
    """The refusal event for an acting frame, or None when it may go on to the login check.
    Only a frame that gets that far spends the socket's action budget."""
    refused = shape_refused(kind, content)
    if refused is not None:
        return refusal_event(kind, refused.message, refused.code)
    if busy:
        return refusal_event(kind, BUSY_MESSAGE.get(kind, DEFAULT_BUSY_MESSAGE), "busy")
    if not actions.admit():
        return refusal_event(kind, THROTTLED_MESSAGE, "throttled")
    return None


# What one account's sockets in this process may send in any FRAME_WINDOW_SECONDS, counted
# before a frame is parsed. Each frame of up to 1 MB cost the event loop every account shares
# ~20 ms to unmask and check and up to ~20 ms more to parse as JSON (60,000 numbers), and none
# but the acting ones were counted: one client's flood of pings or malformed frames held every
# other account's sockets and pages (red team, twelfth pass). The page sends a frame per click.
FRAME_WINDOW_SECONDS = 10.0
FRAMES_PER_WINDOW = 300
FRAME_CHARS_PER_WINDOW = 2_000_000


class FrameBudget:
    """At most `frames` frames and `chars` characters in any `seconds`."""

    def __init__(self, *, frames: int, chars: int, seconds: float) -> None:
        self.frames, self.chars, self.seconds = frames, chars, seconds
        self.taken: deque[tuple[float, int]] = deque()
        self.chars_taken = 0

    def admit(self, size: int, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        while self.taken and now - self.taken[0][0] >= self.seconds:
            self.chars_taken -= self.taken.popleft()[1]
        if len(self.taken) >= self.frames or self.chars_taken + size > self.chars:
            return False
        self.taken.append((now, size))
        self.chars_taken += size
        return True

    def idle(self, now: float | None = None) -> bool:
        """Nothing sent within the window."""
        now = time.monotonic() if now is None else now
        return not self.taken or now - self.taken[-1][0] >= self.seconds


def frame_budget_new() -> FrameBudget:
    return FrameBudget(frames=FRAMES_PER_WINDOW, chars=FRAME_CHARS_PER_WINDOW,
                       seconds=FRAME_WINDOW_SECONDS)
