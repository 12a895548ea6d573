"""Request and response shapes of the chat routes (instances, chat, sessions, history)."""

from __future__ import annotations

from typing import Any

from ninja import Schema


class InstanceIn(Schema):
    character_id: str
    background_id: str | None = None


class InstanceCreated(Schema):
    instance_id: str


class InstanceOut(Schema):
    instance_id: str
    character_id: str
    background_id: str | None
    current_session_id: str
    created_at: str
    owner: str | None


class InstanceList(Schema):
    instances: list[InstanceOut]


class InstanceDetail(InstanceOut):
    instance_state: dict[str, Any]
    character_state: dict[str, Any]
    director: dict[str, Any]
    sessions: list[str]
