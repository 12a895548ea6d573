"""Library actions: every edit writes the file first, then the index row."""

from __future__ import annotations

import copy
import errno
import shutil
from typing import Any

from django.contrib.auth import get_user_model

from library.avatars import avatar_file, avatar_write, image_kind
from library.card_extensions import extension_edits_of, extensions_applied
from library.chat_use import ChatRow, chats_playing
from library.create_ids import id_claim, persona_id_pick
from library.errors import (CopyNotKept, LibraryConflict, LibraryError, LibraryForbidden,
                            LibraryNotFound)
from library.limits import lore_entries_check
from library.models import Background, Character, Lorebook, Persona
from library.selectors import (character_for_edit, item_for_edit, item_for_use,
                               lorebooks_visible_to, visibility_of)
from personalab.lib.filestore import FileStore, InstanceBusy, utc_now
from personalab.lib.ids import slug_candidates, slug_id, validate_id

__all__ = ["LibraryConflict", "LibraryError", "LibraryForbidden", "LibraryNotFound"]

MAX_TEXT = 20000
# Card text is generous: real cards carry 30-100 KB descriptions and dozens of tags.
MAX_CARD_TEXT = 1_000_000
MAX_TAGS = 1000
MAX_TAG_CHARS = 200
MAX_NAME_CHARS = 200  # a name written here (a character's, a lorebook's)
# Card fields the character editor shows besides name, persona and greeting.
CARD_TEXT_FIELDS = ("system_prompt", "post_history_instructions", "mes_example",
                    "creator_notes")


def user_for_username(username: str | None):
    """The account a file names as its owner; reindex on a fresh database recreates it
    (without a usable password) so ownership survives."""
    if not username:
        return None
    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save()
    return user


def _clean_text(value: Any, *, field: str, required: bool = False, limit: int = MAX_TEXT) -> str:
    if value is not None and not isinstance(value, str):
        raise LibraryError(f"{field} must be text", {field: "must be a string"})
    text = "" if value is None else value.strip()
    if required and not text:
        raise LibraryError(f"{field} is required", {field: "required"})
    if len(text) > limit:
        raise LibraryError(f"{field} is longer than {limit} characters",
                           {field: f"at most {limit} characters"})
    return text


def _as_written(value: Any, *, field: str, limit: int = MAX_CARD_TEXT) -> str:
    """Card text as the author wrote it (browsers send CRLF; cards store LF)."""
    if value is not None and not isinstance(value, str):
        raise LibraryError(f"{field} must be text", {field: "must be text"})
    text = (value or "").replace("\r\n", "\n")
    if len(text) > limit:
        raise LibraryError(f"{field} is longer than {limit} characters",
                           {field: f"at most {limit} characters"})
    return text


def _clean_tags(value: Any) -> list[str]:
    """Tags kept as given; a string is split on commas (one tag per line if it has lines)."""
    if value is None:
        return []
    if isinstance(value, str):
        value = value.splitlines() if "\n" in value else value.split(",")
        value = [tag.strip() for tag in value]
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        raise LibraryError("tags must be a list of text", {"tags": "must be a list of text"})
    tags = [tag for tag in value if tag.strip()]
    if len(tags) > MAX_TAGS or any(len(tag) > MAX_TAG_CHARS for tag in tags):
        problem = f"at most {MAX_TAGS} tags of at most {MAX_TAG_CHARS} characters each"
        raise LibraryError(f"tags: {problem}", {"tags": problem})
    return tags


def _same_text(new: str, old: Any) -> bool:
    # The form strips nothing but the browser may; trailing whitespace alone is no edit.
    return isinstance(old, str) and new.strip() == old.strip()


def _card_with_fields(card: Any, data: dict[str, Any]) -> Any:
    """The stored card with the edited card-only fields laid over it; untouched otherwise."""
    edits = {}
    for name in CARD_TEXT_FIELDS:
        if name in data:
            text = _as_written(data[name], field=name)
            current = ((card or {}).get("data") or {}).get(name, "")
            if not _same_text(text, current):
                edits[name] = text
    if "alternate_greetings" in data:
        current = ((card or {}).get("data") or {}).get("alternate_greetings")
        greetings = _greetings_edited(current, data["alternate_greetings"])
        if greetings is not None:
            edits["alternate_greetings"] = greetings
    extension_edits = extension_edits_of(card, data)
    if not edits and not extension_edits:
        return card
    card = copy.deepcopy(card) if isinstance(card, dict) else {
        "spec": "chara_card_v3", "spec_version": "3.0", "data": {}}
    card.setdefault("data", {}).update(edits)
    if extension_edits:
        card["data"]["extensions"] = extensions_applied(card["data"].get("extensions"),
                                                        extension_edits)
    return card


def _greetings_edited(current: Any, posted: Any) -> list[Any] | None:
    """The card's alternate greetings after an edit (added, removed, reordered, changed), or
    None when nothing changed. A greeting whose text is unchanged keeps its stored form, so an
    unchanged or only reordered list loses nothing; an emptied one is removed."""
    if not isinstance(posted, list) or not all(isinstance(text, str) for text in posted):
        raise LibraryError("alternate_greetings must be a list of text",
                           {"alternate_greetings": "must be a list of text"})
    texts = [_as_written(text, field="alternate_greetings") for text in posted]
    current = current if isinstance(current, list) else []
    if len(texts) == len(current) and all(_same_text(new, old)
                                          for new, old in zip(texts, current)):
        return None
    unused = list(current)
    greetings: list[Any] = []
    for text in texts:
        if not text.strip():
            continue
        same = next((index for index, old in enumerate(unused) if _same_text(text, old)), None)
        greetings.append(text if same is None else unused.pop(same))
    return greetings


def lorebook_ids_checked(store: FileStore, value: Any, *, user,
                        linked: Any = ()) -> list[str]:
    """A list of ids of existing lorebooks the author may use: anything else would make every
    instance using the item fail later. Ids already `linked` stay allowed, so an unrelated
    change is not refused over a link made earlier."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise LibraryError("lorebook_ids must be a list of lorebook ids",
                           {"lorebook_ids": "must be a list of lorebook ids"})
    existing = set(store.lorebook_ids())
    usable = (existing if user is None else
              set(lorebooks_visible_to(user=user).values_list("lorebook_id", flat=True)))
    kept = set(linked) if isinstance(linked, list) else set()
    for lorebook_id in value:
        if lorebook_id not in kept and (lorebook_id not in existing or lorebook_id not in usable):
            raise LibraryError(f"lorebook_ids: no lorebook {lorebook_id!r}",
                               {"lorebook_ids": f"no lorebook {lorebook_id!r}"})
    return list(dict.fromkeys(value))


def _ownership(data: dict[str, Any], existing: dict[str, Any], *, user) -> dict[str, Any]:
    """Owner and visibility of a saved item: a new item belongs to its creator (private unless
    asked otherwise); a change keeps the owner and may switch the visibility."""
    owner = existing.get("owner") if existing else (user.get_username() if user else None)
    visibility = data.get("visibility")
    if visibility in (None, ""):
        visibility = visibility_of(existing) if existing else ("private" if owner else "shared")
    if visibility not in ("private", "shared"):
        raise LibraryError("visibility must be private or shared",
                           {"visibility": "must be 'private' or 'shared'"})
    return {"owner": owner, "visibility": visibility}


def _index_owner(item: dict[str, Any]) -> dict[str, Any]:
    return {"owner": user_for_username(item.get("owner")), "visibility": visibility_of(item)}


# personas (the player's persona: `{{user}}` and its description) --------

PERSONA_DESCRIPTION_LIMIT = 100_000
VISIBILITIES = ("private", "shared")
AVATAR_MAX_BYTES = 2 * 1024 * 1024


def persona_index(store: FileStore, persona_id: str) -> Persona:
    persona = store.persona_read(persona_id)
    row, _ = Persona.objects.update_or_create(
        persona_id=persona_id,
        defaults={"name": persona.get("name") or persona_id,
                  "owner": user_for_username(persona.get("owner")),
                  "visibility": persona.get("visibility", "private"),
                  "is_default": bool(persona.get("default"))},
    )
    return row


def _persona_fields(data: dict[str, Any], *, creating: bool) -> dict[str, Any]:
    """Only the fields present in `data` (an update changes what it names)."""
    fields: dict[str, Any] = {}
    if creating or "name" in data:
        fields["name"] = _clean_text(data.get("name"), field="name", required=True,
                                     limit=MAX_NAME_CHARS)
    if creating or "description" in data:
        fields["description"] = _clean_text(data.get("description"), field="description",
                                             limit=PERSONA_DESCRIPTION_LIMIT)
    if creating or "visibility" in data:
        visibility = data.get("visibility") or "private"
        if visibility not in VISIBILITIES:
            raise LibraryError("visibility must be private or shared",
                               {"visibility": "private or shared"})
        fields["visibility"] = visibility
    return fields


def _persona_may_change(actor, persona: dict[str, Any]) -> None:
    if not (actor.is_staff or persona.get("owner") == actor.get_username()):
        raise LibraryForbidden(f"persona {persona.get('persona_id')} belongs to another account")


def persona_create(store: FileStore, *, owner, data: dict[str, Any]) -> str:
    fields = _persona_fields(data, creating=True)
    existing = set(store.persona_ids())
    if data.get("persona_id"):
        persona_id = persona_id_pick(store, validate_id(data["persona_id"], kind="persona id"),
                                     user=owner)
    else:
        persona_id = slug_id("persona", fields["name"], existing)
    username = owner.get_username()
    first = not Persona.objects.filter(owner__username=username).exists()
    store.persona_write(persona_id, {**fields, "owner": username, "avatar": None,
                                     "created_at": utc_now(), "default": False})
    persona_index(store, persona_id)
    if first or data.get("default"):
        persona_default_set(store, actor=owner, persona_id=persona_id)
    return persona_id


def persona_update(store: FileStore, *, actor, persona_id: str, data: dict[str, Any]) -> None:
    persona = store.persona_read(persona_id)
    _persona_may_change(actor, persona)
    fields = _persona_fields(data, creating=False)
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
    if len(data) > AVATAR_MAX_BYTES:
        raise LibraryError("avatar is larger than 2 MB", {"avatar": "at most 2 MB"})
    kind = image_kind(data)
    if kind is None:
        raise LibraryError("avatar must be a PNG, JPEG, GIF or WebP image",
                           {"avatar": "PNG, JPEG, GIF or WebP"})
    name = avatar_write(store.persona_dir(persona_id), data, kind)
    store.persona_write(persona_id, {**persona, "avatar": name})
    return name


# copies kept by other accounts' chats -----------------------------------

def _chats_of_others(*, kind: str, item_id: str, owner: str | None) -> list[str]:
    """Instances of accounts other than the item's owner (and not staff, who read everything)
    that play it: as the story's character or background, or as a member of a group."""
    return sorted({row.instance_id for row in chats_playing(kind=kind, item_id=item_id)
                   if row.owner_id is not None and not row.owner_is_staff
                   and not (owner and row.owner_username == owner)})


def chat_copies_keep(store: FileStore, *, kind: str, item_id: str, item: dict[str, Any],
                     chats: list[str] | None = None) -> list[str]:
    """Another author's character/background is being made private or deleted: every chat of
    another account that plays it keeps `item` (the last version it could read) in its own
    folder, and plays that from now on. Called before the item's file changes, so a turn reads
    either the shared file or the copy. Under each instance's lock; a chat busy in a turn gets
    the copy all the same (one atomic write no other writer touches). Returns the instances.
    `chats`: those instances, when the caller has just looked them up."""
    if chats is None:
        chats = _chats_of_others(kind=kind, item_id=item_id, owner=item.get("owner"))
    for instance_id in chats:
        try:
            lock = store.instance_lock(instance_id).acquire()
        except InstanceBusy:
            lock = None
        try:
            store.kept_copy_write(instance_id, kind, item_id, {**item, "kept_at": utc_now()})
        except OSError as exc:  # another account's instance id is not named
            refused = CopyNotKept(
                f"the {kind} was not changed: a chat of another account that uses it could not "
                f"keep its copy ({exc.strerror or exc}); nothing was changed, try again later")
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                refused.status = 500
            raise refused from exc
        finally:
            if lock is not None:
                lock.release()
    return chats


def _chats_kept_apart(store: FileStore, item: dict[str, Any], *, kind: str,
                      item_id: str) -> list[str]:
    """Other accounts' chats that do not stop a delete: they keep a copy now (a shared item)
    or kept one when it was made private. A chat from before copies were kept has none and
    still holds the delete back: its author's text was never its to keep. Only an owned
    item's: a site item has no author to take it back."""
    if not item.get("owner"):
        return []
    chats = _chats_of_others(kind=kind, item_id=item_id, owner=item["owner"])
    if visibility_of(item) == "shared":
        return chats
    return [instance_id for instance_id in chats
            if store.kept_copy_read(instance_id, kind, item_id) is not None]


def _copies_keep_on_delete(store: FileStore, *, kind: str, item_id: str,
                           item: dict[str, Any], chats: list[str]) -> None:
    # A private item's text was never theirs to read: the copy kept when it was made
    # private stays as it is (a chat from before copies were kept has none and is refused).
    # `chats`: _chats_kept_apart's, which for a shared item are every other account's chat.
    if item.get("owner") and visibility_of(item) == "shared":
        chat_copies_keep(store, kind=kind, item_id=item_id, item=item, chats=chats)


def _copies_keep_on_change(store: FileStore, *, kind: str, item_id: str,
                           existing: dict[str, Any], changed: dict[str, Any]) -> None:
    if existing and visibility_of(existing) == "shared" and visibility_of(changed) == "private":
        chat_copies_keep(store, kind=kind, item_id=item_id, item=existing)


# characters -------------------------------------------------------------

def _fitted(model, field: str, text: str) -> str:
    """Index text cut to its column (PostgreSQL refuses longer); the file keeps it whole."""
    return text[:model._meta.get_field(field).max_length]


def character_index(store: FileStore, character_id: str) -> Character:
    definition = store.character_read(character_id)
    tags = ", ".join(str(tag) for tag in definition.get("tags", []))
    row, _ = Character.objects.update_or_create(
        character_id=character_id,
        defaults={"name": _fitted(Character, "name", definition.get("name", character_id)),
                  "tags": _fitted(Character, "tags", tags),
                  **_index_owner(definition)},
    )
    return row


def character_save(store: FileStore, *, data: dict[str, Any], character_id: str | None = None,
                   user=None) -> str:
    """Create (`character_id` None; never overwrites) or change a character. `user`: the
    account acting, who owns what it creates and may change only its own (staff: any);
    None for the system itself (seed, admin forms, tests)."""
    name = _clean_text(data.get("name"), field="name", required=True, limit=MAX_NAME_CHARS)
    creating = character_id is None
    if creating:
        existing: dict[str, Any] = {}
    elif user is not None:
        existing = character_for_edit(store, user=user, character_id=character_id)
    else:
        existing = store.character_read(character_id)
    definition = {
        **existing,
        "character_id": character_id,
        "name": _kept(name, existing.get("name")),
        "base_persona": _kept(_as_written(data.get("base_persona"), field="base_persona"),
                              existing.get("base_persona")),
        "greeting": _kept(_as_written(data.get("greeting"), field="greeting"),
                          existing.get("greeting")),
        "tags": _clean_tags(data.get("tags")),
        **_ownership(data, existing, user=user),
    }
    for optional in ("pinned_prompt", "lorebook_ids", "card"):
        # A form sends every field; an empty one the file never had is not an edit.
        if optional in data and (data[optional] not in (None, "", [])
                                 or optional in existing):
            definition[optional] = _optional_clean(store, optional, data[optional], user=user,
                                                   existing=existing)
    card = _card_with_fields(definition.get("card"), data)
    if card is not None:
        definition["card"] = card
    if creating:  # last, once everything is valid: a refused create leaves no folder behind
        character_id = id_claim(store, data, key="character_id", prefix="char", name=name,
                                kind="characters", read=store.character_read, user=user)
    _copies_keep_on_change(store, kind="character", item_id=character_id, existing=existing,
                           changed=definition)
    store.character_write(character_id, definition)
    character_index(store, character_id)
    return character_id


def _optional_clean(store: FileStore, name: str, value: Any, *, user,
                    existing: dict[str, Any]) -> Any:
    if name == "lorebook_ids":
        return lorebook_ids_checked(store, value, user=user, linked=existing.get("lorebook_ids"))
    if name == "card" and not isinstance(value, dict):
        raise LibraryError("card must be an object", {"card": "must be an object"})
    if name == "pinned_prompt":
        return _as_written(value, field="pinned_prompt", limit=MAX_TEXT)
    return value


def _kept(new: str, old: Any) -> Any:
    return old if _same_text(new, old) else new


def _users_named(chats: list[ChatRow], user) -> str:
    """The instances still using an item, as the refusal names them: another account's
    instance ids are not this user's to learn, only how many there are."""
    rows = sorted((row.instance_id, row.owner_id) for row in chats)
    if user is None or user.is_staff:
        return ", ".join(instance_id for instance_id, _ in rows[:5])
    own = [instance_id for instance_id, owner_id in rows if owner_id == user.pk][:5]
    others = sum(1 for _, owner_id in rows if owner_id != user.pk)
    return ", ".join(own + ([f"{others} of other accounts"] if others else []))


def _chats_using(kind: str, item_id: str, apart: list[str]) -> list[ChatRow]:
    return [row for row in chats_playing(kind=kind, item_id=item_id, as_member=False)
            if row.instance_id not in apart]


def character_delete(store: FileStore, *, character_id: str, user=None) -> None:
    definition = (character_for_edit(store, user=user, character_id=character_id)
                  if user is not None else store.character_read(character_id))
    others = _chats_kept_apart(store, definition, kind="character", item_id=character_id)
    users = _users_named(_chats_using("character", character_id, others), user)
    if users:
        raise LibraryConflict(f"character {character_id} is used by instance(s) {users}; "
                              "delete or archive those instances first", field=None)
    _copies_keep_on_delete(store, kind="character", item_id=character_id, item=definition,
                           chats=others)
    store.character_delete(character_id)
    Character.objects.filter(character_id=character_id).delete()


# backgrounds ------------------------------------------------------------

def background_index(store: FileStore, background_id: str) -> Background:
    background = store.background_read(background_id)
    row, _ = Background.objects.update_or_create(
        background_id=background_id,
        defaults={"name": background.get("name", background_id),
                  "outline_length": len(background.get("story_outline", [])),
                  **_index_owner(background)},
    )
    return row


def _clean_outline(points: Any) -> list[dict[str, Any]]:
    if points is not None and not isinstance(points, list):
        raise LibraryError("story_outline must be a list of points",
                           {"story_outline": "must be a list"})
    cleaned = []
    for point in points or []:
        content = point.get("content") if isinstance(point, dict) else point
        content = _clean_text(content, field="story_outline", limit=2000)
        if content:
            cleaned.append({"content": content})
    return cleaned


def background_save(store: FileStore, *, data: dict[str, Any],
                    background_id: str | None = None, user=None) -> str:
    """Create (never overwrites) or change a background; `user` as in character_save."""
    name = _clean_text(data.get("name"), field="name", required=True, limit=MAX_NAME_CHARS)
    creating = background_id is None
    if creating:
        existing: dict[str, Any] = {}
    elif user is not None:
        existing = item_for_edit(store, user=user, kind="background", item_id=background_id)
    else:
        existing = store.background_read(background_id)
    background = {
        **existing,
        "background_id": background_id,
        "name": name,
        "world_setting": _clean_text(data.get("world_setting"), field="world_setting"),
        "story_outline": _clean_outline(data.get("story_outline", existing.get("story_outline"))),
        **_ownership(data, existing, user=user),
    }
    if "lorebook_ids" in data:
        background["lorebook_ids"] = lorebook_ids_checked(
            store, data["lorebook_ids"], user=user, linked=existing.get("lorebook_ids"))
    if creating:
        background_id = id_claim(store, data, key="background_id", prefix="bg", name=name,
                                 kind="backgrounds", read=store.background_read, user=user)
    _copies_keep_on_change(store, kind="background", item_id=background_id, existing=existing,
                           changed=background)
    store.background_write(background_id, background)
    background_index(store, background_id)
    return background_id


def background_outline_edit(store: FileStore, *, background_id: str, action: str,
                            position: int | None = None, content: str = "",
                            user=None) -> list[dict]:
    """Add, edit, delete or move one outline point (1-based positions)."""
    background = (store.background_read(background_id) if user is None else
                  item_for_edit(store, user=user, kind="background", item_id=background_id))
    points = [p["content"] for p in background.get("story_outline", [])]
    if action == "add":
        text = _clean_text(content, field="content", required=True, limit=2000)
        points.append(text)
    else:
        if position is None or not 1 <= position <= len(points):
            raise LibraryError(f"no outline point {position}")
        i = position - 1
        if action == "edit":
            points[i] = _clean_text(content, field="content", required=True, limit=2000)
        elif action == "delete":
            points.pop(i)
        elif action in ("up", "down"):
            j = i - 1 if action == "up" else i + 1
            if 0 <= j < len(points):
                points[i], points[j] = points[j], points[i]
        else:
            raise LibraryError(f"unknown outline action {action!r}")
    background["story_outline"] = [{"content": text} for text in points]
    store.background_write(background_id, background)
    background_index(store, background_id)
    return store.background_read(background_id)["story_outline"]


def background_delete(store: FileStore, *, background_id: str, user=None) -> None:
    background = (item_for_edit(store, user=user, kind="background", item_id=background_id)
                  if user is not None else store.background_read(background_id))
    others = _chats_kept_apart(store, background, kind="background", item_id=background_id)
    users = _users_named(_chats_using("background", background_id, others), user)
    if users:
        raise LibraryConflict(f"background {background_id} is used by instance(s) {users}; "
                              "switch those instances to another background first", field=None)
    _copies_keep_on_delete(store, kind="background", item_id=background_id, item=background,
                           chats=others)
    store.background_delete(background_id)
    Background.objects.filter(background_id=background_id).delete()


# lorebooks --------------------------------------------------------------

def lorebook_index(store: FileStore, lorebook_id: str) -> Lorebook:
    lorebook = store.lorebook_read(lorebook_id)
    row, _ = Lorebook.objects.update_or_create(
        lorebook_id=lorebook_id,
        defaults={"name": _fitted(Lorebook, "name", lorebook.get("name", lorebook_id)),
                  "entry_count": len(lorebook.get("entries", [])),
                  **_index_owner(lorebook)},
    )
    return row


# use as my own -----------------------------------------------------------

COPY_KINDS = {"character": ("char", "character_ids", "character_dir", "character_write",
                            character_index),
              "background": ("bg", "background_ids", "background_dir", "background_write",
                             background_index),
              "lorebook": ("lore", "lorebook_ids", "lorebook_dir", "lorebook_write",
                           lorebook_index)}


def _item_copy(store: FileStore, *, user, kind: str, item_id: str) -> str:
    """A private copy of an item `user` may see, owned by `user`, under a new id. Links to
    lorebooks `user` may not see are left out of the copy."""
    prefix, ids, folder, write, index = COPY_KINDS[kind]
    source = item_for_use(store, user=user, kind=kind, item_id=item_id)
    new_id = store.dir_claim(getattr(store, folder)(item_id).parent.name,
                             slug_candidates(prefix, str(source.get("name") or item_id)))
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
    return new_id


def character_copy(store: FileStore, *, user, character_id: str) -> str:
    return _item_copy(store, user=user, kind="character", item_id=character_id)


def background_copy(store: FileStore, *, user, background_id: str) -> str:
    return _item_copy(store, user=user, kind="background", item_id=background_id)


def lorebook_copy(store: FileStore, *, user, lorebook_id: str) -> str:
    return _item_copy(store, user=user, kind="lorebook", item_id=lorebook_id)


# cards and lorebooks -----------------------------------------------------

MAX_CARD_BYTES = 10 * 1024 * 1024


def lorebook_save(store: FileStore, *, data: dict[str, Any], lorebook_id: str | None = None,
                  user=None, imported: bool = False) -> str:
    """Create (a new id, never overwrites) or change a lorebook; `user` as in character_save.
    A name written here is at most 200 characters, as a character's; an imported file keeps
    its own (and a change that leaves that name as it was keeps it too)."""
    from library.lorebook import LorebookError, lorebook_validate

    existing = ({} if lorebook_id is None else store.lorebook_read(lorebook_id) if user is None
                else item_for_edit(store, user=user, kind="lorebook", item_id=lorebook_id))
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
    lorebook.update(_ownership(data, existing, user=user))
    lorebook_id = lorebook_id or id_claim(store, data, key="lorebook_id", prefix="lore",
                                          name=lorebook.get("name", ""), kind="lorebooks",
                                          read=store.lorebook_read, user=user)
    store.lorebook_write(lorebook_id, lorebook)
    lorebook_index(store, lorebook_id)
    return lorebook_id


def _character_assets_read(store: FileStore, character_id: str) -> dict[str, bytes]:
    from library.charx import asset_path_safe

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
    from library.charx import asset_member, assets_listed, charx_write

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
                          spec: str = "v3") -> bytes:
    from library.cards import (card_to_json, card_to_png, definition_to_card,
                               lorebooks_to_character_book)

    definition = store.character_read(character_id)
    lorebook_ids = definition.get("lorebook_ids", [])
    lorebooks = [store.lorebook_read(lorebook_id) for lorebook_id in lorebook_ids
                 if isinstance(lorebook_id, str) and lorebook_id in store.lorebook_ids()]
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
