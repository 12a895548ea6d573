"""Library routes of /api/v1/: the player's personas, characters and backgrounds (CRUD,
"use as my own" copies), character card import and export."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from ninja import File, Router, Status
from ninja.files import UploadedFile

from library import item_copy, selectors
from library.api.paging import LIMIT_DEFAULT, PAGE_HELP, page_read
from library.api.schemas import (
    BackgroundCopied,
    BackgroundCreated,
    BackgroundIn,
    BackgroundList,
    BackgroundOut,
    CharacterCopied,
    CharacterCreated,
    CharacterImported,
    CharacterIn,
    CharacterList,
    CharacterOut,
    Deleted,
    PersonaIn,
    PersonaList,
    PersonaOut,
    PersonasRestoredOut,
    PersonaUpdateIn,
)
from library.avatars import AVATAR_MAX_BYTES
from library.background_picture import background_picture_remove, background_picture_save
from library.background_services import (
    background_delete,
    background_save,
    background_save_reported,
)
from library.card_formats.card_import import MAX_CARD_BYTES, character_import_card
from library.card_formats.export import character_export_card
from library.card_formats.world_link import card_world_unlinked_said
from library.character_services import (
    character_avatar_remove,
    character_avatar_save,
    character_delete,
    character_save,
)
from library.errors import LibraryError
from library.find_replace.services import (
    card_scripts_allow,
    card_scripts_allowed,
    card_scripts_count,
)
from library.item_versions import item_version
from library.lore.services import character_books_named
from library.lore.st_tags import unnamed_tags_said
from library.personas import services as persona_services
from library.personas.positions import persona_placement
from library.personas.restore import MAX_FILE_BYTES as PERSONAS_FILE_MAX_BYTES
from library.personas.restore import SKIPPED_REASONS, personas_restore
from library.personas.services import (
    persona_avatar_remove,
    persona_avatar_save,
    persona_delete,
    persona_update,
)
from library.selectors import lorebooks_hidden_from, persona_for_user, personas_visible_to
from personalab.lib.body_fields import body_fields_check
from personalab.lib.errors import Invalid, TooLarge
from personalab.lib.ids import validate_id
from personalab.storage import get_store

router = Router(tags=["personas"])
characters_router = Router(tags=["characters"])
backgrounds_router = Router(tags=["backgrounds"])


def persona_out(persona_id: str, user=None, hidden: set[str] | None = None) -> dict:
    """A persona as `user` reads it: the link to a book they may not see is left out (a book's
    id is its name's slug), as a shared card's links are; `default` is whether it is their
    default (another account's shared default persona is not)."""
    persona = get_store().persona_read(persona_id)
    book = persona.get("lorebook_id")
    if book and user is not None:
        hidden = lorebooks_hidden_from(user=user) if hidden is None else hidden
        persona = {**persona, "lorebook_id": None if book in hidden else book}
    theirs = user is None or persona.get("owner") == user.get_username()
    return {**persona, **persona_placement(persona), "persona_id": persona_id,
            "default": bool(persona.get("default")) and theirs,
            "description": persona.get("description", ""),
            "visibility": persona.get("visibility", "private"),
            "avatar_url": (reverse("persona_avatar", args=[persona_id])
                           if persona.get("avatar") else None)}


@router.get("/personas", response=PersonaList)
def personas_list(request: HttpRequest):
    """Your personas and the ones other players shared (staff: all)."""
    hidden = lorebooks_hidden_from(user=request.auth)
    return {"personas": [persona_out(row.persona_id, request.auth, hidden)
                         for row in personas_visible_to(user=request.auth)]}


@router.post("/personas", response={201: PersonaOut})
def persona_create(request: HttpRequest, payload: PersonaIn):
    """Your first persona becomes your default unless it says `default: false`;
    `default: true` makes any new one it."""
    body_fields_check(payload.model_dump(exclude_unset=True), writable=PersonaIn.model_fields,
                      shown={})
    persona_id = persona_services.persona_create(
        get_store(), owner=request.auth, data=payload.model_dump(exclude_none=True),
        first_is_default="default" not in payload.model_fields_set)
    return Status(201, persona_out(persona_id))


@router.post("/personas/import", response={201: PersonasRestoredOut})
def personas_import(request: HttpRequest, file: File[UploadedFile]):
    """Multipart `file`: SillyTavern's personas backup (its persona manager's "Backup") or its
    settings.json. A persona whose name you already use is skipped and listed; the file's
    default persona becomes yours. A refused file makes none."""
    restored = personas_restore(get_store(), owner=request.auth,
                                data=file.read(PERSONAS_FILE_MAX_BYTES + 1))
    return Status(201, {"created": [persona_out(pid) for pid in restored.created],
                        "skipped": [{"name": name, "reason": SKIPPED_REASONS[code]}
                                    for name, code in restored.skipped],
                        "default_persona_id": restored.default_id,
                        "books_missing": [{"name": name, "lorebook": book}
                                          for name, book in restored.books_missing]})


@router.get("/personas/{persona_id}", response=PersonaOut)
def persona_detail(request: HttpRequest, persona_id: str):
    persona_for_user(user=request.auth, persona_id=persona_id)
    return persona_out(persona_id, request.auth)


@router.put("/personas/{persona_id}", response=PersonaOut)
def persona_change(request: HttpRequest, persona_id: str, payload: PersonaUpdateIn):
    """Only the fields sent change; `default: true` makes it your default. Other fields GET
    shows may be sent back unchanged (as for a character)."""
    persona_for_user(user=request.auth, persona_id=persona_id)
    body_fields_check(payload.model_dump(exclude_unset=True),
                      writable=PersonaUpdateIn.model_fields, shown=persona_out(persona_id))
    persona_update(get_store(), actor=request.auth, persona_id=persona_id,
                   data=payload.model_dump(exclude_none=True))
    return persona_out(persona_id)


@router.delete("/personas/{persona_id}", response={204: None})
def persona_remove(request: HttpRequest, persona_id: str):
    """Moved aside under data/trash/personas/; instances that used it fall back to the default."""
    persona_for_user(user=request.auth, persona_id=persona_id)
    persona_delete(get_store(), actor=request.auth, persona_id=persona_id)
    return Status(204, None)


@router.post("/personas/{persona_id}/avatar", response=PersonaOut)
def persona_avatar_upload(request: HttpRequest, persona_id: str, file: File[UploadedFile]):
    """Multipart `file`: PNG, JPEG, GIF or WebP, at most 2 MB."""
    persona_for_user(user=request.auth, persona_id=persona_id)
    persona_avatar_save(get_store(), actor=request.auth, persona_id=persona_id,
                        data=file.read(AVATAR_MAX_BYTES + 1))
    return persona_out(persona_id)


@router.delete("/personas/{persona_id}/picture", response=PersonaOut)
def persona_picture_delete(request: HttpRequest, persona_id: str):
    """The persona's picture goes (its owner only): it shows its initial again. Removing a
    picture it does not have is no error."""
    persona_for_user(user=request.auth, persona_id=persona_id)
    persona_avatar_remove(get_store(), actor=request.auth, persona_id=persona_id)
    return persona_out(persona_id)


# characters ---------------------------------------------------------------------------------
# `/characters/import` is declared before `/characters/{character_id}`, which would match it.

@characters_router.get("/characters", response=CharacterList, exclude_unset=True,
                       description=PAGE_HELP)
def characters_list(request: HttpRequest, offset: int = 0, limit: int = LIMIT_DEFAULT):
    """Your characters and shared ones (staff: all) by name, each its whole definition, a page
    at a time."""
    return _items_page(request, "characters", selectors.characters_visible_to(user=request.auth),
                       "character_id", get_store().character_read, offset=offset, limit=limit)


@characters_router.post("/characters", response={201: CharacterCreated})
def character_create(request: HttpRequest, payload: CharacterIn):
    """A new character, owned by you; an existing `character_id` is a 409; a field not listed
    here is a 400 `unknown_field`."""
    data = payload.model_dump(exclude_unset=True)
    data.pop("seen", None)  # nothing stored to have been seen
    body_fields_check(data, writable=CharacterIn.model_fields, shown={})
    character_id = character_save(get_store(), data=data, user=request.auth)
    return Status(201, {"character_id": character_id})


@characters_router.post("/characters/import", response={201: CharacterImported})
def character_import(request: HttpRequest, file: File[UploadedFile]):
    """Multipart `file`: a Character Card V2/V3 as PNG, JSON or CHARX (at most 10 MB); its
    book becomes a linked lorebook. `regex_scripts`: how many regex scripts the card carries
    (off until you allow them)."""
    if file.size > MAX_CARD_BYTES:
        raise TooLarge("file is larger than 10 MB")
    try:
        character_id = character_import_card(get_store(), data=file.read(),
                                                      filename=file.name or "",
                                                      user=request.auth)
    except LibraryError as exc:
        if exc.status != 400:
            raise
        raise Invalid(str(exc), code="invalid_card", fields=exc.field_errors) from None
    character = get_store().character_read(character_id)
    naming = character_books_named(get_store(), user=request.auth, character=character)
    return Status(201, {"character_id": character_id,
                        "regex_scripts": card_scripts_count(character),
                        "regex_scripts_allowed": False,
                        "warnings": [*card_world_unlinked_said(character),
                                     *unnamed_tags_said(naming.unnamed, settings_given=False)],
                        "named_from_kept": naming.from_kept})


def _links_shown(item: dict, user) -> dict:
    return selectors.links_shown(selectors.owner_keys_hidden(item, user=user),
                                 hidden=selectors.lorebooks_hidden_from(user=user))


def _character_shown(definition: dict, user) -> dict:
    """A definition as GET shows it to `user`: with whether its card's scripts run for them."""
    allowed = card_scripts_allowed(get_store(), username=user.get_username(),
                                   character=definition)
    return {**_links_shown(definition, user), "regex_scripts_allowed": allowed,
            "seen": item_version(definition, "character")}


def _seen_sent(data: dict) -> str | None:
    """The version a client was shown (GET's `seen`), as the editor pages send it: a save
    made since then is refused (409 `changed`) rather than silently undone."""
    seen = data.pop("seen", None)
    if seen is not None and not isinstance(seen, str):
        raise Invalid("seen must be the text GET showed", field="seen")
    return seen or None


@characters_router.get("/characters/{character_id}", response=CharacterOut, exclude_unset=True)
def character_detail(request: HttpRequest, character_id: str):
    validate_id(character_id, kind="character id")
    return _character_shown(selectors.character_for_use(
        get_store(), user=request.auth, character_id=character_id), request.auth)


@characters_router.put("/characters/{character_id}", response=CharacterOut, exclude_unset=True)
def character_change(request: HttpRequest, character_id: str, payload: CharacterIn):
    """Only the fields sent change (owner or staff). Other fields GET shows (`character_id`,
    `owner`, keys added to the file by hand) may be sent back unchanged; a changed one is a 400
    `read_only_field`, one GET does not show a 400 `unknown_field`."""
    store = get_store()
    validate_id(character_id, kind="character id")
    definition = selectors.character_for_use(store, user=request.auth, character_id=character_id)
    data = payload.model_dump(exclude_unset=True)
    seen = _seen_sent(data)
    body_fields_check(data, writable=CharacterIn.model_fields.keys() - {"character_id"},
                      shown=selectors.owner_keys_hidden(definition, user=request.auth))
    allowed = data.pop("regex_scripts_allowed", None)
    if allowed is not None and not isinstance(allowed, bool):
        raise Invalid("regex_scripts_allowed must be true or false",
                      field="regex_scripts_allowed")
    if data:  # the allowing alone is the account's own choice: no need to own the card
        character_save(store, data={**definition, **data}, character_id=character_id,
                       user=request.auth, seen=seen)
    if allowed is not None:
        card_scripts_allow(store, username=request.auth.get_username(),
                           character=store.character_read(character_id), allowed=allowed)
    return _character_shown(store.character_read(character_id), request.auth)


@characters_router.post("/characters/{character_id}/avatar", response=CharacterOut,
                        exclude_unset=True)
def character_avatar_upload(request: HttpRequest, character_id: str, file: File[UploadedFile]):
    """Multipart `file`: the character's new picture (PNG, JPEG, GIF or WebP, at most 2 MB;
    owner or staff). A PNG one carries the card on export."""
    store = get_store()
    validate_id(character_id, kind="character id")
    selectors.character_for_use(store, user=request.auth, character_id=character_id)
    character_avatar_save(store, actor=request.auth, character_id=character_id,
                          data=file.read(AVATAR_MAX_BYTES + 1))
    return _links_shown(store.character_read(character_id), request.auth)


@characters_router.delete("/characters/{character_id}/picture", response=CharacterOut,
                          exclude_unset=True)
def character_picture_delete(request: HttpRequest, character_id: str):
    """The character's picture goes (owner or staff): it shows its initial again and its card
    exports without one. Removing a picture it does not have is no error."""
    store = get_store()
    validate_id(character_id, kind="character id")
    selectors.character_for_use(store, user=request.auth, character_id=character_id)
    character_avatar_remove(store, actor=request.auth, character_id=character_id)
    return _links_shown(store.character_read(character_id), request.auth)


@characters_router.delete("/characters/{character_id}", response=Deleted)
def character_remove(request: HttpRequest, character_id: str):
    """Moved aside under data/trash/characters/ (owner or staff); 409 while an instance uses it."""
    store = get_store()
    validate_id(character_id, kind="character id")
    selectors.character_for_use(store, user=request.auth, character_id=character_id)
    character_delete(store, character_id=character_id, user=request.auth)
    return {"deleted": character_id}


@characters_router.post("/characters/{character_id}/copy", response={201: CharacterCopied})
def character_copy(request: HttpRequest, character_id: str):
    """"Use as my own": a private copy of a character you may see, owned by you."""
    validate_id(character_id, kind="character id")
    new_id = item_copy.character_copy(get_store(), user=request.auth, character_id=character_id)
    return Status(201, {"character_id": new_id, "copied_from": character_id})


CARD_TYPES = {"png": "image/png", "json": "application/json", "charx": "application/zip"}


def _card_file(fmt: str) -> dict:
    """The OpenAPI answer of a card download: a file of the format's media type."""
    return {"responses": {200: {"description": f"the card as a .{fmt} file", "content": {
        CARD_TYPES[fmt]: {"schema": {"type": "string", "format": "binary"}}}}}}


def _card_export(request: HttpRequest, character_id: str, fmt: str,
                 spec: str | None) -> HttpResponse:
    validate_id(character_id, kind="character id")
    selectors.character_for_use(get_store(), user=request.auth, character_id=character_id)
    spec = spec or ("v3" if fmt == "png" else "v2")
    if spec not in ("v2", "v3"):
        raise Invalid("spec must be v2 or v3", code="bad_spec", field="spec")
    body = character_export_card(get_store(), character_id=character_id, fmt=fmt,
                                 spec=spec, reader=request.auth.get_username())
    response = HttpResponse(body, content_type=CARD_TYPES[fmt])
    response["Content-Disposition"] = f'attachment; filename="{character_id}.{fmt}"'
    return response


@characters_router.get("/characters/{character_id}/card.png",
                       openapi_extra=_card_file("png"))
def character_card_png(request: HttpRequest, character_id: str, spec: str | None = None):
    """The card inside the avatar PNG (`chara` and `ccv3` text chunks)."""
    return _card_export(request, character_id, "png", spec)


@characters_router.get("/characters/{character_id}/card.json",
                       openapi_extra=_card_file("json"))
def character_card_json(request: HttpRequest, character_id: str, spec: str | None = None):
    """The card as JSON; `spec`: v2 (default) or v3."""
    return _card_export(request, character_id, "json", spec)


@characters_router.get("/characters/{character_id}/card.charx",
                       openapi_extra=_card_file("charx"))
def character_card_charx(request: HttpRequest, character_id: str, spec: str | None = None):
    """A CHARX (zip): the V3 card with its asset files."""
    return _card_export(request, character_id, "charx", spec)


# backgrounds --------------------------------------------------------------------------------

@backgrounds_router.get("/backgrounds", response=BackgroundList, exclude_unset=True,
                        description=PAGE_HELP)
def backgrounds_list(request: HttpRequest, offset: int = 0, limit: int = LIMIT_DEFAULT):
    """Your backgrounds and shared ones (staff: all) by name, each whole, a page at a time."""
    return _items_page(request, "backgrounds",
                       selectors.backgrounds_visible_to(user=request.auth), "background_id",
                       get_store().background_read, offset=offset, limit=limit)


def _items_page(request: HttpRequest, kind: str, rows, id_field: str, read, *, offset: int,
                limit: int) -> dict:
    """One page of a list of characters or backgrounds, as the list's schema has it; links to
    books this account may not see are left out of each item."""
    hidden = selectors.lorebooks_hidden_from(user=request.auth)

    def shown(item_id: str) -> dict:
        item = selectors.owner_keys_hidden(read(item_id), user=request.auth)
        return selectors.links_shown(item, hidden=hidden)

    page = page_read(rows, id_field=id_field, offset=offset, limit=limit, read=shown)
    return {kind: page["items"], "total": page["total"], "next_offset": page["next_offset"]}


@backgrounds_router.post("/backgrounds", response={201: BackgroundCreated})
def background_create(request: HttpRequest, payload: BackgroundIn):
    """A new background, owned by you; an existing `background_id` is a 409; a field not listed
    here is a 400 `unknown_field`."""
    data = payload.model_dump(exclude_unset=True)
    data.pop("seen", None)  # nothing stored to have been seen
    body_fields_check(data, writable=BackgroundIn.model_fields, shown={})
    background_id = background_save(get_store(), data=data, user=request.auth)
    return Status(201, {"background_id": background_id})


@backgrounds_router.get("/backgrounds/{background_id}", response=BackgroundOut,
                        exclude_unset=True)
def background_detail(request: HttpRequest, background_id: str):
    validate_id(background_id, kind="background id")
    return _background_shown(selectors.background_for_use(
        get_store(), user=request.auth, background_id=background_id), request.auth)


def _background_shown(background: dict, user) -> dict:
    return {**_links_shown(background, user),
            "seen": item_version(background, "background", whole=True)}


@backgrounds_router.put("/backgrounds/{background_id}", response=BackgroundOut,
                        exclude_unset=True)
def background_change(request: HttpRequest, background_id: str, payload: BackgroundIn):
    """Only the fields sent change (owner or staff); other fields as for a character. A
    changed `story_outline` needs the `seen` GET showed (it covers the outline; 409 `changed`
    otherwise). Each chat playing the background stays on the point it was at; the answer's
    `outline_chats` says which chats moved with their point, which kept their position (their
    point was edited or deleted) and which were busy in a turn (they follow as it ends):
    your chats by id (staff: all), every chat in `count`."""
    store = get_store()
    validate_id(background_id, kind="background id")
    background = selectors.background_for_use(store, user=request.auth,
                                              background_id=background_id)
    data = payload.model_dump(exclude_unset=True)
    seen = _seen_sent(data)
    body_fields_check(data, writable=BackgroundIn.model_fields.keys() - {"background_id"},
                      shown=selectors.owner_keys_hidden(background, user=request.auth))
    _, chats = background_save_reported(store, data={**background, **data},
                                        background_id=background_id, user=request.auth,
                                        seen=seen)
    shown = _background_shown(store.background_read(background_id), request.auth)
    if "story_outline" in data:
        shown["outline_chats"] = chats.shown(request.auth)
    return shown


@backgrounds_router.post("/backgrounds/{background_id}/picture", response=BackgroundOut,
                         exclude_unset=True)
def background_picture_upload(request: HttpRequest, background_id: str,
                              file: File[UploadedFile]):
    """Multipart `file`: the background's picture, shown behind the chat (PNG, JPEG, GIF or
    WebP, at most 2 MB; owner or staff; the editor crops it to 16:9). The answer has
    `picture_url`."""
    store = get_store()
    validate_id(background_id, kind="background id")
    selectors.background_for_use(store, user=request.auth, background_id=background_id)
    background_picture_save(store, actor=request.auth, background_id=background_id,
                            data=file.read(AVATAR_MAX_BYTES + 1))
    return {**_links_shown(store.background_read(background_id), request.auth),
            "picture_url": reverse("background_picture", args=[background_id])}


@backgrounds_router.delete("/backgrounds/{background_id}/picture", response=BackgroundOut,
                           exclude_unset=True)
def background_picture_delete(request: HttpRequest, background_id: str):
    """The background's picture goes (owner or staff): the chat shows no picture behind it.
    Removing a picture it does not have is no error."""
    store = get_store()
    validate_id(background_id, kind="background id")
    selectors.background_for_use(store, user=request.auth, background_id=background_id)
    background_picture_remove(store, actor=request.auth, background_id=background_id)
    return _links_shown(store.background_read(background_id), request.auth)


@backgrounds_router.delete("/backgrounds/{background_id}", response=Deleted)
def background_remove(request: HttpRequest, background_id: str):
    """Moved aside under data/trash/backgrounds/ (owner or staff); 409 while in use."""
    store = get_store()
    validate_id(background_id, kind="background id")
    selectors.background_for_use(store, user=request.auth, background_id=background_id)
    background_delete(store, background_id=background_id, user=request.auth)
    return {"deleted": background_id}


@backgrounds_router.post("/backgrounds/{background_id}/copy", response={201: BackgroundCopied})
def background_copy(request: HttpRequest, background_id: str):
    """"Use as my own": a private copy of a background you may see, owned by you."""
    validate_id(background_id, kind="background id")
    new_id = item_copy.background_copy(get_store(), user=request.auth,
                                       background_id=background_id)
    return Status(201, {"background_id": new_id, "copied_from": background_id})
