"""Routes of /api/v1/ over the conversation ledger's indexes: which conversations a set of
participants share, and which conversations one participant took part in."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router

from chat.api.schemas import ConversationList
from chat.groups import conversations
from chat.models import Instance
from personalab.lib.errors import Invalid
from personalab.lib.participants import participant_id_checked

router = Router(tags=["conversations"])


def conversation_out(row: Instance) -> dict:
    participants = sorted(p.participant_id for p in row.participants.all())
    return {"instance_id": row.instance_id, "conv_key": "|".join(participants),
            "participants": participants, "character_id": row.character_id,
            "created_at": row.created_at}


@router.get("/conversations", response=ConversationList, tags=["conversations"])
def conversations_with(request: HttpRequest, participants: str):
    """Your conversations with exactly these participants (comma-separated ids; you, as
    `player:{username}`, are included when no player is named)."""
    wanted = [participant_id_checked(p.strip(), field="participants")
              for p in participants.split(",") if p.strip()]
    if not wanted:
        raise Invalid("name at least one participant", field="participants")
    rows = conversations.conversations_with(user=request.auth, participants=wanted)
    return {"conversations": [conversation_out(row) for row in rows]}


@router.get("/participants/{participant_id}/conversations", response=ConversationList,
            tags=["conversations"])
def participant_conversations(request: HttpRequest, participant_id: str):
    """Your conversations that this character (or `player:{username}`) took part in."""
    participant_id_checked(participant_id, field="participant_id")
    rows = conversations.conversations_of(user=request.auth, participant_id=participant_id)
    return {"conversations": [conversation_out(row) for row in rows]}
