"""A fill's embedding gives way to a turn's recall in the same process.

An imported chat's fill (memory/vectors/fill.py) embeds passage batch after passage batch on
every core; a turn's recall on another chat (its query embeddings, the Chroma and keyword
searches) then shares the cores with it: on a busy two-core machine a recall of ~60 ms took
1-3.5 s while a fill ran. So while any recall holds `recall_held`:
- a fill's next passage call waits (`fill_give_way`, between calls), at most
  `GIVE_WAY_SECONDS` each time, so a stream of recalls slows a fill but never stops it;
- a fill's batches already running are stopped (ONNX Runtime's RunOptions.terminate, checked
  between the graph's operators) and run again once the recall is over (`run_giving_way`):
  on a loaded machine one batch took 0.4-1.7 s, which a recall starting meanwhile shared.
A batch that has given way for GIVE_WAY_SECONDS in all runs to its end.
Per process: a fill in another worker process does not see this one's recalls.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

# Longest wait of one fill call for the recalls in progress (PERSONALAB_FILL_GIVE_WAY_SECONDS,
# set by memory.apps at start-up; 0: a fill never waits nor is stopped).
GIVE_WAY_SECONDS = 2.0

T = TypeVar("T")
_changed = threading.Condition()
_held = 0
_running: set[Any] = set()  # the RunOptions of fill batches running now
_in_fill: ContextVar[bool] = ContextVar("embedding_in_fill", default=False)


@contextmanager
def recall_held() -> Iterator[None]:
    """Inside, this process's fills wait between their calls and their running batches stop
    (nesting counts once per level; any thread)."""
    global _held
    with _changed:
        _held += 1
        if GIVE_WAY_SECONDS > 0:
            for options in _running:
                options.terminate = True
    try:
        yield
    finally:
        with _changed:
            _held -= 1
            if not _held:
                _changed.notify_all()


def recall_running() -> bool:
    return _held > 0


@contextmanager
def fill_marked() -> Iterator[None]:
    """Embedding calls inside (this thread) are a fill's: they give way to recall."""
    token = _in_fill.set(True)
    try:
        yield
    finally:
        _in_fill.reset(token)


def in_fill() -> bool:
    return _in_fill.get()


def fill_give_way(*, limit: float | None = None) -> float:
    """Wait while a recall is held, at most `limit` seconds (default GIVE_WAY_SECONDS); returns
    the seconds waited (0.0 at once when no recall is held)."""
    limit = GIVE_WAY_SECONDS if limit is None else limit
    if limit <= 0 or not _held:
        return 0.0
    started = time.monotonic()
    with _changed:
        _changed.wait_for(lambda: not _held, timeout=limit)
    return time.monotonic() - started


def run_giving_way(run: Callable[[Any], T], options_make: Callable[[], Any]) -> T:
    """`run(options)` (an ONNX Runtime run with these RunOptions) that a recall starting
    meanwhile stops; it is run again once the recall is over. A batch gives way for at most
    GIVE_WAY_SECONDS in all (waits and stopped runs), then runs to its end (`run(None)`):
    turns one after another, each starting before a stopped batch could finish again, would
    otherwise stop the fill for good."""
    started = time.monotonic()
    while True:
        left = GIVE_WAY_SECONDS - (time.monotonic() - started)
        if left <= 0:
            return run(None)
        fill_give_way(limit=left)
        if time.monotonic() - started >= GIVE_WAY_SECONDS:
            return run(None)
        options = options_make()
        with _changed:
            _running.add(options)
            if _held:
                options.terminate = True
        try:
            if not options.terminate:
                return run(options)
        except Exception:
            if not options.terminate:
                raise
        finally:
            with _changed:
                _running.discard(options)
