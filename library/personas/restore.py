"""SillyTavern's personas brought over: the persona manager's "Backup" file (`{"personas",
"persona_descriptions", "default_persona"}`, public/scripts/personas.js `onBackupPersonas`)
or its settings.json, which holds the same keys under `power_user`.

As SillyTavern's "Restore" does, what the account already has is kept: a persona whose name
the account already uses is skipped and said so, and the rest are made. The file names no
picture (only the avatar's file name), so a restored persona shows its initial until one is
set. Every persona is checked before the first is written, so a refused file makes nothing.

A persona's world-info book (SillyTavern's persona lorebook: `persona_descriptions[avatar]
.lorebook`, and `persona_description_lorebook` for the persona in use) is linked by its name to
the restoring account's own book of that name, as a card's `extensions.world` is; a book not
imported yet is listed, and the persona's page links it later."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext_noop

from library.errors import LibraryError
from library.fields import MAX_NAME_CHARS, clean_text
from library.limits import import_slot
from library.models import Persona
from library.personas.positions import DEFAULT_DEPTH, MAX_DEPTH, ST_POSITIONS
from library.personas.services import PERSONA_DESCRIPTION_LIMIT, persona_create
from library.quotas import library_room_check
from library.selectors import lorebook_named
from personalab.lib.config_schema import int_coerced
from personalab.lib.filestore.store import FileStore
from personalab.lib.nesting import JsonRefused, json_loads_bounded

MAX_FILE_BYTES = 10 * 1024 * 1024  # a settings.json with many presets stays well under
MAX_PERSONAS = 1_000
ST_ROLES = {0: "system", 1: "user", 2: "assistant"}  # extension_prompt_roles
# English as the API says it; the page says it in the reader's language (msgids).
SKIPPED_REASONS = {"no_name": gettext_noop("it has no name"),
                   "name_taken": gettext_noop("you already have a persona of this name")}


@dataclass
class PersonasRestored:
    created: list[str] = field(default_factory=list)  # persona ids, in the file's order
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name, SKIPPED_REASONS key)
    default_id: str | None = None
    books_missing: list[tuple[str, str]] = field(default_factory=list)  # (persona, book name)


def _placement(descriptor: dict[str, Any]) -> dict[str, Any]:
    """SillyTavern's numbers as this app's names; a value it would not write reads as its
    default, as its own reader falls back."""
    depth = int_coerced(descriptor.get("depth"))
    return {"description_position": ST_POSITIONS.get(int_coerced(descriptor.get("position")),
                                                      "prompt"),
            "description_depth": depth if depth is not None and 0 <= depth <= MAX_DEPTH
            else DEFAULT_DEPTH,
            "description_role": ST_ROLES.get(int_coerced(descriptor.get("role")), "system")}


def _book_named(name: Any, owner) -> str | None:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME_CHARS:
        return None
    return lorebook_named(name, user=owner)


def _book_name(backup: dict[str, Any], avatar_key: str, descriptor: dict[str, Any]) -> str:
    """The name of the book SillyTavern links to this persona (the settings' own key for the
    persona in use when its descriptor predates the field)."""
    name = descriptor.get("lorebook")
    if name is None and avatar_key == backup.get("user_avatar"):
        name = backup.get("persona_description_lorebook")
    return name.strip() if isinstance(name, str) else ""


def _backup_read(data: bytes) -> dict[str, Any]:
    if len(data) > MAX_FILE_BYTES:
        raise LibraryError("file is larger than 10 MB", {"file": "at most 10 MB"})
    try:
        parsed = json_loads_bounded(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LibraryError(f"file is not JSON: {exc}", {"file": "not JSON"}) from None
    except JsonRefused as exc:
        raise LibraryError(f"file is refused: {exc}", {"file": str(exc)}) from None
    if isinstance(parsed, dict) and isinstance(parsed.get("power_user"), dict):
        parsed = parsed["power_user"]  # SillyTavern's settings.json
    if not (isinstance(parsed, dict) and isinstance(parsed.get("personas"), dict)
            and isinstance(parsed.get("persona_descriptions", {}), dict)):
        raise LibraryError("this is not a SillyTavern personas backup or settings.json: it has "
                           "no “personas”", {"file": "no personas in it"})
    if len(parsed["personas"]) > MAX_PERSONAS:
        raise LibraryError(f"this file has {len(parsed['personas'])} personas; at most "
                           f"{MAX_PERSONAS} are restored from one file",
                           {"file": f"at most {MAX_PERSONAS} personas"})
    return parsed


def _shown(key: str) -> str:
    """An unnamed persona's avatar key as the skipped list names it: a key is any text the file
    holds (1,000 keys of 9,000 characters made a 9 MB page and login session)."""
    return key if len(key) <= MAX_NAME_CHARS else key[:MAX_NAME_CHARS - 1] + "…"


@contextlib.contextmanager
def _one_restore_at_a_time(store: FileStore, *, owner) -> Iterator[None]:
    """Two restores of one account at once each read the names it had before the other wrote
    (one file sent twice made every persona twice): the second waits, then skips them."""
    digest = hashlib.sha256(owner.get_username().encode("utf-8", "replace")).hexdigest()[:40]
    lock = store.lock_factory(store.root / "busy" / f".personas-{digest}.lock",
                              f"personas-{digest}")
    with lock.acquire(blocking=True):
        yield


def personas_restore(store: FileStore, *, owner, data: bytes) -> PersonasRestored:
    """`owner`'s personas from a SillyTavern backup or settings.json (see the module's doc)."""
    backup = _backup_read(data)
    with import_slot(store, user=owner), _one_restore_at_a_time(store, owner=owner):
        return _restored(store, owner=owner, backup=backup)


def _restored(store: FileStore, *, owner, backup: dict[str, Any]) -> PersonasRestored:
    descriptions = backup.get("persona_descriptions") or {}
    taken = set(Persona.objects.filter(owner__username=owner.get_username())
                .values_list("name", flat=True))
    restored = PersonasRestored()
    planned: list[tuple[str, dict[str, Any]]] = []
    for avatar_key, name in backup["personas"].items():
        if not isinstance(name, str) or not name.strip():
            restored.skipped.append((_shown(str(avatar_key)), "no_name"))
            continue
        name = name.strip()
        if name in taken:
            restored.skipped.append((name, "name_taken"))
            continue
        descriptor = descriptions.get(avatar_key)
        descriptor = descriptor if isinstance(descriptor, dict) else {}
        text = descriptor.get("description")
        try:
            fields = {"name": clean_text(name, field="name", required=True,
                                         limit=MAX_NAME_CHARS),
                      "description": clean_text(text if isinstance(text, str) else "",
                                                field="description",
                                                limit=PERSONA_DESCRIPTION_LIMIT),
                      **_placement(descriptor), "visibility": "private"}
        except LibraryError as exc:
            raise LibraryError(f"persona “{name[:80]}”: {exc}", {"file": str(exc)}) from None
        if book_name := _book_name(backup, avatar_key, descriptor):
            if book_id := _book_named(book_name, owner):
                fields["lorebook_id"] = book_id
            else:
                restored.books_missing.append((name, book_name[:MAX_NAME_CHARS]))
        taken.add(name)
        planned.append((avatar_key, fields))
    library_room_check(kind="personas", user=owner, adding=len(planned))  # refused whole
    default_key = backup.get("default_persona")
    for avatar_key, fields in planned:
        persona_id = persona_create(store, owner=owner, data={
            **fields, "default": avatar_key == default_key}, first_is_default=False)
        restored.created.append(persona_id)
        if avatar_key == default_key:
            restored.default_id = persona_id
    return restored
