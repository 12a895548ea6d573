"""Work a server process starts once it listens, so the first page answers before it is done.

Building the embedding engines before Daphne listened (5 s of CPU, 20 s on a busy two-core
machine) kept the whole site unanswered that long at every start; the set-up steps of `make run`
waited for it too. Now it runs on a thread of its own after the server listens: a page asked for
in those seconds may wait up to the tokenizer's build (1-3 s holding the interpreter lock), and a
turn's recall waits for the build under way at most 2 s, then goes without recall that turn
(memory/runtime.py `index_for_turn`; a first turn after a restart waited 14-26 s at load 12).
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


def after_listening(work: Callable[[], None], *, name: str) -> None:
    """Run `work` on a daemon thread once Daphne's reactor runs (its sockets listen by then).
    The application's modules import Daphne's, which installs its reactor; at once where none
    is installed."""
    reactor = sys.modules.get("twisted.internet.reactor")
    if reactor is None:
        _thread_start(work, name)
    else:
        reactor.callWhenRunning(_thread_start, work, name)


def _thread_start(work: Callable[[], None], name: str) -> None:
    def run() -> None:
        try:
            work()
        except Exception:  # noqa: BLE001 — what it warms is built at first use instead
            log.exception("%s failed", name)

    threading.Thread(target=run, name=name, daemon=True).start()
