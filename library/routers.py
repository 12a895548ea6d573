"""Library routes of /api/v1/: the player's personas."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse
from ninja import File, Router, Status
from ninja.files import UploadedFile

from library import services
from library.schemas import PersonaIn, PersonaList, PersonaOut, PersonaUpdateIn
from library.selectors import persona_for_user, personas_visible_to
from personalab.storage import get_store

router = Router(tags=["personas"])


def persona_out(persona_id: str) -> dict:
    persona = get_store().persona_read(persona_id)
    return {**persona, "persona_id": persona_id, "default": bool(persona.get("default")),
            "description": persona.get("description", ""),
            "visibility": persona.get("visibility", "private"),
            "avatar_url": (reverse("persona_avatar", args=[persona_id])
                           if persona.get("avatar") else None)}


@router.get("/personas", response=PersonaList)
def personas_list(request: HttpRequest):
    """Your personas and the ones other players shared (staff: all)."""
    return {"personas": [persona_out(row.persona_id)
                         for row in personas_visible_to(user=request.auth)]}


@router.post("/personas", response={201: PersonaOut})
def persona_create(request: HttpRequest, payload: PersonaIn):
    """Your first persona becomes your default; `default: true` makes any new one it."""
    persona_id = services.persona_create(get_store(), owner=request.auth,
                                         data=payload.model_dump(exclude_none=True))
    return Status(201, persona_out(persona_id))


@router.get("/personas/{persona_id}", response=PersonaOut)
def persona_detail(request: HttpRequest, persona_id: str):
    persona_for_user(user=request.auth, persona_id=persona_id)
    return persona_out(persona_id)


@router.put("/personas/{persona_id}", response=PersonaOut)
def persona_change(request: HttpRequest, persona_id: str, payload: PersonaUpdateIn):
    """Only the fields sent change; `default: true` makes it your default."""
    persona_for_user(user=request.auth, persona_id=persona_id)
    services.persona_update(get_store(), actor=request.auth, persona_id=persona_id,
                            data=payload.model_dump(exclude_none=True))
    return persona_out(persona_id)


@router.delete("/personas/{persona_id}", response={204: None})
def persona_remove(request: HttpRequest, persona_id: str):
    """Moved aside under data/trash/personas/; instances that used it fall back to the default."""
    persona_for_user(user=request.auth, persona_id=persona_id)
    services.persona_delete(get_store(), actor=request.auth, persona_id=persona_id)
    return Status(204, None)


@router.post("/personas/{persona_id}/avatar", response=PersonaOut)
def persona_avatar_upload(request: HttpRequest, persona_id: str, file: File[UploadedFile]):
    """Multipart `file`: PNG, JPEG, GIF or WebP, at most 2 MB."""
    persona_for_user(user=request.auth, persona_id=persona_id)
    services.persona_avatar_save(get_store(), actor=request.auth, persona_id=persona_id,
                                 data=file.read(services.AVATAR_MAX_BYTES + 1))
    return persona_out(persona_id)
