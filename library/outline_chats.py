"""The chats that follow a background's outline edit: each running chat stays on the point it
was at (followed by its text, personalab/lib/outline_follow.py), and the author hears which
chats' point was edited or deleted (they keep its position) and which were busy in a turn
(they follow as it ends: personalab/lib/filestore/outline_pending.py). Called around the
background's write: `outline_chats_note` before, `outline_chats_follow` after."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from library.chat_use import ChatRow, chats_playing
from library.item_chats import chat_ids_shown
from library.selectors import item_readable_by
from personalab.lib.filestore.outline_pending import outline_follow_note
from personalab.lib.filestore.store import FileStore
from personalab.lib.locks import LockUnavailable
from personalab.lib.outline_follow import (
    outline_texts,
    plot_state_followed,
    points_passed_unplayed,
)
from personalab.lib.store_errors import InstanceBusy, StoreError


@dataclass
class NotedChat:
    row: ChatRow
    outcome: str  # "moved", "kept_position" (its point's text is gone) or "same"
    passed: bool = False  # a point added or moved above its step shows as done there


@dataclass
class OutlineChats:
    """What an outline edit did to the chats playing the background."""

    moved: list[ChatRow] = field(default_factory=list)
    kept_position: list[ChatRow] = field(default_factory=list)
    busy: list[ChatRow] = field(default_factory=list)
    passed: list[ChatRow] = field(default_factory=list)

    def shown(self, user) -> dict[str, Any]:
        """For the API: the author's own chats by id (staff: all), others only counted."""
        return {name: {"instance_ids": chat_ids_shown(rows, user), "count": len(rows)}
                for name, rows in (("moved", self.moved), ("kept_position", self.kept_position),
                                   ("busy", self.busy), ("passed", self.passed))}


def _plays_file(store: FileStore, row: ChatRow, background_id: str,
                items: tuple[dict[str, Any], ...]) -> dict[str, Any] | None:
    """The chat's state when it plays this background's file (not a copy it kept)."""
    try:
        state = store.instance_state_read(row.instance_id)
    except StoreError:
        return None
    if state.get("background_id") != background_id:
        return None
    if not all(item_readable_by(item, username=state.get("owner")) for item in items):
        return None
    return state


def outline_chats_note(store: FileStore, *, background_id: str, existing: dict[str, Any],
                       changed: dict[str, Any]) -> list[NotedChat]:
    """Before the background's write: each chat playing it notes the outline its step refers
    to and the new one (nothing when the outline's texts do not change)."""
    before, after = outline_texts(existing), outline_texts(changed)
    if not existing or before == after:
        return []
    noted = []
    for row in chats_playing(kind="background", item_id=background_id, as_member=False):
        state = _plays_file(store, row, background_id, (existing, changed))
        if state is None:
            continue
        outline_follow_note(store, instance_id=row.instance_id, background_id=background_id,
                            before=before, after=after)
        followed, found = plot_state_followed(state, before, after)
        noted.append(NotedChat(row, "kept_position" if not found else
                               "moved" if followed.get("plot_state") != state.get("plot_state")
                               else "same", passed=found and _passes_new_point(
                                   state, followed, before, after)))
    return noted


def _passes_new_point(state: dict[str, Any], followed: dict[str, Any], before: list[str],
                      after: list[str]) -> bool:
    index = (state.get("plot_state") or {}).get("current_plot_index")
    moved = (followed.get("plot_state") or {}).get("current_plot_index")
    return (isinstance(index, int) and isinstance(moved, int) and 1 <= index <= len(before)
            and bool(points_passed_unplayed(before, after, index, moved)))


def outline_chats_follow(store: FileStore, noted: list[NotedChat]) -> OutlineChats:
    """After the background's write: each free chat follows now (its lock's hook applies the
    note); a chat busy in a turn follows as that turn ends."""
    report = OutlineChats()
    for chat in noted:
        try:
            store.instance_lock(chat.row.instance_id).acquire().release()
        except (InstanceBusy, LockUnavailable):
            report.busy.append(chat.row)
        if chat.outcome != "same":
            getattr(report, chat.outcome).append(chat.row)
        if chat.passed:
            report.passed.append(chat.row)
    return report
