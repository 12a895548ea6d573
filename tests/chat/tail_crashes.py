"""A kill -9 in the middle of a change to a session file's tail
(personalab/lib/session_tail.py), at the step a test names."""

from __future__ import annotations

import os
from pathlib import Path

from personalab.lib import session_tail


class TailCrash(BaseException):
    """Stands for kill -9: nothing after it runs, no handler cleans up."""


def tail_crash_at(monkeypatch, step: str):
    """The next change of a session's tail killed at `step`: "journal" (before the new tail is
    written), "torn" (half of it written) or "written" (in place, its backup not yet moved into
    history/). Returns the real tail writer."""
    real_write, real_replace = session_tail._tail_write, os.replace

    def write(path, offset, tail):
        if step == "torn":  # half the new tail in place, the old one's rest behind it
            with open(path, "r+b") as handle:
                handle.seek(offset)
                handle.write(tail[:len(tail) // 2])
        raise TailCrash

    def replace(source, target):
        if step == "written" and Path(target).parent.name == "history":
            raise TailCrash
        return real_replace(source, target)

    if step in ("journal", "torn"):
        monkeypatch.setattr(session_tail, "_tail_write", write)
    else:
        monkeypatch.setattr(session_tail.os, "replace", replace)
    return real_write
