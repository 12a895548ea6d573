"""A chat's story step still to follow an outline edit: instances/{id}/outline_follow.json.

An outline edit (library/outline_chats.py) notes here, for each chat that plays the background,
the outline its plot state's position refers to (`before`) and the new one (`after`), then
writes the background. Whoever holds the chat's lock next puts the step right: the instance
lock runs `outline_follow_apply` just after it is taken and just before it is given back
(personalab/lib/locks.py `on_hold`), so a chat busy in a turn during the edit follows it as
that turn ends, and a turn that starts after the edit never reads the old position with the
new outline. The note is applied only once the background holds `after` (a turn between the
note and the background's write still plays the old outline with the old position). Two
edits before the chat is free fold into one note (the first `before`, the last `after`).
The note and its application take a small lock of their own, so they never interleave.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from personalab.lib.filestore.jsonfile import json_keys_per_line, read_json, write_text_atomic
from personalab.lib.outline_follow import outline_texts, plot_state_followed
from personalab.lib.store_errors import StoreError

NOTE_NAME = "outline_follow.json"


def _note_path(store: Any, instance_id: str) -> Path:
    return store.instance_dir(instance_id) / NOTE_NAME


@contextlib.contextmanager
def _note_locked(store: Any, instance_id: str) -> Iterator[Path]:
    path = _note_path(store, instance_id)
    lock = store.lock_factory(path.with_name(".outline_follow.lock"), f"outline-{instance_id}")
    lock.acquire(blocking=True)
    try:
        yield path
    finally:
        lock.release()


def _note_read(path: Path) -> dict[str, Any] | None:
    try:
        note = read_json(path, what=NOTE_NAME)
    except StoreError:
        return None
    if (isinstance(note, dict) and isinstance(note.get("before"), list)
            and isinstance(note.get("after"), list)):
        return note
    return None


def outline_follow_note(store: Any, *, instance_id: str, background_id: str,
                        before: list[str], after: list[str]) -> None:
    with _note_locked(store, instance_id) as path:
        note = _note_read(path)
        if note and note.get("background_id") == background_id and note["after"] == before:
            before = note["before"]  # the chat has not followed the previous edit yet
        # Not fsynced (a hint, written for every chat of the background): a power cut may
        # lose it, and that chat keeps its position as it would have before notes.
        write_text_atomic(path, json_keys_per_line({"background_id": background_id,
                                                    "before": before, "after": after}),
                          durable=False)


def outline_follow_apply(store: Any, instance_id: str, *, note: str | None = None) -> None:
    """Under the instance lock (the caller holds it). `note`: the note's path, when the caller
    has it at hand."""
    if not os.path.exists(note or _note_path(store, instance_id)):
        return  # every lock taken pays this one look (a few µs), nothing more
    with _note_locked(store, instance_id) as path:
        note = _note_read(path)
        if note is None:
            path.unlink(missing_ok=True)
            return
        state = store.instance_state_read(instance_id)
        background_id = note.get("background_id")
        try:
            outline = (outline_texts(store.background_read(background_id))
                       if state.get("background_id") == background_id else None)
        except StoreError:
            outline = None
        if outline == note["before"] and outline != note["after"]:
            return  # the edit has not reached the background's file yet
        if outline == note["after"]:
            followed, _ = plot_state_followed(state, note["before"], note["after"])
            if followed != state:
                store.instance_state_write(instance_id, followed)
        path.unlink(missing_ok=True)  # followed, or the chat plays another outline now
