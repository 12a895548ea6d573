"""Characters: create or change one (file first, then the index row), delete one no chat
plays."""

from __future__ import annotations

from typing import Any

from library.avatars import avatar_problem, avatar_remove, avatar_write, image_kind
from library.create_ids import id_claim
from library.errors import LibraryError
from library.fields import (
    MAX_NAME_CHARS,
    MAX_TEXT,
    as_written,
    card_with_fields,
    clean_tags,
    clean_text,
    lorebook_ids_checked,
    ownership_of,
    text_kept,
)
from library.find_replace.scripts import card_scripts
from library.find_replace.services import card_scripts_allow
from library.index_rows import character_index
from library.item_chats import (
    chats_kept_apart,
    chats_using,
    copies_keep_on_change,
    copies_keep_on_delete,
    in_use_refusal,
)
from library.item_versions import item_version_check
from library.models import Character
from library.quotas import library_room_kept
from library.selectors import character_for_edit
from personalab.lib.filestore.store import FileStore

# The file name a SillyTavern card came in ("Seraphina1" of "Seraphina1.png"): SillyTavern's
# character filters and charLore name a character by it. A file system's name limit.
MAX_AVATAR_FILE_CHARS = 255


def character_save(store: FileStore, *, data: dict[str, Any], character_id: str | None = None,
                   user=None, seen: str | None = None) -> str:
    """Create (`character_id` None; never overwrites) or change a character. `user`: the
    account acting, who owns what it creates and may change only its own (staff: any);
    None for the system itself (seed, admin forms, tests). `seen`: the item_version the
    editor was shown; another one stored means someone saved since (ItemChanged)."""
    name = clean_text(data.get("name"), field="name", required=True, limit=MAX_NAME_CHARS)
    creating = character_id is None
    if creating:
        existing: dict[str, Any] = {}
    elif user is not None:
        existing = character_for_edit(store, user=user, character_id=character_id)
    else:
        existing = store.character_read(character_id)
    item_version_check(existing, "character", seen)
    definition = {
        **existing,
        "character_id": character_id,
        "name": text_kept(name, existing.get("name")),
        "base_persona": text_kept(as_written(data.get("base_persona"), field="base_persona"),
                              existing.get("base_persona")),
        "greeting": text_kept(as_written(data.get("greeting"), field="greeting"),
                          existing.get("greeting")),
        "tags": clean_tags(data.get("tags")),
        **ownership_of(data, existing, user=user),
    }
    for optional in ("pinned_prompt", "lorebook_ids", "card", "st_avatar"):
        # A form sends every field; an empty one the file never had is not an edit.
        if optional in data and (data[optional] not in (None, "", [])
                                 or optional in existing):
            definition[optional] = _optional_clean(store, optional, data[optional], user=user,
                                                   existing=existing)
    card = card_with_fields(definition.get("card"), data)
    if card is not None:
        definition["card"] = card
    if creating:  # last, once everything is valid: a refused create leaves no folder behind
        character_id = id_claim(store, data, key="character_id", prefix="char", name=name,
                                kind="characters", read=store.character_read, user=user)
    copies_keep_on_change(store, kind="character", item_id=character_id, existing=existing,
                           changed=definition)
    store.character_write(character_id, definition)
    character_index(store, character_id)
    if creating:
        library_room_kept(store, kind="characters", user=user, item_id=character_id)
    _own_scripts_allowed(store, user=user, before=existing,
                         after={**definition, "character_id": character_id}, data=data)
    return character_id


def _own_scripts_allowed(store: FileStore, *, user, before: dict[str, Any],
                         after: dict[str, Any], data: dict[str, Any]) -> None:
    """Scripts an account writes into a card (the editor's box, `regex_scripts`) are its own:
    they run in its chats without asking (as SillyTavern allows a card it edits scripts of)."""
    scripts = card_scripts(after.get("card"))
    if user is None or "regex_scripts" not in data or not scripts \
            or scripts == card_scripts(before.get("card")):
        return
    card_scripts_allow(store, username=user.get_username(), character=after, allowed=True)


def _optional_clean(store: FileStore, name: str, value: Any, *, user,
                    existing: dict[str, Any]) -> Any:
    if name == "lorebook_ids":
        return lorebook_ids_checked(store, value, user=user, linked=existing.get("lorebook_ids"))
    if name == "card" and not isinstance(value, dict):
        raise LibraryError("card must be an object", {"card": "must be an object"})
    if name == "pinned_prompt":
        return as_written(value, field="pinned_prompt", limit=MAX_TEXT)
    if name == "st_avatar":
        return as_written(value, field="st_avatar", limit=MAX_AVATAR_FILE_CHARS)
    return value

def character_delete(store: FileStore, *, character_id: str, user=None) -> None:
    definition = (character_for_edit(store, user=user, character_id=character_id)
                  if user is not None else store.character_read(character_id))
    others = chats_kept_apart(store, definition, kind="character", item_id=character_id)
    if using := chats_using("character", character_id, others):
        raise in_use_refusal(using, user,
                             what=f"Character {definition.get('name') or character_id}",
                             advice="delete those chats first (an archived chat still plays it)")
    copies_keep_on_delete(store, kind="character", item_id=character_id, item=definition,
                           chats=others)
    store.character_delete(character_id)
    Character.objects.filter(character_id=character_id).delete()


def character_avatar_save(store: FileStore, *, actor, character_id: str, data: bytes) -> str:
    """A new picture for a character (its owner or staff): PNG, JPEG, GIF or WebP of at most
    2 MB, kept as it came (the editor crops it to the card's 2:3 in the browser)."""
    character_for_edit(store, user=actor, character_id=character_id)
    if problem := avatar_problem(data):
        raise LibraryError(problem[0], {"avatar": problem[1]})
    return avatar_write(store.character_dir(character_id), data, image_kind(data) or "png")


def character_avatar_remove(store: FileStore, *, actor, character_id: str) -> bool:
    """The character goes back to its initial in place of a picture (its owner or staff);
    whether it had one."""
    character_for_edit(store, user=actor, character_id=character_id)
    return avatar_remove(store.character_dir(character_id))
