"""Use as my own: a private copy of a character, background or lorebook the user may see."""

from __future__ import annotations

import shutil
from typing import Any

from library.avatars import avatar_file
from library.index_rows import background_index, character_index, lorebook_index
from library.quotas import library_room_check, library_room_kept
from library.selectors import (
    item_for_use,
    lorebooks_visible_to,
    owner_keys_hidden,
    visibility_of,
)
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import slug_candidates

COPY_KINDS = {"character": ("char", "character_ids", "character_dir", "character_write",
                            character_index),
              "background": ("bg", "background_ids", "background_dir", "background_write",
                             background_index),
              "lorebook": ("lore", "lorebook_ids", "lorebook_dir", "lorebook_write",
                           lorebook_index)}


def item_copy(store: FileStore, *, user, kind: str, item_id: str) -> str:
    """A private copy of an item `user` may see, owned by `user`, under a new id. Links to
    lorebooks `user` may not see are left out of the copy."""
    prefix, _ids, folder, write, index = COPY_KINDS[kind]
    source = owner_keys_hidden(item_for_use(store, user=user, kind=kind, item_id=item_id),
                               user=user)
    library_room_check(kind=f"{kind}s", user=user)
    new_id = store.dir_claim(getattr(store, folder)(item_id).parent.name,
                             slug_candidates(prefix, _id_name(source, item_id)))
    duplicate = {**source, f"{kind}_id": new_id, "owner": user.get_username(),
            "visibility": "private", "copied_from": item_id}
    if isinstance(source.get("lorebook_ids"), list):
        usable = set(lorebooks_visible_to(user=user).values_list("lorebook_id", flat=True))
        duplicate["lorebook_ids"] = [i for i in source["lorebook_ids"] if i in usable]
    getattr(store, write)(new_id, duplicate)
    avatar = avatar_file(getattr(store, folder)(item_id))
    if avatar is not None:
        shutil.copy2(avatar, getattr(store, folder)(new_id) / avatar.name)
    index(store, new_id)
    library_room_kept(store, kind=f"{kind}s", user=user, item_id=new_id)
    return new_id


def _id_name(source: dict[str, Any], item_id: str) -> str:
    """What a copy's id is made from: a shared source's name, which every reader saw; none (a
    random id) for a private one, whose name the copy's id would tell everyone it is shared
    with once renamed, and whose id its `_2` would say was taken."""
    if visibility_of(source) != "shared":
        return ""
    return str(source.get("name") or item_id)


def character_copy(store: FileStore, *, user, character_id: str) -> str:
    return item_copy(store, user=user, kind="character", item_id=character_id)


def background_copy(store: FileStore, *, user, background_id: str) -> str:
    return item_copy(store, user=user, kind="background", item_id=background_id)


def lorebook_copy(store: FileStore, *, user, lorebook_id: str) -> str:
    return item_copy(store, user=user, kind="lorebook", item_id=lorebook_id)
