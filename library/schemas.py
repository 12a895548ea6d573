"""Request and response shapes of the library routes (personas)."""

from __future__ import annotations

from typing import Literal

from ninja import Schema


class PersonaIn(Schema):
    name: str
    description: str = ""
    visibility: Literal["private", "shared"] = "private"
    default: bool = False
    persona_id: str | None = None


class PersonaUpdateIn(Schema):
    name: str | None = None
    description: str | None = None
    visibility: Literal["private", "shared"] | None = None
    default: bool | None = None


class PersonaOut(Schema):
    persona_id: str
    name: str
    description: str
    visibility: str
    default: bool
    owner: str | None
    avatar_url: str | None
    created_at: str = ""


class PersonaList(Schema):
    personas: list[PersonaOut]
