"""SillyTavern tag ids in world-info character filters, named from its settings.json.

SillyTavern's world-info editor keeps an entry's `characterFilter.tags` as its tags' ids (a
uuid, or an older timestamp); only its settings.json names them (`tags`: [{id, name, ...}],
public/scripts/tags.js). A filter compared here with a character's tag names needs the names.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext

from library.errors import LibraryError
from library.lore.character_filter import (
    ST_TAG_ID,
    character_filter,
    filter_texts,
    tag_filter_split,
)
from library.lore.st_settings import settings_document
from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import StoreError

MAX_TAGS = 10_000
# Each filter naming an id gets the name copied beside it: one long name in a settings.json
# repeated by a thousand entries wrote a book of gigabytes (red team, 2026-12-02).
MAX_NAMES_ADDED = 1_000_000


@dataclass(frozen=True)
class UnnamedTags:
    """An entry whose character filter keeps SillyTavern tag ids that no name was found for."""

    uid: Any
    comment: str
    tag_ids: list[str]


def st_tag_names(data: bytes) -> dict[str, str]:
    """Tag id -> name from SillyTavern's settings.json, its `{"tags": [...]}` excerpt or the
    list alone; a file with no tags list is refused."""
    document = settings_document(data)
    tags = document.get("tags") if isinstance(document, dict) else document
    if not isinstance(tags, list):
        raise LibraryError('this settings file has no "tags" list (SillyTavern\'s settings.json '
                           "keeps its tags there)", {"tags": "no tags list"})
    if len(tags) > MAX_TAGS:
        raise LibraryError(f"this settings file holds more than {MAX_TAGS} tags",
                           {"tags": f"at most {MAX_TAGS} tags"})
    return {str(tag["id"]): tag["name"].strip() for tag in tags
            if isinstance(tag, dict) and isinstance(tag.get("id"), (str, int))
            and isinstance(tag.get("name"), str) and tag["name"].strip()}


@dataclass(frozen=True)
class TagNaming:
    """What naming a book's tag ids did: the entries left with ids that have no name, the
    ids it named (id -> name) and, of those, the ones the account's kept list named
    (library/lore/st_tag_list.py) rather than the settings.json given."""

    unnamed: list[UnnamedTags]
    named: dict[str, str] = field(default_factory=dict)
    from_kept: dict[str, str] = field(default_factory=dict)


def lorebook_tags_named(lorebook: dict[str, Any], names: dict[str, str]) -> TagNaming:
    """Each filter's known tag ids get their names right after them (the ids stay, so the
    book still filters in SillyTavern; the name after an id is what a turn judges it by,
    library/lore/character_filter.py); an id a name already follows is left as it is."""
    unnamed = []
    named: dict[str, str] = {}
    added = 0
    for entry in lorebook.get("entries") or []:
        rule = character_filter(entry)
        tags = rule.get("tags")
        if not isinstance(tags, list):
            continue
        result: list[Any] = []
        missing: list[str] = []
        for index, tag in enumerate(tags):
            result.append(tag)
            text = str(tag)
            if not ST_TAG_ID.fullmatch(text) and text not in names:
                continue
            after = str(tags[index + 1]) if index + 1 < len(tags) else None
            if after is not None and not ST_TAG_ID.fullmatch(after):
                continue  # named before
            name = names.get(text)
            if name is None:
                missing.append(text)
                continue
            result.append(name)
            named[text] = name
            added += len(name)
        if added > MAX_NAMES_ADDED:
            raise LibraryError(
                f"naming these tags would add more than {MAX_NAMES_ADDED} characters to the "
                "book (its filters name the same long tag names many times)",
                {"settings": f"at most {MAX_NAMES_ADDED} characters of tag names in a book"})
        rule["tags"] = result
        if missing:
            unnamed.append(UnnamedTags(entry.get("uid"), str(entry.get("comment") or ""),
                                       missing))
    return TagNaming(unnamed, named)


def lorebook_tags_named_kept(lorebook: dict[str, Any], *, kept: dict[str, str],
                             given: dict[str, str] | None) -> TagNaming:
    """lorebook_tags_named with the settings.json `given` over the account's `kept` list;
    `from_kept` says which ids the kept list named."""
    naming = lorebook_tags_named(lorebook, {**kept, **(given or {})})
    return TagNaming(naming.unnamed, naming.named, {
        tag: name for tag, name in naming.named.items() if tag not in (given or {})})


def lorebook_tag_ids_unnamed(lorebook: dict[str, Any]) -> list[UnnamedTags]:
    """The entries whose filters keep only SillyTavern tag ids, no name (a card's book)."""
    return [UnnamedTags(entry.get("uid"), str(entry.get("comment") or ""), ids)
            for entry in lorebook.get("entries") or []
            if isinstance(entry, dict) and (ids := filter_tag_ids_unnamed(entry))]


def character_books_unnamed(store: FileStore, *, character: dict[str, Any]) -> list[UnnamedTags]:
    """lorebook_tag_ids_unnamed of each book linked to a character (a card just imported)."""
    unnamed: list[UnnamedTags] = []
    for lorebook_id in character.get("lorebook_ids") or []:
        with contextlib.suppress(StoreError, ValueError):
            unnamed += lorebook_tag_ids_unnamed(store.lorebook_read(lorebook_id))
    return unnamed


def filter_tag_ids_unnamed(entry: dict[str, Any]) -> list[str]:
    """The SillyTavern tag ids of an entry's character filter that no name follows: where
    they decide, a turn leaves the filter unapplied (character_filter.character_filter_note)."""
    return tag_filter_split(filter_texts(character_filter(entry).get("tags")))[1]


ENTRIES_SAID = 20


def unnamed_tags_said(unnamed: list[UnnamedTags], *, settings_given: bool) -> list[str]:
    """The import's warnings in the reader's language: one per entry (the first 20), then
    what to do."""
    if not unnamed:
        return []
    said = [gettext("Entry %(entry)s: its character filter keeps SillyTavern tag ids "
                    "%(ids)s, which have no name here, so they filter nothing (the entry "
                    "is not kept from or limited to any character by them).") % {
                "entry": _entry_label(one), "ids": ", ".join(one.tag_ids[:10])}
            for one in unnamed[:ENTRIES_SAID]]
    if len(unnamed) > ENTRIES_SAID:
        said.append(gettext("… and %(count)d more entries like these.") % {
            "count": len(unnamed) - ENTRIES_SAID})
    said.append(gettext("The settings.json given does not name these tags (deleted in "
                        "SillyTavern?).") if settings_given else
                gettext("To name them, give your SillyTavern settings.json, which holds the "
                        "tags' names, on the book's page (“Name the SillyTavern tags”)."))
    return said


def _entry_label(one: UnnamedTags) -> str:
    comment = one.comment.strip()[:80]
    return f"{one.uid} “{comment}”" if comment else str(one.uid)


KEPT_SHOWN = 10


def kept_names_said(from_kept: dict[str, str]) -> list[str]:
    """The sentence saying which ids the account's kept list named (none: no sentence)."""
    if not from_kept:
        return []
    shown = ", ".join(f"{tag} ({name})" for tag, name in list(from_kept.items())[:KEPT_SHOWN])
    if len(from_kept) > KEPT_SHOWN:
        shown += " …"
    return [gettext("Named from the SillyTavern tags you gave before: %(tags)s.") % {
        "tags": shown}]
