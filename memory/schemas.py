"""Request and response shapes of the memory routes: persona versions, pinned prompt, recaps,
biography, author's note, summarize and update-memory."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Field, Schema
from pydantic import StrictInt

from personalab.lib.body_fields import ClosedBody


class TextIn(ClosedBody):
    text: str


class MoveIn(ClosedBody):
    to: StrictInt = Field(description="the item's new position, 0 = first")


MEMBER_FIELD = Field(None, description="a member of a conversation with several characters "
                                      "(default: the instance's character)")


class PersonaTextIn(TextIn):
    character_id: str | None = MEMBER_FIELD


class VersionIn(ClosedBody):
    version: StrictInt
    character_id: str | None = MEMBER_FIELD


class PersonaOut(Schema):
    character_id: str
    base_persona: str
    evolved_persona: str
    versions: list[dict[str, Any]]


class PersonaChange(Schema):
    evolved_persona: str
    version: Any
    changed: bool


class PinnedIn(ClosedBody):
    text: str
    character_id: str | None = Field(
        None, description="a member: sets its override for conversations of exactly these "
                          "participants (convKey), which wins over every other pinned prompt")


class PinnedMember(Schema):
    character_id: str
    text: str
    source: str  # conv_key | instance | character | none
    conv_key_override: str


class PinnedOut(Schema):
    text: str
    source: str  # conv_key | instance | character | none
    override: str
    conv_key: str
    members: list[PinnedMember]


class Items(Schema):
    items: list[dict[str, Any]]


class RecapsOut(Items):
    pending: list[dict[str, Any]]
    # [{"session_id", "turns"}]: summaries written before those turns were edited or deleted
    summaries_source_changed: list[dict[str, Any]] = []


class AuthorsNoteIn(ClosedBody):
    text: str = Field("", max_length=4000)
    depth: StrictInt = Field(4, ge=0, le=50,
                             description="messages from the end where it is woven in")
    frequency: StrictInt = Field(1, ge=1, le=100, description="every N turns")
    role: Literal["system", "user", "assistant"] = "system"


class AuthorsNote(AuthorsNoteIn):
    model_config = {"extra": "ignore"}
