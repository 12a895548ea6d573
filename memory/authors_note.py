"""The author's note of an instance: a text inserted at a depth of the conversation."""

from __future__ import annotations

from typing import Any

from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import StoreError

AUTHORS_NOTE_FILE = "authors_note"
NOTE_ROLES = ("system", "user", "assistant")
AUTHORS_NOTE_DEFAULT = {"text": "", "depth": 4, "frequency": 1, "role": "system"}


def authors_note_read(store: FileStore, *, instance_id: str) -> dict[str, Any]:
    """The note with every field present; a hand-edited odd value reads as its default."""
    try:
        note = store.memory_json_read(instance_id, AUTHORS_NOTE_FILE, {})
    except (StoreError, ValueError):
        note = {}
    note = note if isinstance(note, dict) else {}
    checks = {"text": lambda v: isinstance(v, str),
              "depth": lambda v: type(v) is int and 0 <= v <= 50,
              "frequency": lambda v: type(v) is int and 1 <= v <= 100,
              "role": lambda v: v in NOTE_ROLES}
    return {key: note[key] if check(note.get(key)) else AUTHORS_NOTE_DEFAULT[key]
            for key, check in checks.items()}


def authors_note_save(store: FileStore, *, instance_id: str,
                      note: dict[str, Any]) -> dict[str, Any]:
    """Save a validated note (text stripped); empty text turns the note off."""
    saved = {**AUTHORS_NOTE_DEFAULT, **note, "text": str(note.get("text", "")).strip()}
    store.memory_json_write(instance_id, AUTHORS_NOTE_FILE, saved)
    return saved
