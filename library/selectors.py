"""Reads that decide what an account may see in the library (SPEC §10 "Ownership").

A definition file records `owner` (a username, or none for shared starter data) and
`visibility` (`private` / `shared`). Lists come from the index rows; a single item is judged on
its file, the truth. Unknown and not-visible look the same (404); visible but not yours to change
is 403 with a sentence."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Q, QuerySet

from library.errors import ItemWithheld, LibraryForbidden, LibraryNotFound
from library.models import Background, Character, Lorebook, Persona
from library.personas.positions import persona_placement
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import InvalidId, is_valid_id
from personalab.lib.shown import value_shown
from personalab.lib.store_errors import MissingFile, StoreError

DEFAULT_USER_NAME = "User"
KINDS = {"character": "character_read", "background": "background_read",
         "lorebook": "lorebook_read"}


def visibility_of(item: dict[str, Any]) -> str:
    """Items written before owners were recorded, and starter data without an owner, are
    shared; an owned item without a valid setting is private."""
    visibility = item.get("visibility")
    if visibility in ("private", "shared"):
        return visibility
    return "private" if item.get("owner") else "shared"


def item_readable_by(item: dict[str, Any], *, username: str | None) -> bool:
    """Whether a chat owned by `username` may still read a library item it uses: the item may
    have been made private since. Judged on the item's file; the database only for another
    owner's private item (is the chat's owner staff?). A chat without an owner is the system's."""
    if username is None or visibility_of(item) == "shared" or item.get("owner") == username:
        return True
    return get_user_model().objects.filter(username=username, is_staff=True).exists()


def _for_chat(store: FileStore, *, state: dict[str, Any], kind: str,
              item_id: str) -> dict[str, Any] | None:
    """The item as the chat of `state` may see it: the file while its owner may read it, else
    the copy the chat kept when the author made it private or deleted it; None when neither."""
    instance_id = state.get("instance_id")
    try:
        item = getattr(store, KINDS[kind])(item_id)
    except (StoreError, ValueError):
        item = None
    if isinstance(item, dict) and item_readable_by(item, username=state.get("owner")):
        return item
    return store.kept_copy_read(instance_id, kind, item_id) if instance_id else None


class ChatCharacters:
    """A chat's characters as it may see them, each file read at most once. Made for one
    request (one page load) and dropped with it, so nothing stale or another chat's is served."""

    def __init__(self, store: FileStore, *, state: dict[str, Any]) -> None:
        self.store, self.state = store, state
        self._read: dict[str, dict[str, Any] | None] = {}

    def _item(self, character_id: str) -> dict[str, Any] | None:
        if character_id not in self._read:
            self._read[character_id] = _for_chat(self.store, state=self.state,
                                                 kind="character", item_id=character_id)
        return self._read[character_id]

    def playable(self, character_id: str) -> dict[str, Any]:
        """As character_for_chat."""
        character = self._item(character_id)
        if character is None and not (self.store.character_dir(character_id)
                                      / "definition.json").is_file():
            return {}  # a missing file plays as an empty card, as before copies were kept
        if character is None:
            raise ItemWithheld(message=f"character {character_id} cannot be played in this "
                                       "chat: its author made it private (or deleted it); "
                                       "nothing of the chat is lost")
        return character

    def optional(self, character_id: str | None) -> dict[str, Any]:
        """As character_for_chat_optional."""
        return (self._item(character_id) or {}) if character_id else {}


def character_for_chat(store: FileStore, *, state: dict[str, Any],
                       character_id: str) -> dict[str, Any]:
    """A chat's character (or group member), never another author's private file: raises
    ItemWithheld when the chat may not read it and kept no copy."""
    return ChatCharacters(store, state=state).playable(character_id)


def character_for_chat_optional(store: FileStore, *, state: dict[str, Any],
                                character_id: str | None) -> dict[str, Any]:
    """As character_for_chat, with {} for a missing or withheld character (names, pages)."""
    return ChatCharacters(store, state=state).optional(character_id)


def background_for_chat(store: FileStore, *, state: dict[str, Any]) -> dict[str, Any]:
    """A chat's background as it may see it; an empty one when none, missing or withheld
    (a background is optional: the story plays on without it)."""
    background_id = state.get("background_id")
    empty = store.background_read_optional(None) | {"background_id": background_id}
    if not background_id:
        return empty
    return _for_chat(store, state=state, kind="background", item_id=background_id) or empty


def personas_visible_to(*, user) -> QuerySet[Persona]:
    rows = Persona.objects.select_related("owner")
    return rows if user.is_staff else rows.filter(Q(owner=user) | Q(visibility="shared"))


def persona_owned_named(*, user, name: str) -> Persona | None:
    """The account's own persona of that name (an import names a player where this app keeps
    an id); never another account's shared one, whose author's edits would speak as this
    player."""
    return Persona.objects.filter(owner=user, name=name).order_by("persona_id").first()


def persona_for_user(*, user, persona_id: str) -> Persona:
    """Unknown and not-visible look the same."""
    row = (personas_visible_to(user=user).filter(persona_id=persona_id).first()
           if is_valid_id(persona_id) else None)
    if row is None:
        raise LibraryNotFound(f"persona {value_shown(persona_id)} not found")
    return row


def persona_effective(store: FileStore, *, owner: str | None,
                      persona_id: str | None) -> dict[str, Any]:
    """Who `{{user}}` is in an instance: the persona it picked, else the owner's default,
    else the name in the prompt settings with no description."""
    def candidates() -> Iterator[str]:
        if persona_id:
            yield persona_id
        if owner:  # asked only when the picked persona is not there: one query less per turn
            yield from default_persona_ids(owner)

    for candidate in candidates():
        try:
            persona = store.persona_read(candidate)
        except (StoreError, ValueError):
            continue
        if persona.get("owner") != owner and persona.get("visibility") != "shared":
            continue
        return {"persona_id": candidate, "name": persona.get("name") or DEFAULT_USER_NAME,
                "description": persona.get("description", ""), **persona_placement(persona),
                "lorebook_id": persona.get("lorebook_id") or None}
    name = store.module_read("prompt").get("user_name") or DEFAULT_USER_NAME
    if name == DEFAULT_USER_NAME and owner:  # a full name the account was given is a name
        name = account_full_name(owner) or name
    return {"persona_id": None, "name": name, "description": "", **persona_placement({}),
            "lorebook_id": None}


def player_name(store: FileStore, *, state: dict[str, Any]) -> str:
    """The name the player speaks under in a chat now. Written on each of their lines, so a
    later change of persona does not rename what was said before (SillyTavern keeps each
    message's name too)."""
    return persona_effective(store, owner=state.get("owner"),
                             persona_id=state.get("persona_id"))["name"]


def account_full_name(username: str) -> str | None:
    """The full name an account was given, if any. Its username is a login ("admin"), not a
    name: the characters called the demo's player "admin" (docs/decisions/newcomer-name.md)."""
    row = get_user_model().objects.filter(username=username).values_list(
        "first_name", "last_name").first()
    return " ".join(part for part in row or () if part).strip() or None


def default_persona_ids(owner: str) -> list[str]:
    """The owner's default persona (at most one id). Asked on every turn before the request:
    the ORM spends 0.19 ms building this query, the statement itself 0.01 ms, so it is
    written once, from the models' own table and column names."""
    with connection.cursor() as cursor:
        cursor.execute(_default_persona_sql(), [owner])
        return [row[0] for row in cursor.fetchall()]


@functools.cache
def _default_persona_sql() -> str:
    user_model = Persona._meta.get_field("owner").related_model
    persona, user = Persona._meta, user_model._meta
    quote = connection.ops.quote_name
    return (f"SELECT p.{quote(persona.pk.column)} FROM {quote(persona.db_table)} p "
            f"JOIN {quote(user.db_table)} u ON p.{quote(persona.get_field('owner').column)}"
            f" = u.{quote(user.pk.column)} "
            f"WHERE u.{quote(user.get_field(user_model.USERNAME_FIELD).column)} = %s"
            f" AND p.{quote(persona.get_field('is_default').column)} "
            f"ORDER BY p.{quote(persona.get_field('name').column)}, p.{quote(persona.pk.column)}"
            " LIMIT 1")


def _visible(rows: QuerySet, user) -> QuerySet:
    if user.is_staff:
        return rows
    return rows.filter(Q(visibility="shared") | Q(owner=user) if user.is_authenticated
                       else Q(visibility="shared"))


def characters_visible_to(*, user) -> QuerySet[Character]:
    return _visible(Character.objects.select_related("owner"), user)


def backgrounds_visible_to(*, user) -> QuerySet[Background]:
    return _visible(Background.objects.select_related("owner"), user)


def lorebooks_visible_to(*, user) -> QuerySet[Lorebook]:
    return _visible(Lorebook.objects.select_related("owner"), user)


def lorebooks_named(names: list[str], *, user) -> dict[str, str]:
    """For each name, the book of that name `user` owns, in one query (SillyTavern names a
    book where this app keeps an id: a card's `extensions.world`, settings.json's global
    selection and charLore, a persona's book). Names found only. Never another account's
    shared book: anyone may name one after a book others import, and its author's later
    edits would reach every chat it was linked into."""
    rows = (Lorebook.objects.filter(owner=user, name__in=[n.strip() for n in names])
            .order_by("lorebook_id").values_list("name", "lorebook_id"))
    found: dict[str, str] = {}
    for name, lorebook_id in rows:
        found.setdefault(name, lorebook_id)
    return found


def lorebook_named(name: str, *, user) -> str | None:
    return lorebooks_named([name], user=user).get(name.strip())


def lorebooks_hidden_from(*, user) -> set[str]:
    """The ids of the lorebooks `user` may not see: other accounts' private books."""
    if user.is_staff:
        return set()
    seen = lorebooks_visible_to(user=user).values("lorebook_id")
    return set(Lorebook.objects.exclude(lorebook_id__in=seen)
               .values_list("lorebook_id", flat=True))


def links_shown(item: dict[str, Any], *, hidden: set[str]) -> dict[str, Any]:
    """A character or background as another account reads it: without the links to books it
    may not see. A book's id is its name's slug (`lore_diary_of_bea`), so a shared card
    linking its author's private book named that book to every reader."""
    ids = item.get("lorebook_ids")
    if not hidden or not isinstance(ids, list):
        return item
    return {**item, "lorebook_ids": [i for i in ids if i not in hidden]}


# Kept in an item's file for its owner (and staff) alone: the name of the file a card was
# imported from, which SillyTavern names a character by and which may be a private file's name,
# and the id a copy came from, which may be the owner's private item's.
OWNER_ONLY_KEYS = ("st_avatar", "copied_from")


def owner_keys_hidden(item: dict[str, Any], *, user) -> dict[str, Any]:
    """An item as an account that may not change it reads it (GET, a list, a copy): without
    what only its owner keeps."""
    if not any(key in item for key in OWNER_ONLY_KEYS) or item_can_change(item, user):
        return item
    return {key: value for key, value in item.items() if key not in OWNER_ONLY_KEYS}


def item_can_see(item: dict[str, Any], user) -> bool:
    if user.is_staff or visibility_of(item) == "shared":
        return True
    return bool(item.get("owner")) and item.get("owner") == user.get_username()


def item_can_change(item: dict[str, Any], user) -> bool:
    """Only the owner or staff; an item without an owner (starter data) is staff's to change."""
    return user.is_staff or (bool(item.get("owner")) and item.get("owner") == user.get_username())


def _item_read(store: FileStore, kind: str, item_id: str) -> dict[str, Any]:
    try:
        return getattr(store, KINDS[kind])(item_id)
    except (MissingFile, InvalidId):
        raise LibraryNotFound(f"{kind} {value_shown(item_id)} not found") from None


def item_for_use(store: FileStore, *, user, kind: str, item_id: str) -> dict[str, Any]:
    item = _item_read(store, kind, item_id)
    if not item_can_see(item, user):
        raise LibraryNotFound(f"{kind} {value_shown(item_id)} not found")
    return item


def item_for_edit(store: FileStore, *, user, kind: str, item_id: str) -> dict[str, Any]:
    item = item_for_use(store, user=user, kind=kind, item_id=item_id)
    if not item_can_change(item, user):
        raise LibraryForbidden(
            f"{kind} {item.get('name') or item_id} belongs to {item.get('owner') or 'the site'}; "
            "only its owner or "
            f"staff may change or delete it. Use \"use as my own\" to make your own copy.")
    return item


def character_for_use(store: FileStore, *, user, character_id: str) -> dict[str, Any]:
    return item_for_use(store, user=user, kind="character", item_id=character_id)


def character_for_edit(store: FileStore, *, user, character_id: str) -> dict[str, Any]:
    return item_for_edit(store, user=user, kind="character", item_id=character_id)


def background_for_use(store: FileStore, *, user, background_id: str) -> dict[str, Any]:
    return item_for_use(store, user=user, kind="background", item_id=background_id)


def background_for_edit(store: FileStore, *, user, background_id: str) -> dict[str, Any]:
    return item_for_edit(store, user=user, kind="background", item_id=background_id)


def lorebook_for_use(store: FileStore, *, user, lorebook_id: str) -> dict[str, Any]:
    return item_for_use(store, user=user, kind="lorebook", item_id=lorebook_id)


def lorebook_for_edit(store: FileStore, *, user, lorebook_id: str) -> dict[str, Any]:
    return item_for_edit(store, user=user, kind="lorebook", item_id=lorebook_id)
