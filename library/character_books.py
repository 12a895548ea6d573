"""The books a SillyTavern settings.json links to characters besides their own world
(`world_info.charLore`: `[{"name": "<avatar file>", "extraBooks": [names]}]`, the character
panel's "Additional lorebooks"), which SillyTavern reads as that character's lore in every
chat with it (`getCharacterLore`). Given here, each becomes a book linked to the account's own
character of that name (SillyTavern names a character's avatar file after it: "Name.png", and
"Name1.png", "Name2.png"... for the next characters of that name, `getPngName`)."""

from __future__ import annotations

from collections.abc import Container
from pathlib import Path
from typing import Any

from django.utils.translation import gettext as _

from library.character_services import character_save
from library.errors import LibraryError
from library.lore.st_settings import GLOBAL_NAMES_MAX, settings_world_info
from library.models import Character
from library.selectors import lorebooks_named
from personalab.lib.filestore.cache import FileParseCache
from personalab.lib.filestore.jsonfile import read_json
from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import StoreError

LINKS_MAX = 1000
# Distinct book names a file may link, as many as it may select for every chat: 200,000 took
# 5 s of CPU in one query (lorebooks_named), the GIL held against every other request.
BOOK_NAMES_MAX = GLOBAL_NAMES_MAX
NAME_SHOWN_CHARS = 200
# The longest counter getPngName's "Name1.png", "Name2.png"... is read for.
COPY_DIGITS_MAX = 6


def char_lore_links(data: bytes) -> list[tuple[str, list[str]]]:
    """(avatar file name, book names) for each character settings.json gives extra books."""
    world_info = settings_world_info(data).get("world_info")
    char_lore = world_info.get("charLore") if isinstance(world_info, dict) else None
    links = []
    for item in char_lore if isinstance(char_lore, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        books = item.get("extraBooks") if isinstance(item.get("extraBooks"), list) else []
        names = list(dict.fromkeys(b.strip() for b in books if isinstance(b, str) and b.strip()))
        if names:
            links.append((item["name"], names))
    links = links[:LINKS_MAX]
    if len({book for _, books in links for book in books}) > BOOK_NAMES_MAX:
        raise LibraryError(f"this settings.json links more than {BOOK_NAMES_MAX} different "
                           "books to characters (world_info.charLore)",
                           {"file": f"at most {BOOK_NAMES_MAX} books"})
    return links


def _stem(avatar: str) -> str:
    return avatar[:-4] if avatar.lower().endswith(".png") else avatar


def _numbered_copy_of(stem: str, names: Container[str]) -> str | None:
    """The name `stem` is SillyTavern's numbered file of ("Name" for "Name1"), one of `names`."""
    for digits in range(1, min(COPY_DIGITS_MAX, len(stem) - 1) + 1):
        base, counter = stem[:-digits], stem[-digits:]
        if not counter.isascii() or not counter.isdigit():
            return None
        if counter[0] != "0" and base in names:
            return base
    return None


def _refusal(avatar: str, own: dict[str, list[str]]) -> str | None:
    """Why the character `avatar` names cannot be told among the account's, if it cannot:
    several of them bear its name, or it is SillyTavern's numbered file of a second character
    of a name the account has (which of that name's characters it was is not in the file)."""
    stem = _stem(avatar)
    if len(own.get(stem, ())) > 1:
        return _("Several of your characters are named “%(name)s”: link its books on "
                 "the page of the one you mean.") % {"name": _shown(stem)}
    if stem in own:
        return None
    base = _numbered_copy_of(stem, own)
    if base is None:
        return None
    return _("SillyTavern numbers the file of another character named “%(name)s” like this; "
             "which of yours it is cannot be told: link its books on that character's "
             "page.") % {"name": _shown(base)}


# What an import reads of each of the account's characters (its st_avatar, name and books), kept
# while its file is the same: every upload read every file of the account whole (5,000
# characters of 1 MB: about 15 s of CPU each time, on a thread every page shares).
SUMMARIES: FileParseCache[tuple[str, str, tuple[str, ...]]] = FileParseCache(max_files=20_000)


def _summary(store: FileStore, character_id: str) -> tuple[str, str, tuple[str, ...]]:
    """(st_avatar, name, linked book ids) of a character; StoreError, OSError or ValueError
    when its file cannot be read."""
    return SUMMARIES.get(store.character_dir(character_id) / "definition.json", _summary_read)


def _summary_read(path: Path) -> tuple[str, str, tuple[str, ...]]:
    definition = read_json(path, what="character")
    if not isinstance(definition, dict):
        raise ValueError("not a character")
    avatar, name = definition.get("st_avatar"), definition.get("name")
    return (avatar if isinstance(avatar, str) else "", name if isinstance(name, str) else "",
            tuple(i for i in definition.get("lorebook_ids") or [] if isinstance(i, str)))


def _avatar_files(store: FileStore, own: dict[str, list[str]]) -> dict[str, list[str]]:
    """The account's characters by the SillyTavern avatar file their card came in
    ("Seraphina1", "default_Seraphina"), which tells apart what their names cannot."""
    files: dict[str, list[str]] = {}
    for character_id in (i for ids in own.values() for i in ids):
        try:
            avatar = _summary(store, character_id)[0]
        except (StoreError, OSError, ValueError):  # told by its name, as before
            continue
        if avatar:
            files.setdefault(avatar, []).append(character_id)
    return files


def _shown(name: str) -> str:
    return name if len(name) <= NAME_SHOWN_CHARS else name[:NAME_SHOWN_CHARS - 1] + "…"


def character_books_from_settings(store: FileStore, *, user, data: bytes) -> dict[str, Any]:
    """Each character's extra books added to the account's own character of that name (its
    avatar file's name), for each book name the account's own book of that name.
    Characters and books not found are listed, and the files that cannot be told among the
    account's characters (`_refusal`) refused each with why; nothing linked before is taken
    away."""
    links = char_lore_links(data)
    named = lorebooks_named([book for _, books in links for book in books], user=user)
    own: dict[str, list[str]] = {}
    for character_id, name in Character.objects.filter(owner=user).order_by(
            "character_id").values_list("character_id", "name"):
        own.setdefault(name, []).append(character_id)
    files = _avatar_files(store, own) if links else {}
    linked, missing_characters, missing_books, refused = [], [], [], []
    for avatar, books in links:
        by_file = files.get(_stem(avatar), [])
        if len(by_file) != 1 and (reason := _refusal(avatar, own)):
            refused.append({"file": _shown(avatar), "reason": reason})
            continue
        character_id = by_file[0] if len(by_file) == 1 else (own.get(_stem(avatar)) or [None])[0]
        if character_id is None:
            missing_characters.append(_shown(avatar))
            continue
        missing_books += [_shown(book) for book in books if book not in named]
        _, name, kept = _summary(store, character_id)
        current = list(kept)
        ids = list(dict.fromkeys([*current, *(named[b] for b in books if b in named)]))
        if ids != current:
            definition = store.character_read(character_id)
            character_save(store, data={**definition, "lorebook_ids": ids},
                           character_id=character_id, user=user)
        linked.append({"character_id": character_id, "name": name, "lorebook_ids": ids})
    return {"linked": linked, "missing_characters": missing_characters,
            "missing_books": list(dict.fromkeys(missing_books)), "refused": refused}
