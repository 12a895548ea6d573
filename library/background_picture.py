"""A background's picture: a wide image (the editor crops it to 16:9 in the browser) shown
behind the chat and in the library. Kept as it came (PNG, JPEG, GIF or WebP of at most 2 MB,
recognised by its bytes, never decoded) as `avatar.<kind>` in the background's folder, the way
a character's picture is kept in its own."""

from __future__ import annotations

from pathlib import Path

from library.avatars import avatar_file, avatar_problem, avatar_remove, avatar_write, image_kind
from library.errors import LibraryError
from library.selectors import item_for_edit
from personalab.lib.filestore.store import FileStore

BACKGROUND_PICTURE_RATIO = 16 / 9  # what the editor crops to: a wide strip behind the chat


def background_picture_problem(data: bytes) -> tuple[str, str] | None:
    """Why `data` cannot be a background's picture (the sentence, the field's note), or None."""
    problem = avatar_problem(data)
    return (problem[0].replace("avatar", "picture", 1), problem[1]) if problem else None


def background_picture_save(store: FileStore, *, actor, background_id: str, data: bytes) -> str:
    """A new picture for a background (its owner or staff); a wrong file is refused before
    anything is written. The file's name."""
    item_for_edit(store, user=actor, kind="background", item_id=background_id)
    if problem := background_picture_problem(data):
        raise LibraryError(problem[0], {"picture": problem[1]})
    return avatar_write(store.background_dir(background_id), data, image_kind(data) or "png")


def background_picture_remove(store: FileStore, *, actor, background_id: str) -> bool:
    """The background goes back to no picture (its owner or staff); whether it had one."""
    item_for_edit(store, user=actor, kind="background", item_id=background_id)
    return avatar_remove(store.background_dir(background_id))


def background_picture_file(store: FileStore, background_id: str | None) -> Path | None:
    return avatar_file(store.background_dir(background_id)) if background_id else None
