"""A character exported as a card: JSON (V2/V3), PNG (the card in the avatar) or CHARX (with its
asset files); its lorebooks travel in the card."""

from __future__ import annotations

from typing import Any

from library.avatars import avatar_file
from library.card_formats.cards import card_to_json, card_to_png, definition_to_card
from library.card_formats.character_book import lorebooks_to_character_book
from library.card_formats.charx import asset_member, asset_path_safe, assets_listed, charx_write
from library.selectors import item_readable_by
from personalab.lib.filestore.store import FileStore


def _character_assets_read(store: FileStore, character_id: str) -> dict[str, bytes]:
    folder = store.character_dir(character_id)
    found = {}
    for path in sorted((folder / "assets").rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_file() and not path.is_symlink() and asset_path_safe(name):
            found[name] = path.read_bytes()
    return found


def _charx_export(store: FileStore, character_id: str, card: dict[str, Any]) -> bytes:
    """The card with its stored asset files; a card without an embedded icon gets its
    avatar as the main icon, so the picture travels with it."""
    assets = _character_assets_read(store, character_id)
    avatar = avatar_file(store.character_dir(character_id))
    listed = assets_listed(card)
    has_icon = any(isinstance(a, dict) and a.get("type") == "icon"
                   and asset_member(a.get("uri")) in assets for a in listed)
    if avatar is not None and not has_icon:
        ext = avatar.suffix.lstrip(".")
        assets[f"assets/icon/images/main.{ext}"] = avatar.read_bytes()
        card["data"]["assets"] = [*listed, {"type": "icon", "name": "main", "ext": ext,
                                            "uri": f"embeded://assets/icon/images/main.{ext}"}]
    return charx_write(card, assets=assets)


def character_export_card(store: FileStore, *, character_id: str, fmt: str,
                          spec: str = "v3", reader: str | None = None) -> bytes:
    """The card with its linked books merged in; with `reader`, only the books that account
    may read (another author's private book stays out of a shared card's download)."""
    definition = store.character_read(character_id)
    lorebook_ids = definition.get("lorebook_ids", [])
    existing = set(store.lorebook_ids())  # the folder listed once, not once per linked id
    linked = [store.lorebook_read(lorebook_id) for lorebook_id in lorebook_ids
              if isinstance(lorebook_id, str) and lorebook_id in existing]
    lorebooks = [book for book in linked if item_readable_by(book, username=reader)]
    card = definition_to_card(definition, lorebooks[0] if len(lorebooks) == 1 else None,
                              spec="v3")
    if len(lorebooks) > 1:  # every book travels with the card, merged as SillyTavern does
        card["data"]["character_book"] = lorebooks_to_character_book(lorebooks)
    if fmt == "charx":
        return _charx_export(store, character_id, card)
    if fmt == "png":
        # Only a PNG avatar can carry the card (a JPEG/WebP one travels in CHARX exports).
        avatar = store.character_dir(character_id) / "avatar.png"
        return card_to_png(card, image=avatar.read_bytes() if avatar.is_file() else None)
    return card_to_json(card, spec=spec)
