"""Backgrounds: create or change one and its story outline (file first, then the index row),
delete one no chat plays."""

from __future__ import annotations

from typing import Any

from library.create_ids import id_claim
from library.errors import LibraryError
from library.fields import MAX_NAME_CHARS, clean_text, lorebook_ids_checked, ownership_of
from library.index_rows import background_index
from library.item_chats import (
    chats_kept_apart,
    chats_using,
    copies_keep_on_change,
    copies_keep_on_delete,
    in_use_refusal,
)
from library.item_versions import item_version_check
from library.models import Background
from library.outline_chats import OutlineChats, outline_chats_follow, outline_chats_note
from library.quotas import library_room_kept
from library.selectors import item_for_edit
from personalab.lib.filestore.store import FileStore
from personalab.lib.outline_follow import outline_texts
from personalab.lib.shown import value_shown


def _clean_outline(points: Any) -> list[dict[str, Any]]:
    if points is not None and not isinstance(points, list):
        raise LibraryError("story_outline must be a list of points",
                           {"story_outline": "must be a list"})
    cleaned = []
    for point in points or []:
        content = point.get("content") if isinstance(point, dict) else point
        content = clean_text(content, field="story_outline", limit=2000)
        if content:
            cleaned.append({"content": content})
    return cleaned


def background_save(store: FileStore, *, data: dict[str, Any],
                    background_id: str | None = None, user=None,
                    seen: str | None = None) -> str:
    """Create (never overwrites) or change a background; `user` and `seen` as in
    character_save."""
    return background_save_reported(store, data=data, background_id=background_id, user=user,
                                    seen=seen)[0]


def background_save_reported(store: FileStore, *, data: dict[str, Any],
                             background_id: str | None = None, user=None,
                             seen: str | None = None) -> tuple[str, OutlineChats]:
    """background_save, and what a changed outline did to the chats playing it."""
    name = clean_text(data.get("name"), field="name", required=True, limit=MAX_NAME_CHARS)
    creating = background_id is None
    if creating:
        existing: dict[str, Any] = {}
    elif user is not None:
        existing = item_for_edit(store, user=user, kind="background", item_id=background_id)
    else:
        existing = store.background_read(background_id)
    background = {
        **existing,
        "background_id": background_id,
        "name": name,
        "world_setting": clean_text(data.get("world_setting"), field="world_setting"),
        "story_outline": _clean_outline(data.get("story_outline", existing.get("story_outline"))),
        **ownership_of(data, existing, user=user),
    }
    item_version_check(existing, "background", seen, in_place_changed=bool(existing) and (
        outline_texts(existing) != outline_texts(background)))
    if "lorebook_ids" in data:
        background["lorebook_ids"] = lorebook_ids_checked(
            store, data["lorebook_ids"], user=user, linked=existing.get("lorebook_ids"))
    if creating:
        background_id = id_claim(store, data, key="background_id", prefix="bg", name=name,
                                 kind="backgrounds", read=store.background_read, user=user)
    copies_keep_on_change(store, kind="background", item_id=background_id, existing=existing,
                           changed=background)
    noted = outline_chats_note(store, background_id=background_id, existing=existing,
                               changed=background)
    store.background_write(background_id, background)
    background_index(store, background_id)
    if creating:
        library_room_kept(store, kind="backgrounds", user=user, item_id=background_id)
    return background_id, outline_chats_follow(store, noted)


def background_outline_edit(store: FileStore, *, background_id: str, action: str,
                            position: int | None = None, content: str = "",
                            user=None, shown: str | None = None) -> OutlineChats:
    """Add, edit, delete or move one outline point (1-based positions); the chats playing
    the background stay on their point (library/outline_chats.py). `shown`: the point's text
    as the page showed it; another text there now (another tab moved, edited or removed
    points) is refused, as the editor's form refuses a save made elsewhere."""
    background = (store.background_read(background_id) if user is None else
                  item_for_edit(store, user=user, kind="background", item_id=background_id))
    points = [p["content"] for p in background.get("story_outline", [])]
    if action == "add":
        text = clean_text(content, field="content", required=True, limit=2000)
        points.append(text)
    else:
        if position is None or not 1 <= position <= len(points):
            raise LibraryError(f"no outline point {position}")
        i = position - 1
        # a form sends its line breaks as CRLF
        if shown is not None and points[i] != shown.replace("\r\n", "\n"):
            raise LibraryError(f"outline point {position} was changed elsewhere")
        if action == "edit":
            points[i] = clean_text(content, field="content", required=True, limit=2000)
        elif action == "delete":
            points.pop(i)
        elif action in ("up", "down"):
            j = i - 1 if action == "up" else i + 1
            if 0 <= j < len(points):
                points[i], points[j] = points[j], points[i]
        else:
            raise LibraryError(f"unknown outline action {value_shown(action)}")
    changed = {**background, "story_outline": [{"content": text} for text in points]}
    noted = outline_chats_note(store, background_id=background_id, existing=background,
                               changed=changed)
    store.background_write(background_id, changed)
    background_index(store, background_id)
    return outline_chats_follow(store, noted)


def background_delete(store: FileStore, *, background_id: str, user=None) -> None:
    background = (item_for_edit(store, user=user, kind="background", item_id=background_id)
                  if user is not None else store.background_read(background_id))
    others = chats_kept_apart(store, background, kind="background", item_id=background_id)
    if using := chats_using("background", background_id, others):
        raise in_use_refusal(using, user,
                             what=f"Background {background.get('name') or background_id}",
                             advice="switch those chats to another background first")
    copies_keep_on_delete(store, kind="background", item_id=background_id, item=background,
                           chats=others)
    store.background_delete(background_id)
    Background.objects.filter(background_id=background_id).delete()
