"""The player's personas (`{{user}}` and its description): create, change, pick the default,
delete, set an avatar. The file first, then the index row."""

from __future__ import annotations

import shutil
from typing import Any

from library.avatars import avatar_problem, avatar_remove, avatar_write, image_kind
from library.create_ids import persona_id_claim
from library.errors import LibraryError, LibraryForbidden
from library.fields import MAX_NAME_CHARS, clean_text, lorebook_ids_checked
from library.index_rows import persona_index
from library.models import Persona
from library.personas.positions import persona_placement_fields
from library.quotas import account_creates_one_at_a_time, library_room_kept
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import validate_id
from personalab.lib.shown import value_shown

PERSONA_DESCRIPTION_LIMIT = 100_000
VISIBILITIES = ("private", "shared")

def _lorebook_linked(store: FileStore, value: Any, *, user, linked: Any) -> str | None:
    """The world-info book a persona brings to every chat it plays (SillyTavern's persona
    lorebook, one book): an existing book its owner may read; "" or None links none."""
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise LibraryError("lorebook_id must be a lorebook id", {"lorebook_id": "a lorebook id"})
    try:
        lorebook_ids_checked(store, [value], user=user,
                             linked=[linked] if isinstance(linked, str) else [])
    except LibraryError:
        raise LibraryError(f"lorebook_id: no lorebook {value_shown(value)}",
                           {"lorebook_id": f"no lorebook {value_shown(value)}"}) from None
    return value


def _persona_fields(data: dict[str, Any], *, creating: bool, store: FileStore | None = None,
                    user=None, existing: dict[str, Any] | None = None) -> dict[str, Any]:
    """Only the fields present in `data` (an update changes what it names)."""
    fields: dict[str, Any] = {}
    if "lorebook_id" in data and store is not None:
        fields["lorebook_id"] = _lorebook_linked(store, data["lorebook_id"], user=user,
                                                 linked=(existing or {}).get("lorebook_id"))
    if creating or "name" in data:
        fields["name"] = clean_text(data.get("name"), field="name", required=True,
                                     limit=MAX_NAME_CHARS)
    if creating or "description" in data:
        fields["description"] = clean_text(data.get("description"), field="description",
                                             limit=PERSONA_DESCRIPTION_LIMIT)
    fields.update(persona_placement_fields(data, creating=creating))
    if creating or "visibility" in data:
        visibility = data.get("visibility") or "private"
        if visibility not in VISIBILITIES:
            raise LibraryError("visibility must be private or shared",
                               {"visibility": "private or shared"})
        fields["visibility"] = visibility
    return fields


def _persona_may_change(actor, persona: dict[str, Any]) -> None:
    if not (actor.is_staff or persona.get("owner") == actor.get_username()):
        name = persona.get("name") or persona.get("persona_id")
        raise LibraryForbidden(f"persona {name} belongs to another account")


def persona_create(store: FileStore, *, owner, data: dict[str, Any],
                   first_is_default: bool = True) -> str:
    """A new persona of `owner`; an account's first is its default (the {{user}} of every chat
    that picks none) unless `first_is_default` is off: one made to play a single chat."""
    fields = _persona_fields(data, creating=True, store=store, user=owner)
    asked = data.get("persona_id")
    persona_id = persona_id_claim(
        store, asked=validate_id(asked, kind="persona id") if asked else None,
        name=fields["name"], user=owner)
    username = owner.get_username()
    first = not Persona.objects.filter(owner__username=username).exists()
    store.persona_write(persona_id, {**fields, "owner": username, "avatar": None,
                                     "created_at": utc_now(), "default": False})
    persona_index(store, persona_id)
    library_room_kept(store, kind="personas", user=owner, item_id=persona_id)
    if data.get("default") or (first and first_is_default):
        persona_default_set(store, actor=owner, persona_id=persona_id)
    return persona_id


def persona_first_named(store: FileStore, *, owner, name: Any) -> str | None:
    """The name a player gave on starting a chat before making any persona becomes their
    first persona, so their default: every chat calls them that. A blank name, or an account
    that has a persona already, makes none."""
    if not isinstance(name, str) or not name.strip():
        return None
    if len(name.strip()) > MAX_NAME_CHARS:  # said as the start form names the field
        raise LibraryError(f"Your name in the story is longer than {MAX_NAME_CHARS} characters",
                           {"player_name": f"at most {MAX_NAME_CHARS} characters"})
    with account_creates_one_at_a_time(owner):  # two tabs' start forms at once make one
        if Persona.objects.filter(owner=owner).exists():
            return None
        return persona_create(store, owner=owner, data={"name": name.strip(), "description": ""})


def persona_first_undone(store: FileStore, *, owner, persona_id: str | None) -> None:
    """The persona `persona_first_named` made for a chat's start that was then refused (a
    limit, a character the account may not play) is removed outright, file and row, as a
    create over a limit is (library/quotas.py): the start changed nothing, and the name is asked
    again."""
    if persona_id is None:
        return
    Persona.objects.filter(persona_id=persona_id, owner=owner).delete()
    shutil.rmtree(store.persona_dir(persona_id), ignore_errors=True)


def name_ask_context(*, user) -> dict[str, Any]:
    """The "Your name in the story" field of every place a chat starts (the home page, a
    library tile, a character's page, a chat import: templates/chat/_name_ask.html), asked
    while the account has no persona (docs/decisions/newcomer-name.md)."""
    return {"name_asked": not Persona.objects.filter(owner=user).exists(),
            "name_limit": MAX_NAME_CHARS}


def persona_update(store: FileStore, *, actor, persona_id: str, data: dict[str, Any]) -> None:
    persona = store.persona_read(persona_id)
    _persona_may_change(actor, persona)
    fields = _persona_fields(data, creating=False, store=store, user=actor, existing=persona)
    if data.get("default") is False:  # no default: {{user}} is the prompt settings' name
        fields["default"] = False
    store.persona_write(persona_id, {**persona, **fields})
    persona_index(store, persona_id)
    if data.get("default"):
        persona_default_set(store, actor=actor, persona_id=persona_id)


def persona_default_set(store: FileStore, *, actor, persona_id: str) -> None:
    """One default per owner; the flag lives in the persona files, so reindex restores it."""
    persona = store.persona_read(persona_id)
    _persona_may_change(actor, persona)
    for row in Persona.objects.filter(owner__username=persona["owner"], is_default=True):
        if row.persona_id != persona_id:
            other = store.persona_read(row.persona_id)
            store.persona_write(row.persona_id, {**other, "default": False})
            persona_index(store, row.persona_id)
    store.persona_write(persona_id, {**persona, "default": True})
    persona_index(store, persona_id)


def persona_delete(store: FileStore, *, actor, persona_id: str) -> None:
    """Moved aside, never destroyed; instances that picked it fall back to the default."""
    _persona_may_change(actor, store.persona_read(persona_id))
    store.persona_delete(persona_id)
    Persona.objects.filter(persona_id=persona_id).delete()


def persona_avatar_save(store: FileStore, *, actor, persona_id: str, data: bytes) -> str:
    persona = store.persona_read(persona_id)
    _persona_may_change(actor, persona)
    if problem := avatar_problem(data):
        raise LibraryError(problem[0], {"avatar": problem[1]})
    name = avatar_write(store.persona_dir(persona_id), data, image_kind(data) or "png")
    store.persona_write(persona_id, {**persona, "avatar": name})
    return name


def persona_avatar_remove(store: FileStore, *, actor, persona_id: str) -> bool:
    """The persona goes back to its initial in place of a picture; whether it had one."""
    persona = store.persona_read(persona_id)
    _persona_may_change(actor, persona)
    removed = avatar_remove(store.persona_dir(persona_id))
    store.persona_write(persona_id, {**persona, "avatar": None})
    return removed
