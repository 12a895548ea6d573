"""A Character Card V2/V3 (PNG, JSON or CHARX) becomes a character, all or nothing.

Everything that can be refused is refused before the library changes: the card is read and
checked, the CHARX's files are written into a staging folder under data/tmp/ (a name too long,
a full disk: refused there), and only then are the book, the character and its picture
written and the staged files renamed into the character's folder. A failure after that point
removes what this import wrote, file and index row, so no half character is ever listed.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

from library import selectors
from library.avatars import avatar_write, image_kind
from library.card_formats.cards import card_normalize, card_parse, card_to_definition
from library.card_formats.charx import CharxError, asset_path_safe, charx_read, is_charx, main_icon
from library.card_formats.png import PNG_SIGNATURE, card_image
from library.card_formats.world_link import card_world_name
from library.character_services import MAX_AVATAR_FILE_CHARS, character_save
from library.errors import CardError, LibraryError, PictureImportedAsCard, PictureNotCard
from library.find_replace.scripts import card_scripts, scripts_import_check
from library.limits import charx_limits, import_slot, lore_entries_check
from library.lore.services import lorebook_save
from library.models import Character, Lorebook
from library.quotas import library_room_check
from personalab.lib.filestore.store import FileStore

MAX_CARD_BYTES = 10 * 1024 * 1024


def _card_read(data: bytes, filename: str) -> tuple[dict[str, Any], dict[str, bytes]]:
    """(card, CHARX asset files) from PNG, JSON or CHARX bytes; refusals name the field."""
    try:
        if is_charx(data):
            charx = charx_read(data, limits=charx_limits())
            return card_normalize(charx.card), charx.assets
        return card_parse(data, filename), {}
    except PictureNotCard as exc:
        raise PictureImportedAsCard(str(exc), exc.fields) from None
    except CardError as exc:
        raise LibraryError(str(exc), exc.fields) from None
    except CharxError as exc:
        raise LibraryError(str(exc), {"file": str(exc)}) from None


def _assets_stage(store: FileStore, assets: dict[str, bytes]) -> Path:
    """The asset files written under a fresh staging folder; any OSError is a 400 and the
    staging folder is gone."""
    staging = store.root / "tmp" / f"charx-{secrets.token_hex(8)}"
    staging.mkdir(parents=True)
    try:
        for name, body in assets.items():
            if asset_path_safe(name):  # checked again here: this is where a path is made
                target = staging.joinpath(*name.split("/"))
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(body)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise LibraryError(f"CHARX files cannot be written: {exc.strerror or exc}",
                           {"file": "a file of this CHARX cannot be written"}) from None
    return staging


def _import_undo(store: FileStore, *, character_id: str | None, lorebook_id: str | None) -> None:
    """What this import wrote, removed outright (never a trash copy: it was never shown)."""
    if character_id is not None:
        shutil.rmtree(store.character_dir(character_id), ignore_errors=True)
        Character.objects.filter(character_id=character_id).delete()
    if lorebook_id is not None:
        shutil.rmtree(store.lorebook_dir(lorebook_id), ignore_errors=True)
        Lorebook.objects.filter(lorebook_id=lorebook_id).delete()


def _definition(card: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    # Counted before the book is converted, which took 20 s for 100,000 entries to refuse.
    book = (card.get("data") or {}).get("character_book")
    lore_entries_check(book.get("entries") if isinstance(book, dict) else None)
    try:
        definition, lorebook = card_to_definition(card)
    except CardError as exc:
        raise LibraryError(str(exc), exc.fields) from None
    if lorebook:
        lore_entries_check(lorebook.get("entries"))
    scripts_import_check(card_scripts(card))
    return definition, lorebook


def character_import_card(store: FileStore, *, data: bytes, filename: str = "",
                          user=None) -> str:
    """A card becomes a character; its book a linked lorebook; a CHARX's files are kept under
    the character's assets/ folder. Refused whole (4xx) or written whole."""
    if len(data) > MAX_CARD_BYTES:
        raise LibraryError("card file is larger than 10 MB", {"file": "at most 10 MB"})
    with import_slot(store, user=user):
        card, assets = _card_read(data, filename)
        definition, lorebook = _definition(card)
        if stem := st_avatar_of(filename):
            definition["st_avatar"] = stem
        staging = _assets_stage(store, assets) if assets else None
        try:
            return _import_write(store, data=data, card=card, definition=definition,
                                 lorebook=lorebook, assets=assets, staging=staging, user=user)
        finally:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)


def st_avatar_of(filename: str) -> str:
    """The SillyTavern avatar file a card's file name says ("Seraphina1" of "Seraphina1.png"):
    SillyTavern exports a card named after its avatar file, and its character filters and
    charLore name the character by that file (`getCharaFilename`, `path.parse(…).name`)."""
    name = PurePosixPath(filename.replace("\\", "/")).name
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    return stem if len(stem) <= MAX_AVATAR_FILE_CHARS else ""


def _world_named(card: dict[str, Any], user) -> str | None:
    """SillyTavern links a card to a world-info book by name (`extensions.world`) and reads it
    with the card: a card without a book of its own is linked to the importer's own book of
    that name."""
    name = card_world_name(card)
    return selectors.lorebook_named(name, user=user) if name is not None else None


def _import_write(store: FileStore, *, data: bytes, card: dict[str, Any],
                  definition: dict[str, Any], lorebook: dict[str, Any] | None,
                  assets: dict[str, bytes], staging: Path | None, user) -> str:
    lorebook_id = character_id = None
    library_room_check(kind="characters", user=user)  # before the card's book is written
    if lorebook:
        library_room_check(kind="lorebooks", user=user)
    try:
        if lorebook:
            lorebook_id = lorebook_save(store, data=lorebook, user=user, imported=True)
            definition["lorebook_ids"] = [lorebook_id]
        elif user is not None and (world := _world_named(card, user)):
            definition["lorebook_ids"] = [world]
        character_id = character_save(store, data=definition, user=user)
        image = card_image(data) if data.startswith(PNG_SIGNATURE) else main_icon(card, assets)
        kind = image_kind(image) if image else None
        if kind is not None:  # a CHARX icon may be JPEG or WebP: kept as it is, never decoded
            avatar_write(store.character_dir(character_id), image, kind)
        if staging is not None and (staging / "assets").is_dir():
            (staging / "assets").rename(store.character_dir(character_id) / "assets")
    except BaseException as exc:
        with contextlib.suppress(Exception):
            _import_undo(store, character_id=character_id, lorebook_id=lorebook_id)
        if isinstance(exc, OSError):
            raise LibraryError(f"the card cannot be written: {exc.strerror or exc}",
                               {"file": "cannot be written"}) from None
        raise
    return character_id
