"""Lorebook actions for the REST API: create (never overwrites), change, delete, import and
export. The file is written first, then the index row; the owner is recorded in the file."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from django.conf import settings

from library.card_formats.cards import card_parse
from library.card_formats.character_book import lorebook_to_character_book
from library.card_formats.png import PNG_SIGNATURE
from library.create_ids import id_claim
from library.errors import CardError, LibraryError, LorebookChanged
from library.fields import MAX_NAME_CHARS, ownership_of
from library.index_rows import lorebook_index
from library.limits import import_slot, lore_entries_check
from library.lore.global_books import global_lorebook_forget
from library.lore.lorebook import LorebookError, lorebook_validate
from library.lore.st_files import lorebook_file_read, lorebook_to_st_world
from library.lore.st_tag_list import st_tags_keep, st_tags_kept
from library.lore.st_tags import (
    TagNaming,
    UnnamedTags,
    character_books_unnamed,
    lorebook_tags_named_kept,
)
from library.lore.vector_store import vectors_forget, vectors_request
from library.lore.vectors import vectorized_texts
from library.models import Lorebook
from library.quotas import library_room_kept
from library.selectors import item_for_edit, lorebook_for_edit, lorebooks_visible_to
from personalab.lib.filestore.store import FileStore
from personalab.lib.nesting import JsonRefused, json_loads_bounded
from personalab.lib.store_errors import StoreError

MAX_LOREBOOK_BYTES = 10 * 1024 * 1024
SERVER_FIELDS = ("lorebook_id", "owner")


def lorebook_version(lorebook: dict[str, Any]) -> str:
    """A short fingerprint of the book as stored: the editor sends back the one it was shown."""
    stored = json.dumps(lorebook, sort_keys=True, default=str).encode()
    return hashlib.sha256(stored).hexdigest()[:16]


def lorebook_save(store: FileStore, *, data: dict[str, Any], lorebook_id: str | None = None,
                  user=None, imported: bool = False, seen: str | None = None) -> str:
    """Create (a new id, never overwrites) or change a lorebook; `user` as in character_save.
    A name written here is at most 200 characters, as a character's; an imported file keeps
    its own (and a change that leaves that name as it was keeps it too). `seen`: the
    lorebook_version the editor was shown; another one stored means someone saved since."""
    existing = ({} if lorebook_id is None else store.lorebook_read(lorebook_id) if user is None
                else item_for_edit(store, user=user, kind="lorebook", item_id=lorebook_id))
    if seen and lorebook_id and lorebook_version(existing) != seen:
        raise LorebookChanged("the lorebook was saved elsewhere since this editor opened it")
    lore_entries_check(data.get("entries"))
    try:
        lorebook = lorebook_validate({k: v for k, v in data.items() if k != "lorebook_id"},
                                     strict_regex=not imported)
    except LorebookError as exc:
        raise LibraryError(str(exc), exc.field_errors) from None
    name = lorebook.get("name", "")
    if not imported and len(name) > MAX_NAME_CHARS and name != existing.get("name"):
        raise LibraryError(f"name is longer than {MAX_NAME_CHARS} characters",
                           {"name": f"at most {MAX_NAME_CHARS} characters"})
    lorebook.update(ownership_of(data, existing, user=user))
    creating = lorebook_id is None
    lorebook_id = lorebook_id or id_claim(store, data, key="lorebook_id", prefix="lore",
                                          name=lorebook.get("name", ""), kind="lorebooks",
                                          read=store.lorebook_read, user=user)
    store.lorebook_write(lorebook_id, lorebook)
    lorebook_index(store, lorebook_id)
    if creating:
        library_room_kept(store, kind="lorebooks", user=user, item_id=lorebook_id)
    # Embedded now, in the background, so the book's first turn does not embed under its lock.
    vectors_request(store.root, vectorized_texts(
        lorebook, limit=settings.PERSONALAB_LORE_VECTOR_ENTRIES_MAX), group=lorebook_id)
    return lorebook_id


def lorebooks_listed(store: FileStore, *, user) -> list[dict[str, Any]]:
    books = []
    for row in lorebooks_visible_to(user=user):
        try:
            books.append({**store.lorebook_read(row.lorebook_id), "lorebook_id": row.lorebook_id})
        except (StoreError, ValueError):
            continue
    return books


def lorebook_create(store: FileStore, *, owner, data: dict[str, Any],
                    imported: bool = False) -> str:
    """A new lorebook owned by `owner`; an existing `lorebook_id` is a 409, never overwritten."""
    return lorebook_save(store, data={k: v for k, v in data.items() if k != "owner"}, user=owner,
                         imported=imported)


def lorebook_update(store: FileStore, *, actor, lorebook_id: str, data: dict[str, Any]) -> None:
    """A whole lorebook replaces the old one; the owner stays (only owner or staff)."""
    clean = {k: v for k, v in data.items() if k not in SERVER_FIELDS}
    lorebook_save(store, data=clean, lorebook_id=lorebook_id, user=actor)


def lorebook_remove(store: FileStore, *, actor, lorebook_id: str) -> None:
    """Moved aside under data/trash/lorebooks/, never destroyed."""
    lorebook_for_edit(store, user=actor, lorebook_id=lorebook_id)
    store.lorebook_delete(lorebook_id)
    Lorebook.objects.filter(lorebook_id=lorebook_id).delete()
    vectors_forget(group=lorebook_id)  # a deleted book's entries are not embedded for nothing
    global_lorebook_forget(store, lorebook_id=lorebook_id)


def lorebook_import(store: FileStore, *, owner, data: bytes, filename: str) -> str:
    """A SillyTavern world-info JSON, a card's character_book or a card (JSON or PNG) with one."""
    return lorebook_import_named(store, owner=owner, data=data, filename=filename)[0]


def lorebook_import_named(store: FileStore, *, owner, data: bytes, filename: str,
                          tag_names: dict[str, str] | None = None) -> tuple[str, TagNaming]:
    """As lorebook_import; the tag ids of its character filters are named from `tag_names`
    (st_tag_names of SillyTavern's settings.json), then from the tags the owner gave before
    (library/lore/st_tag_list.py); `tag_names` joins that list once the book is stored. Also
    says which entries keep ids that have no name, which filter nothing here."""
    if len(data) > MAX_LOREBOOK_BYTES:
        raise LibraryError("file is larger than 10 MB", {"file": "at most 10 MB"})
    username = owner.get_username()
    with import_slot(store, user=owner):  # as a card's import: at most a few at once
        lorebook = _lorebook_imported(data, filename)
        naming = lorebook_tags_named_kept(
            lorebook, kept=st_tags_kept(store, username=username), given=tag_names)
        lorebook_id = lorebook_create(store, owner=owner, data=lorebook, imported=True)
    if tag_names:
        st_tags_keep(store, username=username, names=tag_names)
    return lorebook_id, naming


def lorebook_tags_name(store: FileStore, *, actor, lorebook_id: str,
                       tag_names: dict[str, str] | None) -> TagNaming:
    """A stored book's character filters get the names of their SillyTavern tag ids (a book
    imported without settings.json, or a card's), from `tag_names` then the actor's own kept
    list (never the book owner's); saved only when a name was added (owner or staff)."""
    book = copy.deepcopy(item_for_edit(store, user=actor, kind="lorebook", item_id=lorebook_id))
    username = actor.get_username()
    naming = lorebook_tags_named_kept(book, kept=st_tags_kept(store, username=username),
                                      given=tag_names)
    if naming.named:
        lorebook_save(store, data={k: v for k, v in book.items() if k not in SERVER_FIELDS},
                      lorebook_id=lorebook_id, user=actor, imported=True)
    if tag_names:
        st_tags_keep(store, username=username, names=tag_names)
    return naming


def character_books_named(store: FileStore, *, user, character: dict[str, Any]) -> TagNaming:
    """The books linked to a card just imported, their SillyTavern tag ids named from the
    account's kept list (a card's book brings the ids without their names); the entries
    still keeping ids with no name."""
    if not st_tags_kept(store, username=user.get_username()):
        return TagNaming(character_books_unnamed(store, character=character))
    unnamed: list[UnnamedTags] = []
    from_kept: dict[str, str] = {}
    for lorebook_id in character.get("lorebook_ids") or []:
        try:
            naming = lorebook_tags_name(store, actor=user, lorebook_id=lorebook_id,
                                        tag_names=None)
        except (LibraryError, StoreError, ValueError):  # not the account's to change, gone
            unnamed += character_books_unnamed(store, character={"lorebook_ids": [lorebook_id]})
            continue
        unnamed += naming.unnamed
        from_kept.update(naming.from_kept)
    return TagNaming(unnamed, from_kept, from_kept)


def _lorebook_imported(data: bytes, filename: str) -> dict[str, Any]:
    try:
        # A card picture (SillyTavern imports world info from one too): its character_book.
        parsed = (card_parse(data, filename) if data.startswith(PNG_SIGNATURE)
                  else json_loads_bounded(data.decode("utf-8-sig")))
        name = (filename.rsplit("/", 1)[-1].removesuffix(".json").removesuffix(".png")
                or "Imported lorebook")
        if isinstance(parsed, dict) and isinstance(parsed.get("data"), dict) \
                and "entries" not in parsed and not parsed["data"].get("character_book"):
            raise CardError("this card has no lorebook (character_book) to import")
        # Counted as parsed: converting a 100,000-entry book took 20 s and 300 MB to refuse it.
        for entries in _entries_held(parsed):
            lore_entries_check(entries)
        return lorebook_file_read(parsed, fallback_name=name)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LibraryError(f"file is not JSON: {exc}", {"file": "not JSON"}) from None
    except JsonRefused as exc:
        raise LibraryError(f"file is refused: {exc}", {"file": str(exc)}) from None
    except CardError as exc:
        raise LibraryError(str(exc), {"file": str(exc)}) from None


def _entries_held(parsed: Any) -> list[list[Any]]:
    """Every list of entries the readers may take a book from: a world-info file's (an object
    or a list), a card's character_book's, a RisuAI export's `data`."""
    books = [parsed]
    if isinstance(parsed, dict) and isinstance(parsed.get("data"), dict):
        books.append(parsed["data"].get("character_book"))
    held = []
    for book in (b for b in books if isinstance(b, dict)):
        for entries in (book.get("entries"), book.get("data")):
            if isinstance(entries, dict):
                entries = list(entries.values())
            if isinstance(entries, list):
                held.append(entries)
    return held


def lorebook_export(lorebook: dict[str, Any], *, fmt: str) -> dict[str, Any]:
    """`st`: a SillyTavern world-info file; `card`: a card's character_book."""
    clean = {k: v for k, v in lorebook.items() if k not in (*SERVER_FIELDS, "visibility")}
    if fmt == "st":
        return lorebook_to_st_world(clean)
    if fmt == "card":
        book = lorebook_to_character_book({k: v for k, v in clean.items() if k != "st_extra"})
        for entry in book["entries"]:
            entry.pop("st_extra", None)
        return book
    raise LibraryError("format must be st or card", {"format": "st or card"})
