"""Memory work queued for a data folder that is going away is dropped, not run: the job
running finishes, the queued ones never start, and the queue is free for the next work."""

from __future__ import annotations

import threading

from memory import runtime


def test_queued_jobs_are_dropped_and_the_running_one_finishes():
    hold, running, ran = threading.Event(), threading.Event(), []

    def first() -> None:
        running.set()
        hold.wait(30)
        ran.append("first")

    runtime.schedule(first)
    assert running.wait(30)
    for name in ("second", "third", "fourth"):
        runtime.schedule(ran.append, name)

    assert runtime.jobs_drop() == 3
    hold.set()
    runtime.drain()
    assert ran == ["first"]
    runtime.schedule(ran.append, "after")
    runtime.drain()
    assert ran == ["first", "after"]
