"""The parts of a long summarize the model has already answered, kept until the summarize
finishes, so a retry after part k of n failed asks from part k instead of from part 1.

A long chat is summarized in parts (memory/summaries/transcript_parts.py), one request each: an
imported chat of thousands of messages takes dozens. Each answered part's events are written to
memory/summarize_parts.json, under the session's id and a key of the part's own lines; a retry
reuses the kept parts whose keys still match, in order, and asks the rest (a turn played since
changes only the last part, which is asked again). Nothing here touches the session or the
ledgers: those are written only when every part is in (memory/summaries/journal.py); a finished
summarize removes the file, and one kept for a session that is no longer current is ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from typing import Any

from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import CorruptFile

log = logging.getLogger(__name__)

PARTS = "summarize_parts"

Kept = list[tuple[str, list[dict[str, str]]]]  # per answered part: its key, its events


def part_key(part: list[dict[str, Any]], *, character_name: str, locale: str) -> str:
    """What names a part: its lines, and who and in which language it is asked about."""
    text = json.dumps([character_name, locale, part], ensure_ascii=False, sort_keys=True,
                      default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def parts_kept_read(store: FileStore, *, instance_id: str, session_id: str,
                    keys: list[str]) -> Kept:
    """The kept parts of the session that are the first of `keys`, in order."""
    try:
        record = store.memory_json_read(instance_id, PARTS, None)
    except CorruptFile:  # asked again from the first part: the file was only a shortcut
        return []
    if not isinstance(record, dict) or record.get("session_id") != session_id:
        return []
    kept: Kept = []
    for key, part in zip(keys, record.get("parts") or []):
        if not (isinstance(part, dict) and part.get("key") == key
                and _events_valid(part.get("events"))):
            break
        kept.append((key, part["events"]))
    return kept


def parts_kept_write(store: FileStore, *, instance_id: str, session_id: str, kept: Kept) -> None:
    try:
        store.memory_json_write(instance_id, PARTS, {
            "session_id": session_id,
            "parts": [{"key": key, "events": events} for key, events in kept]})
    except OSError as exc:  # the summarize goes on; a retry after a failure starts over
        log.warning("summarize parts of %s not kept: %s", instance_id, exc)


def parts_kept_remove(store: FileStore, *, instance_id: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        (store.memory_dir(instance_id) / f"{PARTS}.json").unlink()


def _events_valid(events: Any) -> bool:
    return isinstance(events, list) and all(
        isinstance(event, dict) and isinstance(event.get("summary"), str)
        and isinstance(event.get("plot"), str) for event in events)
